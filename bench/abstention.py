"""Knowledge bases without the answer, and whether an answer's confidence predicts that it
is right: the part of ``bench/pipeline.py`` that compares this release with the last.

For each held-aside set (never used to fit the correctness model: SQuAD 2.0's test
articles, XQuAD's articles outside SQuAD 2.0 dev, COVID-QA, PolicyQA test, TAT-QA test),
:mod:`assay.training.answer_rows` builds the ``present`` and ``absent`` knowledge bases
(the same documents, less a seeded half of the paragraphs in ``absent``) and draws
questions from the removed half; SQuAD's unanswerable questions of that half are asked
of ``present``. TAT-QA's questions ask about "the company" of one annual report, so
each report is a pair of knowledge bases of its own, less half of its own passages.
Every question is asked under each policy twice: as this release answers (the reader and
the answer-correctness model, offline) and as releases before the correctness model did
(no reader; the judge's support score decides: "support only").
With ``ASSAY_LLM_URL`` set, a third release asks it with that endpoint configured ("this
release, LLM"): ``assay-correctness-llm`` rates its answers when the endpoint serves the
chat model it was fitted with (``make bench-pipeline-llm`` starts the local one), and
the legal and safety-critical policies rerank with the LLM cascade. Its drafted answers
are shown once more scored by the judge's support alone ("this release, LLM, support as
score"): what the rating adds on the very same answers. Under the two strict policies
no correctness model applies with the cascade (it was fitted on the base relevance
model's scores), so there the judge's support is the score. Per set, policy and
release:

* answered share in each condition, and the share of answers given in ``present`` that
  hold a gold answer ("right");
* the J1 ``confidence_score`` of every drafted answer (given or withheld) against
  right/wrong, all conditions pooled: AUROC, Brier, ECE over 15 equal-width bins;
  Beside the ECE, the ECE a perfectly calibrated score would show on as many answers
  (outcomes drawn from the scores themselves, 200 seeded draws): with a few hundred
  answers in 15 bins that noise alone is 0.05-0.10, so an ECE near it says "calibrated
  as far as this sample can tell", and a target of 0.03 needs thousands of answers;
* selective accuracy at 50% coverage: the questions of ``present`` and ``unanswerable``
  ranked by that score (0 when nothing was drafted), the better half answered; beside
  it the most any score could reach (every right draft ranked first: the right drafts
  of those questions over half their number). With SQuAD's unanswerable questions half
  of the pool, that ceiling is the share of answerable questions drafted right, so
  0.90 needs an answerer right on 90% of them, whatever the score.

Run alone, for some sets and policies and fewer questions (``make bench-pipeline-llm``
runs it whole, through ``bench/pipeline.py``)::

    .venv/bin/python bench/abstention.py [--data PATH] [--more PATH] [--sets squad ...]
                                         [--policies legal ...] [--questions N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from assay import Assay
from assay.answer.correctness import SHIPPED_CORRECTNESS_LLM, load_correctness_model
from assay.metrics import auroc, brier_score, ece_noise_floor, expected_calibration_error
from assay.models.answerability import ANSWERABILITY_PROMPT_VERSION
from assay.settings import LLMSettings, load_llm_settings
from assay.training.answer_rows import (
    CONDITIONS,
    ONE_KNOWLEDGE_BASE_PER_DOCUMENT,
    AnswerRow,
    Paragraph,
    ask_rows,
    by_document,
    each_knowledge_base,
    load_documents,
)
from assay.training.datasets import squad_splits
from assay.training.pairsets import in_test_split, normalized

SQUAD_DEV = "squad_v2_dev/dev-v2.0.reconstructed.json"  #: under --data
#: (set, path under --data or --more, split, questions per condition, policies)
SetSpec = tuple[str, str, str, str | None, int, tuple[str, ...]]
SETS: tuple[SetSpec, ...] = (
    ("squad", "data", SQUAD_DEV, "test", 200,
     ("informational", "financial", "legal", "safety_critical")),
    ("xquad", "more", "xquad_en/xquad.en.json", None, 100, ("informational", "financial")),
    ("covid_qa", "more", "covid_qa_prelim/200423_covidQA.json", None, 100,
     ("informational", "financial")),
    ("policyqa", "more", "policyqa/test.json", None, 100, ("informational", "financial")),
    ("tatqa", "more", "tatqa/tatqa_dataset_test_gold.json", None, 100,
     ("informational", "financial")),
)  # fmt: skip
#: each release's settings over the knowledge base's own; the first two run offline
RELEASES: dict[str, dict[str, Any]] = {
    "this release": {"llm": LLMSettings()},
    "support only": {"correctness_model": "none", "reader_model": "none", "llm": LLMSettings()},
    "this release, LLM": {},
}
LLM_RELEASE = "this release, LLM"
#: the LLM release's drafted answers scored by the judge's support alone (no new asks)
SUPPORT_AS_SCORE = "this release, LLM, support as score"
#: figures of what was answered, which a score computed afterwards does not change
ANSWERED = ("answered present", "right", "answered absent", "answered unanswerable")
#: each set's name in the cross-encoder's training mix (assay.training.mix); XQuAD is
#: held aside from it whole
MIX_NAMES = {"squad": "squad_v2", "policyqa": "policyqa", "covid_qa": "covid_qa"}
TARGETS = (
    "Targets: right vs wrong AUROC >= 0.80, Brier <= 0.17, ECE <= 0.03; without the answer "
    "abstain >= 90% (financial) and >= 75% (informational); with it answered >= 70% "
    "(informational), right in >= 85% of those; selective accuracy at 50% coverage >= 0.90 "
    "(SQuAD)."
)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def releases() -> list[str]:
    """The releases this run measures: the LLM one only with an endpoint configured."""
    with_llm = load_llm_settings().configured
    return [r for r in RELEASES if with_llm or r != LLM_RELEASE]


def run_set(
    paragraphs: Sequence[Paragraph], name: str, n: int, policies: Sequence[str]
) -> dict[str, list[AnswerRow]]:
    """Rows of one set per release; each question asked by every release in turn, so the
    later ones find its passages already encoded. A set whose questions assume a single
    document (TAT-QA's reports) is asked document by document, each its own pair of
    knowledge bases."""
    rows: dict[str, list[AnswerRow]] = {r: [] for r in releases()}
    start, asked = time.perf_counter(), 0
    for knowledge, items in each_knowledge_base(name, paragraphs, n):
        for condition, questions in items.items():
            settings = knowledge[condition].settings
            engines = {
                r: Assay(settings.db, settings=settings.model_copy(update=RELEASES[r]),
                         calibrate=False)
                for r in rows
            }  # fmt: skip
            for item in questions:
                for release, engine in engines.items():
                    rows[release] += ask_rows(name, condition, engine, [item], policies)
            for engine in engines.values():
                engine.close()
        asked += len(items["present"])
    log(f"{name}: {asked} questions in {time.perf_counter() - start:.0f} s")
    if LLM_RELEASE in rows:
        rows[SUPPORT_AS_SCORE] = [
            replace(r, score=r.features["support"]) if r.features else r for r in rows[LLM_RELEASE]
        ]
    return rows


def never_trained(name: str, path: Path, split: str | None) -> tuple[set[str], int, int]:
    """The questions (as asked) whose document the cross-encoder never trained on, and
    how many of the set's documents that is, of how many.

    The reader starts from the cross-encoder and the judge's support model reads it; the
    cross-encoder's mix took pairs from every document of these files outside its
    held-out groups (``in_test_split``, by article title, else by passage).
    """
    articles = json.loads(path.read_text())["data"]
    if name == "squad" and split is not None:
        titles = set(squad_splits(path)[split])
        articles = [a for a in articles if a["title"] in titles]
    unseen_paragraphs, groups = set(), {}
    for a, article in enumerate(articles):
        for p, paragraph in enumerate(article["paragraphs"]):
            group = str(article.get("title", "")) or normalized(str(paragraph["context"]))[:80]
            groups[group] = in_test_split(MIX_NAMES[name], group)
            if groups[group]:
                unseen_paragraphs.add(f"{name}:{a}:{p}")
    questions = {
        q.question
        for paragraph in load_documents(name, path, split)
        if paragraph.id in unseen_paragraphs
        for q in paragraph.questions
    }
    return questions, sum(groups.values()), len(groups)


def figures(rows: Sequence[AnswerRow]) -> dict[str, Any]:
    """The figures of one set, policy and release (see the module docstring)."""

    def share(selected: list[AnswerRow], attribute: str) -> float | None:
        return float(np.mean([getattr(r, attribute) for r in selected])) if selected else None

    by = {c: [r for r in rows if r.condition == c] for c in CONDITIONS}
    given = [r for r in by["present"] if r.answered]
    drafted = [r for r in rows if r.drafted]
    y = np.array([int(r.correct) for r in drafted])
    p = np.array([r.score for r in drafted])
    ranked = sorted(by["present"] + by["unanswerable"], key=lambda r: -r.score)
    half = ranked[: len(ranked) // 2]
    separable = 0 < y.sum() < len(y)
    return {
        "answered present": share(by["present"], "answered"),
        "right": share(given, "correct"),
        "answered absent": share(by["absent"], "answered"),
        "answered unanswerable": share(by["unanswerable"], "answered"),
        "drafted": len(drafted),
        "auroc": auroc(y, p) if separable else None,
        "brier": brier_score(y, p) if len(y) else None,
        "ece": expected_calibration_error(y, p, n_bins=15) if len(y) else None,
        "ece floor": ece_noise_floor(p, n_bins=15) if len(y) else None,
        "selective@50": share(half, "correct"),
        "ceiling@50": min(1.0, sum(r.correct for r in ranked) / len(half)) if half else None,
    }


COLUMNS = (
    ("answered present", "answered, with the answer", "{:.1%}"),
    ("right", "right of those", "{:.1%}"),
    ("answered absent", "answered, without it", "{:.1%}"),
    ("answered unanswerable", "answered, unanswerable", "{:.1%}"),
    ("drafted", "drafted answers", "{:d}"),
    ("auroc", "right vs wrong AUROC", "{:.3f}"),
    ("brier", "Brier", "{:.3f}"),
    ("ece", "ECE", "{:.3f}"),
    ("ece floor", "ECE if calibrated", "{:.3f}"),
    ("selective@50", "selective acc. @50%", "{:.3f}"),
    ("ceiling@50", "best possible @50%", "{:.3f}"),
)


def load_set(name: str, path: Path, split: str | None, data: Path) -> tuple[list[Paragraph], str]:
    """The paragraphs of one held-aside set, and the words that say which part of it."""
    if name == "xquad":  # SQuAD 2.0 dev's articles fitted the models or are its test set
        dev = json.loads((data / SQUAD_DEV).read_text())["data"]
        paragraphs = load_documents(name, path, leave_out={a["title"] for a in dev})
        return paragraphs, f"the {len({p.title for p in paragraphs})} articles SQuAD 2.0 dev lacks"
    paragraphs = load_documents(name, path, split)
    if name in ONE_KNOWLEDGE_BASE_PER_DOCUMENT:
        return paragraphs, (
            f"each of its {len(by_document(paragraphs))} reports a knowledge base of its own, "
            "its table as one sentence per row; span answers from one passage"
        )
    return paragraphs, f"{split} split" if split else ""


def section(data: Path, more: Path, sets: Sequence[SetSpec] = SETS) -> list[str]:
    """The docs subsection: one table per set."""
    lines = [
        "### Knowledge bases without the answer (bench/abstention.py)",
        "",
        "The same documents as two knowledge bases: all paragraphs, and all but a seeded "
        "half; questions drawn from the removed half are asked of both, so without the "
        "answer only on-topic passages remain (SQuAD's unanswerable questions of that half "
        "are asked of the full one). Every drafted answer's J1 `confidence_score` is scored "
        "against holding a gold answer. This release rates answers with "
        "`assay-reader` and `assay-correctness` (score = min(P(right), judge support)); "
        '"support only" answers without the reader and scores by the judge\'s support, as '
        "releases before the correctness model did. The reader and the correctness model "
        "never saw these documents; the cross-encoder, from which the reader starts and "
        "which the judge's support model reads, trained on pairs from those outside its "
        "held-out groups, so each set is shown again on the documents it never trained on "
        "(XQuAD and TAT-QA are held aside from every fitting whole, and SQuAD 2.0 dev's "
        "articles are left out of XQuAD). TAT-QA's questions ask about one annual report "
        '("the company", "the table"), so each report is its own pair of knowledge bases, '
        "the second less a seeded half of that report's passages.",
        "",
        llm_note(),
        "",
        TARGETS,
        "",
    ]
    for name, root, file, split, n, policies in sets:
        path = (data if root == "data" else more) / file
        if not path.is_file():
            lines += [f"{name}: not measured ({file} is missing).", ""]
            continue
        paragraphs, scope = load_set(name, path, split, data)
        rows = run_set(paragraphs, name, n, policies)
        lines += [
            f"**{name}**{f' ({scope})' if scope else ''}: up to {n} questions per condition.",
            "",
            *table(rows, policies),
        ]
        if name in MIX_NAMES:
            unseen, held_out, documents = never_trained(name, path, split)
            lines += [
                f"The same, only the questions on the {held_out} of {documents} documents the "
                "cross-encoder never trained on:",
                "",
                *table({r: [x for x in rows[r] if x.question in unseen] for r in rows}, policies),
            ]
    return lines


def llm_note() -> str:
    """What the LLM release was in this run, or how to measure it."""
    llm = load_llm_settings()
    if not llm.configured:
        return (
            f'"{LLM_RELEASE}": not measured in this run (set ASSAY_LLM_URL, or run '
            "`make bench-pipeline-llm`)."
        )
    fitted = load_correctness_model(SHIPPED_CORRECTNESS_LLM)
    asked = f"{ANSWERABILITY_PROMPT_VERSION}:{llm.model}"  # LLMAnswerability.name
    rater = fitted.ref if fitted.answerability == asked else None
    how = (
        f"`{rater}` rates its answers (P(right) also from the chat model's P(yes) that the "
        "most relevant cited passage states the answer)"
        if rater
        else f"`{fitted.ref}` was fitted with another chat model, so `assay-correctness` "
        "rates its answers"
    )
    return (
        f'"{LLM_RELEASE}" asks with the chat endpoint serving `{llm.model}` configured: '
        f"{how}. Under legal and safety_critical the LLM cascade reranks, and the judge's "
        "support is the score (no correctness model was fitted on the cascade's scores). "
        "The answers are still drafted offline."
    )


def table(rows: dict[str, list[AnswerRow]], policies: Sequence[str]) -> list[str]:
    """One row of :func:`figures` per policy and release."""
    lines = [
        f"| policy | release | {' | '.join(title for _, title, _ in COLUMNS)} |",
        f"|---|---|{'---|' * len(COLUMNS)}",
    ]
    for policy in policies:
        for release in rows:
            values = figures([r for r in rows[release] if r.policy == policy])
            if release == SUPPORT_AS_SCORE:
                values |= dict.fromkeys(ANSWERED)
            cells = [
                "-" if values[key] is None else fmt.format(values[key]) for key, _, fmt in COLUMNS
            ]
            lines.append(f"| {policy} | {release} | {' | '.join(cells)} |")
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).parents[2] / "shared/data")
    parser.add_argument("--more", type=Path, default=Path(__file__).parents[2] / "shared/data_more")
    names = [spec[0] for spec in SETS]
    parser.add_argument("--sets", nargs="+", choices=names, default=names)
    known = ("informational", "financial", "legal", "safety_critical")
    parser.add_argument("--policies", nargs="+", choices=known, help="default: each set's")
    parser.add_argument("--questions", type=int, help="per condition; default: each set's own")
    args = parser.parse_args()
    if args.questions is not None and args.questions < 1:
        parser.error(f"--questions must be a positive integer, got {args.questions}")
    sets = [
        (name, root, file, split, args.questions or n, tuple(args.policies or policies))
        for name, root, file, split, n, policies in SETS
        if name in args.sets
    ]
    print("\n".join(section(args.data, args.more, sets)))


if __name__ == "__main__":
    main()
