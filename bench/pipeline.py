"""Answers and abstention end to end: ``Assay.ask`` on SQuAD 2.0 test articles, beside BERT.

A fresh knowledge base is built from the paragraphs of the 10 SQuAD 2.0 dev articles
that no model was trained or tuned on (the ``test`` split of
:func:`assay.training.datasets.squad_splits`): one source of kind ``official``, reviewed
a month before the fixed ``as_of``, every paragraph one JSON Lines record with its
article title and a publication date. A seeded sample of the articles' questions (half
answerable, half unanswerable) is then asked under each built-in policy, offline
(extractive answerer, offline judge). Per policy:

* coverage and the mix of statuses;
* on answered answerable questions, SQuAD's exact match and F1 (official normalisation:
  lowercase, no punctuation, no articles, single spaces; best over the gold answers) and
  "contains gold" (a normalised gold answer is a substring of the normalised answer),
  scored on the drafted answer with its citations stripped (``response.draft.text``:
  without the hedge preamble and the judge's notes that ``response.answer`` adds);
* selective accuracy (share of answered questions that are answerable and correct) and
  abstention precision and recall (abstaining = any status but ``answered``);
* ``ask`` latency p50/p95 (each policy's pass starts with a cold encoding cache).

BERT-large's official dev predictions ("" = no answer) on the same questions give a
reference; note that BERT reads each question's gold paragraph while assay must find it
among all paragraphs. With ``ASSAY_LLM_URL`` set, ``--llm-questions`` of the sample are
asked again with the LLM answerer (informational policy). Then ``bench/abstention.py``:
knowledge bases without the answer, on SQuAD and four sets of ``--more``, beside the
answers rated by the judge's support alone.

    .venv/bin/python bench/pipeline.py [--data PATH] [--more PATH] [--questions N]
                                       [--llm-questions M] [--no-abstention] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from abstention import section as abstention_section
from cold import forget_models_caches
from docs_section import write_section

from assay import Assay
from assay.answer.citations import strip_citations
from assay.calibration.scored import normalize_answer as normalize
from assay.flow.respond import Status
from assay.settings import LLMSettings, load_settings
from assay.training.answer_rows import AS_OF, PUBLISHED, REVIEWED, build_knowledge_base
from assay.training.datasets import squad_splits

DATA = Path(__file__).resolve().parents[2] / "shared/data"
MORE = Path(__file__).resolve().parents[2] / "shared/data_more"
SECTION = "## Answers and abstention (bench/pipeline.py)"
SEED = 13
POLICIES = ("informational", "financial", "legal", "safety_critical")
SOURCE = "squad-test"
WARM_UP = 5  # questions asked (and not measured) to load every model first
STATUSES = tuple(s.value for s in Status)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- SQuAD's official answer normalisation and scores -------------------------------------


def exact(gold: str, predicted: str) -> float:
    return float(normalize(gold) == normalize(predicted))


def f1(gold: str, predicted: str) -> float:
    """SQuAD's token F1 of one gold answer and a prediction."""
    gold_tokens, pred_tokens = normalize(gold).split(), normalize(predicted).split()
    if not gold_tokens or not pred_tokens:
        return float(gold_tokens == pred_tokens)
    same = sum((Counter(gold_tokens) & Counter(pred_tokens)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def contains(golds: Sequence[str], predicted: str) -> bool:
    """Whether a (non-empty) normalised gold answer is a substring of the prediction."""
    text = normalize(predicted)
    return any(g and g in text for g in map(normalize, golds))


# -- data -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    golds: tuple[str, ...]  #: empty for an unanswerable question

    @property
    def answerable(self) -> bool:
        return bool(self.golds)


def test_articles(path: Path) -> list[dict[str, Any]]:
    titles = set(squad_splits(path)["test"])
    return [a for a in json.loads(path.read_text())["data"] if a["title"] in titles]


def records(articles: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """One JSON Lines record per paragraph: id, title (underscores as spaces), date, text."""
    return [
        {
            "id": f"{a}-{p}",
            "title": article["title"].replace("_", " "),
            "published": PUBLISHED,
            "text": paragraph["context"],
        }
        for a, article in enumerate(articles)
        for p, paragraph in enumerate(article["paragraphs"])
    ]


def sample_questions(articles: Sequence[dict[str, Any]], n: int) -> tuple[list[Question], ...]:
    """(sample, warm-up): ``n`` seeded questions, half answerable where there are enough,
    in a seeded order; and ``WARM_UP`` other questions of the same articles."""
    every = [
        Question(qa["id"], qa["question"], tuple(a["text"] for a in qa["answers"]))
        for article in articles
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]
    rng = random.Random(SEED)
    answerable = [q for q in every if q.answerable]
    unanswerable = [q for q in every if not q.answerable]
    n_un = min(len(unanswerable), n // 2)
    n_an = min(len(answerable), n - n_un)
    n_un = min(len(unanswerable), n - n_an)
    picked = rng.sample(answerable, n_an) + rng.sample(unanswerable, n_un)
    rng.shuffle(picked)
    chosen = {q.id for q in picked}
    warm = rng.sample([q for q in every if q.id not in chosen], WARM_UP)
    return picked, warm


def build(workdir: Path, rows: list[dict[str, str]], **settings: Any) -> Assay:
    """A fresh knowledge base ``squad-test.db`` of ``rows`` from one official source."""
    start = time.perf_counter()
    engine = build_knowledge_base(
        workdir, rows, name="squad-test", source=SOURCE, owner="assay benchmark",
        calibrate=True, **settings,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    chunks = engine.store.stats().chunks
    log(f"ingested {len(rows)} paragraphs -> {chunks} chunks in {seconds:.0f} s")
    return engine


# -- running and scoring ------------------------------------------------------------------


@dataclass
class Outcome:
    """What one system did with each question of the sample."""

    status: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)  #: the answer to score; "" if abstained
    #: what EM and F1 score: the short answer stated first where there is one, else text
    short: list[str] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)


def run_assay(engine: Assay, questions: Sequence[Question], policy: str) -> Outcome:
    """Ask every question under ``policy``; a cold encoding cache at the start."""
    forget_models_caches(engine.reader)
    out = Outcome()
    start = time.perf_counter()
    for i, q in enumerate(questions, start=1):
        t = time.perf_counter()
        response = engine.ask(q.text, policy=policy, as_of=AS_OF)
        out.ms.append((time.perf_counter() - t) * 1000)
        out.status.append(response.status.value)
        answered = response.status is Status.ANSWERED and response.draft is not None
        out.text.append(strip_citations(response.draft.text) if answered else "")
        short = response.draft.short if answered and response.draft else None
        out.short.append(short or out.text[-1])
        if i % 100 == 0:
            log(f"  {policy}: {i}/{len(questions)} in {time.perf_counter() - start:.0f} s")
    return out


def run_bert(path: Path, questions: Sequence[Question]) -> Outcome:
    predictions = json.loads(path.read_text())
    out = Outcome()
    for q in questions:
        text = predictions[q.id]
        out.status.append("answered" if text else "abstained")
        out.text.append(text)
        out.short.append(text)
    return out


def metrics(questions: Sequence[Question], out: Outcome) -> dict[str, float | None]:
    """Coverage, EM/F1/contains on answered answerable questions, selective accuracy by
    both rules, abstention precision and recall, latency."""
    answered = np.asarray([s == "answered" for s in out.status])
    answerable = np.asarray([q.answerable for q in questions])
    em = np.asarray(
        [
            max((exact(g, t) for g in q.golds), default=0.0)
            for q, t in zip(questions, out.short, strict=True)
        ]
    )
    f = np.asarray(
        [
            max((f1(g, t) for g in q.golds), default=0.0)
            for q, t in zip(questions, out.short, strict=True)
        ]
    )
    has = np.asarray([contains(q.golds, t) for q, t in zip(questions, out.text, strict=True)])
    good = answered & answerable  # the answered answerable questions
    abstained = ~answered

    def share(num: np.ndarray, den: np.ndarray) -> float | None:
        return float(num.sum() / den.sum()) if den.sum() else None

    return {
        "n": len(questions),
        "coverage": float(answered.mean()),
        "answered answerable": float(good.sum()),
        "em": float(em[good].mean()) if good.any() else None,
        "f1": float(f[good].mean()) if good.any() else None,
        "contains": float(has[good].mean()) if good.any() else None,
        "selective contains": share(good & has, answered),
        "selective em/f1": share(good & ((em == 1) | (f >= 0.5)), answered),
        "abstention precision": share(abstained & ~answerable, abstained),
        "abstention recall": share(abstained & ~answerable, ~answerable),
        "p50": float(np.percentile(out.ms, 50)) if out.ms else None,
        "p95": float(np.percentile(out.ms, 95)) if out.ms else None,
    }  # fmt: skip


METRIC_COLUMNS = (
    ("coverage", "answered", "{:.1%}"),
    ("answered answerable", "answered answerable", "{:.0f}"),
    ("em", "EM", "{:.3f}"),
    ("f1", "F1", "{:.3f}"),
    ("contains", "contains gold", "{:.3f}"),
    ("selective contains", "selective acc. (contains gold)", "{:.3f}"),
    ("selective em/f1", "selective acc. (EM or F1 >= 0.5)", "{:.3f}"),
    ("abstention precision", "abstention precision", "{:.3f}"),
    ("abstention recall", "abstention recall", "{:.3f}"),
    ("p50", "ask p50 ms", "{:.0f}"),
    ("p95", "ask p95 ms", "{:.0f}"),
)


def metric_row(name: str, figures: dict[str, float | None]) -> str:
    cells = [
        "-" if figures[key] is None else fmt.format(figures[key]) for key, _, fmt in METRIC_COLUMNS
    ]
    return f"| {name} | {' | '.join(cells)} |"


def metric_table(rows: list[str]) -> list[str]:
    return [
        f"| system | {' | '.join(title for _, title, _ in METRIC_COLUMNS)} |",
        f"|---|{'---|' * len(METRIC_COLUMNS)}",
        *rows,
    ]


def status_row(name: str, out: Outcome) -> str:
    counts = Counter(out.status)
    return f"| {name} | {' | '.join(f'{counts[s] / len(out.status):.1%}' for s in STATUSES)} |"


def llm_section(
    workdir: Path, questions: Sequence[Question], offline: Outcome, lines: list[str]
) -> None:
    """The LLM answerer on ``questions`` (informational), beside the offline answers."""
    lines += ["### With the LLM answerer", ""]
    if not os.environ.get("ASSAY_LLM_URL"):
        lines += ["Not measured in this run (set ASSAY_LLM_URL).", ""]
        return
    try:
        engine = Assay(
            workdir / "squad-test.db",
            settings=load_settings(db=workdir / "squad-test.db", answerer="llm"),
        )
        engine.answerer  # noqa: B018 -- import the LLM answerer and reach its client now
        log(f"LLM answerer: {engine.answerer.name}, {len(questions)} questions")
        out = run_assay(engine, questions, "informational")
        engine.close()
    except Exception as exc:  # reported in the docs instead of crashing the run
        log(f"LLM answerer failed: {exc!r}")
        lines += [f"Skipped: the LLM answerer failed ({type(exc).__name__}: {exc}).", ""]
        return
    answerable = sum(q.answerable for q in questions)
    lines += [
        f"{len(questions)} questions of the sample ({answerable} answerable), policy "
        f"informational, answerer `{engine.settings.answerer}` "
        f"(`{os.environ.get('ASSAY_LLM_MODEL', 'the endpoint default')}`), judge offline; "
        "beside them the offline run's answers to the same questions and their latency in "
        "that pass (they are among its first questions, so asked with a colder cache).",
        "",
        *metric_table(
            [
                metric_row("assay, LLM answerer", metrics(questions, out)),
                metric_row("assay, extractive", metrics(questions, offline)),
            ]
        ),
        "",
        f"| answerer | {' | '.join(STATUSES)} |",
        f"|---|{'---|' * len(STATUSES)}",
        status_row("LLM", out),
        status_row("extractive", offline),
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--more", type=Path, default=MORE, help="the further datasets")
    parser.add_argument(
        "--no-abstention", action="store_true", help="skip the knowledge bases without the answer"
    )
    parser.add_argument("--questions", type=int, default=400, help="questions asked offline")
    parser.add_argument("--llm-questions", type=int, default=20, help="asked with the LLM")
    parser.add_argument("--write", action="store_true", help="replace the docs section")
    args = parser.parse_args()
    squad = args.data / "squad_v2_dev/dev-v2.0.reconstructed.json"
    articles = test_articles(squad)
    questions, warm = sample_questions(articles, args.questions)
    n_answerable = sum(q.answerable for q in questions)
    rows = records(articles)
    command = "python bench/pipeline.py" + "".join(f" {a}" for a in sys.argv[1:] if a != "--write")
    lines = [
        SECTION,
        "",
        f"`{command}`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} CPU cores, "
        f"Python {platform.python_version()}.",
        "",
        f"Knowledge base: the {len(articles)} SQuAD 2.0 dev test articles "
        f"({', '.join(a['title'] for a in articles)}), {len(rows):,} paragraphs, one "
        f"`official` source reviewed {REVIEWED}, paragraphs published {PUBLISHED}, "
        f"`as_of` {AS_OF}. Questions: a seeded sample of {len(questions)} of the articles' "
        f"questions, {n_answerable} answerable and {len(questions) - n_answerable} not. "
        "Offline: extractive answerer, offline judge, `ask` with its defaults (top_k=8).",
        "",
        "Answers are scored on `response.draft.text` with citations stripped (the drafted "
        "sentences, without the hedge preamble and judge notes `response.answer` adds); "
        "EM and F1 on the short answer stated first where there is one (`draft.short`: the "
        "reader's span of the first sentence, or the date, quantity or name the question "
        "asks for), else on that text; "
        "EM, F1 and contains gold on answered answerable questions, SQuAD's normalisation, "
        "best over the gold answers. Selective accuracy: share of answered questions that "
        "are answerable and correct, by two rules (a gold answer contained in the answer; "
        "or EM = 1 or F1 >= 0.5, the fair rule for BERT's short spans). Abstaining is any "
        "status but answered; precision: share of abstentions on unanswerable questions, "
        "recall: share of unanswerable questions abstained on. BERT-large (official dev "
        'predictions, "" = no answer) reads the gold paragraph; assay must retrieve it.',
        "",
    ]
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
        # offline, endpoint or not: the LLM's part is measured in its own rows below
        engine = build(
            Path(tmp), rows, answerer="extractive", judge="assay-judge", llm=LLMSettings()
        )
        for q in warm:
            engine.ask(q.text, policy="informational", as_of=AS_OF)
        outcomes = {}
        for policy in POLICIES:
            start = time.perf_counter()
            outcomes[policy] = run_assay(engine, questions, policy)
            log(f"{policy}: {time.perf_counter() - start:.0f} s")
        engine.close()
        bert = run_bert(args.data / "squad_v2_dev/model_predictions/BERT.json", questions)
        lines += [
            *metric_table(
                [metric_row(f"assay, {p}", metrics(questions, outcomes[p])) for p in POLICIES]
                + [metric_row("BERT-large (gold paragraph)", metrics(questions, bert))]
            ),
            "",
            "Status mix:",
            "",
            f"| policy | {' | '.join(STATUSES)} |",
            f"|---|{'---|' * len(STATUSES)}",
            *(status_row(p, outcomes[p]) for p in POLICIES),
            "",
        ]
        llm = [q for q in questions if q.answerable][: args.llm_questions // 2]
        llm += [q for q in questions if not q.answerable][: args.llm_questions - len(llm)]
        llm_ids = {q.id for q in llm}
        llm = [q for q in questions if q.id in llm_ids]  # in the sample's order
        keep = [i for i, q in enumerate(questions) if q.id in llm_ids]
        info = outcomes["informational"]
        offline = Outcome(
            [info.status[i] for i in keep],
            [info.text[i] for i in keep],
            [info.short[i] for i in keep],
            [info.ms[i] for i in keep],
        )
        if args.llm_questions > 0:
            llm_section(Path(tmp), llm, offline, lines)
    if not args.no_abstention:
        lines += abstention_section(args.data, args.more)
    section = "\n".join(lines)
    print(section)
    if args.write:
        write_section(SECTION, section)
        log("wrote docs/benchmarks.md")


if __name__ == "__main__":
    main()
