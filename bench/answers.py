"""What users get: for each knowledge base and policy, the share of questions answered
right, answered wrong, withheld though answerable, and abstained rightly.

Sets:

* ``ordinary``: the knowledge bases of ``bench/ordinary/`` (written in this repository
  as users write documents: data sheets, policies with an older version, leaflets,
  forum and chat exports beside the official text), each asked its own questions on
  its own ``as_of`` day. Besides right and wrong it counts answers *drafted from a
  weaker source* (the answer cites a source other than the one holding the gold
  answer, while that one had an admitted passage) and, for the questions where a weaker
  or older source disagrees, whether the response *names the disagreement* (a note,
  or a conflict in the judge's assessment) when the weaker source was admitted;
* the public held-aside sets of ``bench/abstention.py`` (SQuAD 2.0 test articles,
  TAT-QA, COVID-QA, PolicyQA, XQuAD), asked of the knowledge base with the answer
  (``present``), without it (``absent``) and, for SQuAD, its unanswerable questions.

``--ordinary DIR`` asks another suite of the same layout instead, such as
``labels/ordinary-fit`` (the knowledge bases the correctness model is fitted on) when a
change is tried there before it meets the held-out suite. ``bench/answers_diff.py``
compares two ``--out`` files question by question.

A question counts as answered when ``ask`` returns status ``answered``; right when the
answer, without the notes after it, holds a gold answer (SQuAD's normalisation). Every
question is asked through the Python API with ``record=False``. The previous release's
figures are the same script run on that release's code (``--label "previous release"
--out FILE``) and kept in ``bench/answers_previous.json``; ``--write`` puts both in
docs/benchmarks.md. With ``ASSAY_LLM_URL`` set, each ``--llm`` path is asked as a further
release: ``reading`` (default) keeps the offline answerer while the LLM reads the
evidence (the set's judgment where the policy asks for it, and
``assay-correctness-llm``), ``answerer`` also has it write the answers::

    .venv/bin/python bench/answers.py [--sets ordinary squad ...] [--policies ...]
        [--questions N] [--squad-questions N] [--label NAME] [--out FILE]
        [--previous FILE] [--ordinary DIR] [--llm reading answerer] [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from abstention import SETS as PUBLIC_SETS
from abstention import load_set
from docs_section import write_section

from assay import Assay
from assay.calibration.scored import contains_gold
from assay.settings import LLMSettings, load_llm_settings
from assay.training.answer_rows import AS_OF, each_knowledge_base
from assay.training.ordinary_kbs import build, knowledge_bases

ORDINARY = Path(__file__).resolve().parent / "ordinary"
PREVIOUS = Path(__file__).resolve().parent / "answers_previous.json"
HEADING = "## What users get: answers right, wrong and withheld (bench/answers.py)"
OUTCOMES = ("right", "wrong", "withheld", "abstained", "answered_unanswerable")
#: the ways a configured chat model takes part (``--llm``): ``reading`` keeps the
#: extractive answerer and lets the LLM read (the set's judgment where a policy asks for
#: it, and ``assay-correctness-llm``); ``answerer`` also has it write the answers
LLM_PATHS: dict[str, dict[str, Any]] = {
    "reading": {},
    "answerer": {"answerer": "llm"},
}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def outcome(answerable: bool, answered: bool, right: bool) -> str:
    """One question's outcome: right / wrong / withheld when it is answerable, else
    abstained / answered_unanswerable."""
    if not answerable:
        return "answered_unanswerable" if answered else "abstained"
    return ("right" if right else "wrong") if answered else "withheld"


def stated(response: Any) -> str:
    """The answer without the notes after it: a gold answer named only in a note that
    another source disagrees ("... states "30 days' notice"") was not the answer."""
    text = response.answer
    for note in getattr(response, "notes", ()):
        text = text.replace(note, "")
    return str(text)


def cited_sources(response: Any) -> set[str]:
    """The sources of the evidence the answer cites."""
    cited = set(response.citations.valid) if response.citations else set()
    return {e.basis.source_id for e in response.result.scored.admitted if e.id in cited}


def admitted_sources(response: Any) -> set[str]:
    return {e.basis.source_id for e in response.result.scored.admitted}


def disagreement_named(response: Any) -> bool:
    """Whether the response tells its reader that sources disagree."""
    said = any("disagree" in n.lower() for n in response.notes) or "disagree" in response.answer
    return said or bool(response.assessment.source_conflicts)


def run_ordinary(
    policies: Sequence[str], engine_settings: dict[str, Any], suite: Path = ORDINARY
) -> list[dict[str, Any]]:
    """One row per (knowledge base, question, policy) of an ordinary-documents suite."""
    rows = []
    for kb in knowledge_bases(suite):
        with tempfile.TemporaryDirectory(prefix="assay-answers-") as tmp:
            engine = build(kb, Path(tmp), **engine_settings)
            for q in kb.questions:
                for policy in policies:
                    r = engine.ask(q["question"], policy=policy, as_of=kb.as_of, record=False)
                    answered = r.status.value == "answered"
                    answerable = q["type"] != "unanswerable"
                    right = answered and answerable and contains_gold(stated(r), q["answers"])
                    admitted = admitted_sources(r)
                    weaker = q.get("weaker")
                    rows.append({
                        "set": "ordinary", "kb": kb.name, "id": q["id"], "type": q["type"],
                        "policy": policy, "outcome": outcome(answerable, answered, right),
                        "status": r.status.value, "answer": r.answer,
                        "decision": r.decision.value,
                        "declined": getattr(r.draft, "declined", None),
                        "draft_right": bool(r.draft and r.judgment and answerable
                                            and contains_gold(r.draft.text, q["answers"])),
                        "score": r.assessment.confidence_score,
                        "gold_source_admitted": q.get("source") in admitted,
                        "from_weaker": bool(answered and q.get("source") in admitted
                                            and cited_sources(r) - {q.get("source")}),
                        "weaker_admitted": bool(weaker and weaker in admitted),
                        "disagreement_named": disagreement_named(r),
                    })  # fmt: skip
            engine.close()
        log(f"ordinary/{kb.name}: done")
    return rows


def run_public(
    name: str, n: int, policies: Sequence[str], data: Path, more: Path, update: dict[str, Any]
) -> list[dict[str, Any]]:
    """One row per (condition, question, policy) of a public held-aside set."""
    spec = next(s for s in PUBLIC_SETS if s[0] == name)
    _, root, file, split, _, _ = spec
    path = (data if root == "data" else more) / file
    if not path.is_file():
        log(f"{name}: {file} is missing, skipped")
        return []
    paragraphs, _ = load_set(name, path, split, data)
    rows = []
    for knowledge, items in each_knowledge_base(name, paragraphs, n):
        for condition, questions in items.items():
            settings = knowledge[condition].settings.model_copy(update=update)
            engine = Assay(settings.db, settings=settings, calibrate=False)
            for item in questions:
                for policy in policies:
                    r = engine.ask(item.question, policy=policy, as_of=AS_OF, record=False)
                    answered = r.status.value == "answered"
                    answerable = condition == "present"
                    right = answered and answerable and contains_gold(stated(r), item.golds)
                    draft = getattr(r, "draft", None)
                    rows.append({
                        "set": name, "condition": condition, "policy": policy,
                        "outcome": outcome(answerable, answered, right), "status": r.status.value,
                        "question": item.question, "answer": r.answer,
                        "decision": r.decision.value,
                        "declined": getattr(draft, "declined", None),
                        "draft_right": bool(draft and answerable
                                            and contains_gold(draft.text, item.golds)),
                        "score": r.assessment.confidence_score,
                    })  # fmt: skip
            engine.close()
    log(f"{name}: {len(rows)} rows")
    return rows


def shares(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one (set, policy, release): shares of answerable questions answered
    right, wrong and withheld, answered wrong over all questions, unanswerable ones
    abstained; for the ordinary suite also the weaker-source counts."""
    answerable = [r for r in rows if r["outcome"] in ("right", "wrong", "withheld")]
    unanswerable = [r for r in rows if r not in answerable]
    count = Counter(r["outcome"] for r in rows)

    def share(k: int, of: int) -> float | None:
        return round(k / of, 3) if of else None

    out: dict[str, Any] = {
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "right": share(count["right"], len(answerable)),
        "wrong": share(count["wrong"], len(answerable)),
        "withheld": share(count["withheld"], len(answerable)),
        "wrong_of_all": share(count["wrong"] + count["answered_unanswerable"], len(rows)),
        "abstained": share(count["abstained"], len(unanswerable)),
        "right_of_answered": share(count["right"], count["right"] + count["wrong"]),
    }
    if rows and rows[0]["set"] == "ordinary":
        out["from_weaker"] = sum(r["from_weaker"] for r in rows)
        weaker = [r for r in rows if r["type"] == "disagreement" and r["weaker_admitted"]]
        out["disagreements_named"] = f"{sum(r['disagreement_named'] for r in weaker)}/{len(weaker)}"
    return out


def figures(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``shares`` per "set / policy"."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(f"{r['set']} / {r['policy']}", []).append(r)
    return {k: shares(v) for k, v in sorted(groups.items())}


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def table(releases: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """One markdown row per set, policy and release."""
    lines = [
        "| set / policy | release | answerable | right | wrong | withheld | right of answered "
        "| wrong of all | unanswerable | abstained | from a weaker source | disagreements named |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    keys = sorted({k for figs in releases.values() for k in figs})
    for key in keys:
        for release, figs in releases.items():
            f = figs.get(key)
            if f is None:
                continue
            lines.append(
                f"| {key} | {release} | {f['answerable']} | {pct(f['right'])} | {pct(f['wrong'])} "
                f"| {pct(f['withheld'])} | {pct(f['right_of_answered'])} "
                f"| {pct(f['wrong_of_all'])} "
                f"| {f['unanswerable']} | {pct(f['abstained'])} | {f.get('from_weaker', '-')} "
                f"| {f.get('disagreements_named', '-')} |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--more", type=Path, default=Path("../shared/data_more"))
    parser.add_argument("--sets", nargs="+", default=["ordinary", "squad", "tatqa", "covid_qa",
                                                      "policyqa", "xquad"])  # fmt: skip
    parser.add_argument("--policies", nargs="+", default=["informational", "financial"])
    parser.add_argument("--questions", type=int, default=100, help="per condition, public sets")
    parser.add_argument(
        "--squad-questions", type=int, help="per condition, SQuAD (default: --questions)"
    )
    parser.add_argument("--label", default="this release")
    parser.add_argument("--out", type=Path, help="keep the rows and figures here (JSON)")
    parser.add_argument("--previous", type=Path, default=PREVIOUS)
    parser.add_argument(
        "--ordinary", type=Path, default=ORDINARY, help="the ordinary-documents suite to ask"
    )
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    parser.add_argument(
        "--llm", nargs="+", choices=sorted(LLM_PATHS), default=["reading"],
        help="with ASSAY_LLM_URL set, also ask through these LLM paths",
    )  # fmt: skip
    args = parser.parse_args()
    if args.write and args.ordinary != ORDINARY:
        parser.error("--write reports the held-out suite bench/ordinary; leave --ordinary out")
    llm = load_llm_settings()
    releases = [(args.label, {"llm": LLMSettings()})]
    if llm.configured:
        releases += [(f"{args.label}, LLM {p}", {"llm": llm} | LLM_PATHS[p]) for p in args.llm]
    results: dict[str, dict[str, dict[str, Any]]] = {}
    all_rows: dict[str, list[dict[str, Any]]] = {}
    for label, update in releases:
        start, rows = time.perf_counter(), []
        for name in args.sets:
            if name == "ordinary":
                rows += run_ordinary(args.policies, update, args.ordinary)
            else:
                n = (
                    args.squad_questions
                    if name == "squad" and args.squad_questions
                    else args.questions
                )
                rows += run_public(name, n, args.policies, args.data, args.more, update)
        log(f"{label}: {len(rows)} rows in {time.perf_counter() - start:.0f} s")
        results[label], all_rows[label] = figures(rows), rows
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"figures": results, "rows": all_rows}, indent=1))
    previous = json.loads(args.previous.read_text())["figures"] if args.previous.is_file() else {}
    lines = table(previous | results)
    print("\n".join(lines))
    if args.write:
        command = "make bench-answers"
        section = "\n".join([
            HEADING, "",
            f"`{command}` ({date.today().isoformat()}; offline default"
            + (f"; LLM paths: {', '.join(args.llm)}" if llm.configured else "") + "). Shares of "
            "answerable questions answered right / wrong / withheld; of unanswerable ones "
            "abstained; \"wrong of all\" counts wrong answers and answered unanswerable "
            "questions over every question; \"from a weaker source\" counts ordinary answers "
            "citing another source than the gold one while the gold one was admitted; "
            "\"disagreements named\" counts, of the disagreement questions whose weaker "
            "source was admitted, those whose response names the disagreement.", "",
            *lines, "",
        ])  # fmt: skip
        write_section(HEADING, section)


if __name__ == "__main__":
    main()
