"""The answer judge on held-out data: does its confidence_score tell faithful from not?

``evaluate(query, answer, contexts)`` (the offline judge, exactly as ``assay evaluate``
and ``assay ask`` call it) on test splits that training never saw
(:mod:`assay.training.datasets`):

* HaluEval QA test rows: the question, the right or the hallucinated answer, and one
  context, the row's knowledge; all test rows, and the length-matched subset (for each
  answer word count, as many of each class, seeded as ``halueval_pairs`` does), because
  answer length alone separates HaluEval's classes;
* SciFact test claims: the claim is both query and answer, the context its evidence;
  faithful = label ``supported`` (contradicted and unsupported are not).

Items whose context or claim assay's cross-encoder trained on are dropped (:func:`unseen`),
so that a judge on ``assay-support-stack`` or ``assay-support-ce`` is measured on unseen
data too.

Beside the judge, on the same items: the raw support model's P(supported) (the pair
training used: question + answer, or the claim, against the context), MiniLM cosine of
answer and context, BM25 of the answer over the contexts, and answer length (fewer words
= faithful). Also: mean score and share of each recommended_action per class, the
judge's throughput, and a reliability summary (mean score vs share faithful in 5 bins).

    .venv/bin/python bench/judge.py [--data PATH] [--more PATH] [--support MODEL] [--limit N]
        [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from cold import forget_models_caches
from docs_section import write_section

from assay.actions import ACTIONS
from assay.judge.evaluate import evaluate, get_judge
from assay.metrics import auroc
from assay.models.embedder import get_embedder
from assay.models.support import DEFAULT_SUPPORT_MODEL, get_support_model
from assay.training.bm25 import BM25
from assay.training.datasets import halueval_pairs, halueval_rows, scifact_pairs
from assay.training.mix import training_mix
from assay.training.pairsets import normalized

DATA = Path(__file__).resolve().parents[2] / "shared/data"
SECTION = "## Judge (bench/judge.py)"
SEED = 13
BINS = 5
CONTEXT_ID = "context-1"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def cosine_scores(first: Sequence[str], second: Sequence[str]) -> np.ndarray:
    """Cosine of the MiniLM embeddings of each first text and its second (a baseline)."""
    texts = sorted(set(first) | set(second))
    vectors = dict(zip(texts, get_embedder("minilm").embed(texts), strict=True))
    return np.asarray([float(vectors[a] @ vectors[b]) for a, b in zip(first, second, strict=True)])


def bm25_scores(first: Sequence[str], second: Sequence[str]) -> np.ndarray:
    """BM25 of each first text against its second, over the collection of second texts."""
    corpus = sorted(set(second))
    index, bm25 = {t: i for i, t in enumerate(corpus)}, BM25(corpus)
    return np.asarray([bm25.scores(a)[index[b]] for a, b in zip(first, second, strict=True)])


@dataclass(frozen=True, slots=True)
class Item:
    """One answer to judge: ``label`` 1 when it is faithful to its context."""

    query: str
    answer: str
    context: str
    label: int
    claim: str  #: what the support model reads against the context (as in training)
    matched: bool = False  #: in HaluEval's length-matched subset
    held_out: bool = False  #: an odd row or pair: never looked at while tuning the judge

    @property
    def words(self) -> int:
        return len(self.answer.split())


def halueval_items(path: Path, limit: int | None) -> list[Item]:
    """Both answers of every test row (or of ``limit // 2`` seeded rows), in file order."""
    rows = halueval_rows(path, "test", seed=SEED)
    groups = [p.group for p in halueval_pairs(path, "test", seed=SEED)[::2]]
    matched = {
        (p.group, p.label) for p in halueval_pairs(path, "test", seed=SEED, length_matched=True)
    }
    picked = range(len(rows))
    if limit is not None and limit // 2 < len(rows):
        picked = sorted(random.Random(SEED).sample(range(len(rows)), max(1, limit // 2)))
    items = []
    for k in picked:
        row, group = rows[k], groups[k]
        for key, label, name in (
            ("right_answer", 1, "supported"),
            ("hallucinated_answer", 0, "unsupported"),
        ):
            answer = row[key]
            items.append(
                Item(
                    query=row["question"],
                    answer=answer,
                    context=row["knowledge"],
                    label=label,
                    claim=f"{row['question']} {answer}",
                    matched=(group, name) in matched,
                    held_out=k % 2 == 1,
                )
            )
    return items


def scifact_items(data: Path, limit: int | None) -> list[Item]:
    """SciFact test pairs (or ``limit`` seeded ones): the claim answers itself."""
    pairs = scifact_pairs(
        data / "scifact_train/claims_train.jsonl",
        data / "scifact_train/corpus.jsonl",
        "test",
        seed=SEED,
    )
    picked = range(len(pairs))
    if limit is not None and limit < len(pairs):
        picked = sorted(random.Random(SEED).sample(range(len(pairs)), limit))
    return [
        Item(
            p.claim, p.claim, p.evidence, int(p.label == "supported"), p.claim, held_out=k % 2 == 1
        )
        for k in picked
        for p in [pairs[k]]
    ]


@dataclass(frozen=True, slots=True)
class Scores:
    """Every score of one set of items, aligned with the items."""

    judge: np.ndarray
    actions: list[str]
    support: np.ndarray
    cosine: np.ndarray
    bm25: np.ndarray
    seconds: float  #: judge wall clock over the set


def unseen(items: Sequence[Item], data: Path, more: Path) -> list[Item]:
    """``items`` whose context and claim the cross-encoder never trained on: its mix
    splits HaluEval and SciFact by another hash than these test splits, so without this
    most HaluEval test rows would be its training data."""
    seen = {normalized(t) for p in training_mix(data, more) for t in (p.first, p.second)}
    return [i for i in items if not {normalized(i.context), normalized(i.claim)} & seen]


def score_items(items: Sequence[Item], support: str) -> Scores:
    """The judge (timed, cold cache) and the baselines on ``items``."""
    judge = get_judge(support=support)
    evaluate(items[0].query, items[0].answer, [{"id": CONTEXT_ID, "text": items[0].context}])
    forget_models_caches()  # models loaded; every text is encoded again inside the clock
    scores, actions = [], []
    start = time.perf_counter()
    for i, item in enumerate(items, start=1):
        contexts = [{"id": CONTEXT_ID, "text": item.context}]
        assessment = evaluate(item.query, item.answer, contexts, judge=judge).assessment
        scores.append(assessment.confidence_score)
        actions.append(assessment.recommended_action)
        if i % 250 == 0:
            log(f"  judged {i}/{len(items)} in {time.perf_counter() - start:.0f} s")
    seconds = time.perf_counter() - start
    support_scores = get_support_model(support).score([(i.claim, i.context) for i in items])
    answers, contexts = [item.answer for item in items], [item.context for item in items]
    return Scores(
        judge=np.asarray(scores),
        actions=actions,
        support=np.asarray([r.score for r in support_scores]),
        cosine=cosine_scores(answers, contexts),
        bm25=bm25_scores(answers, contexts),
        seconds=seconds,
    )


def subset(scores: Scores, mask: np.ndarray) -> Scores:
    keep = np.flatnonzero(mask)
    return Scores(
        judge=scores.judge[keep],
        actions=[scores.actions[i] for i in keep],
        support=scores.support[keep],
        cosine=scores.cosine[keep],
        bm25=scores.bm25[keep],
        seconds=scores.seconds,
    )


COLUMNS = ("judge score", "support P(supported)", "cosine", "BM25", "length only")


def auroc_row(label: str, y: np.ndarray, scores: Scores, words: np.ndarray) -> str:
    areas = [
        auroc(y, s) for s in (scores.judge, scores.support, scores.cosine, scores.bm25, -words)
    ]
    return f"| {label} ({len(y):,}) | {' | '.join(f'{a:.3f}' for a in areas)} |"


def action_rows(label: str, y: np.ndarray, scores: Scores) -> list[str]:
    rows = []
    for cls, name in ((1, "faithful"), (0, "not faithful")):
        keep = np.flatnonzero(y == cls)
        acts = [scores.actions[i] for i in keep]
        shares = " | ".join(f"{acts.count(a) / len(acts):.1%}" for a in ACTIONS)
        mean = float(scores.judge[keep].mean())
        rows.append(f"| {label} | {name} | {len(keep):,} | {mean:.3f} | {shares} |")
    return rows


def reliability_rows(label: str, y: np.ndarray, scores: Scores) -> list[str]:
    """Per score bin of width 1/BINS (the last one holds 1.0): items, mean score, faithful."""
    which = np.minimum((scores.judge * BINS).astype(int), BINS - 1)
    cells = []
    for b in range(BINS):
        inside = which == b
        if not inside.any():
            cells.append("-")
            continue
        mean, share = float(scores.judge[inside].mean()), float(y[inside].mean())
        cells.append(f"{inside.sum():,}: {mean:.2f} / {share:.2f}")
    return [f"| {label} | {' | '.join(cells)} |"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--more", type=Path, default=DATA.parent / "data_more")
    parser.add_argument(
        "--support", default=DEFAULT_SUPPORT_MODEL, help="the judge's support model"
    )
    parser.add_argument("--limit", type=int, help="seeded subsample of N items per data set")
    parser.add_argument("--write", action="store_true", help="replace the docs section")
    args = parser.parse_args()
    if args.limit is not None and args.limit < 4:
        parser.error("--limit must be at least 4")
    all_halu = halueval_items(args.data / "halueval/qa_data.json", args.limit)
    all_sci = scifact_items(args.data, args.limit)
    halu = unseen(all_halu, args.data, args.more)
    sci = unseen(all_sci, args.data, args.more)
    log(f"judge: {len(halu)} HaluEval items, {len(sci)} SciFact items")
    halu_scores = score_items(halu, args.support)
    log(f"  HaluEval: {len(halu) / halu_scores.seconds:.1f} items/s")
    sci_scores = score_items(sci, args.support)
    log(f"  SciFact: {len(sci) / sci_scores.seconds:.1f} items/s")

    y_halu = np.asarray([i.label for i in halu])
    matched = np.asarray([i.matched for i in halu])
    w_halu = np.asarray([i.words for i in halu])
    y_sci = np.asarray([i.label for i in sci])
    w_sci = np.asarray([i.words for i in sci])
    odd_halu = np.asarray([i.held_out for i in halu])
    odd_sci = np.asarray([i.held_out for i in sci])
    sets = [
        ("HaluEval test", y_halu, halu_scores, w_halu),
        (
            "HaluEval test, length-matched",
            y_halu[matched],
            subset(halu_scores, matched),
            w_halu[matched],
        ),
        ("SciFact test", y_sci, sci_scores, w_sci),
        (
            "HaluEval test, odd rows",
            y_halu[odd_halu],
            subset(halu_scores, odd_halu),
            w_halu[odd_halu],
        ),
        ("SciFact test, odd pairs", y_sci[odd_sci], subset(sci_scores, odd_sci), w_sci[odd_sci]),
    ]
    command = "python bench/judge.py" + "".join(f" {a}" for a in sys.argv[1:] if a != "--write")
    total = len(halu) + len(sci)
    seconds = halu_scores.seconds + sci_scores.seconds
    lines = [
        SECTION,
        "",
        f"`{command}`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} CPU cores, "
        f"Python {platform.python_version()}. Judge: `{get_judge(support=args.support).name}`, "
        "one context per item; faithful = HaluEval's right answer, SciFact's supported claim. "
        f"Of the test items, {len(halu):,} of {len(all_halu):,} (HaluEval) and {len(sci):,} of "
        f"{len(all_sci):,} (SciFact) remain once those whose text assay's cross-encoder "
        "trained on are dropped (its mix splits both sets by another hash).",
        "",
        "AUROC, faithful vs not. The judge's `confidence_score` beside the support model's "
        "raw P(supported) (question + answer against the knowledge for HaluEval, as in "
        "training; claim against evidence for SciFact), MiniLM cosine of answer and context, "
        "BM25 of the answer over the set's contexts, and the answer's length in words "
        "(fewer = faithful: HaluEval's shortcut, which the length-matched subset removes; "
        "on SciFact each claim appears in both classes). Two choices of the judge (the "
        "query read before each claim; 0.2 of raw P(supported) in an answer's place within "
        "its band) were made looking at the even rows of these test sets; the odd rows, "
        "never looked at, are shown on their own.",
        "",
        f"| test set (items) | {' | '.join(COLUMNS)} |",
        f"|---|{'---|' * len(COLUMNS)}",
        *(auroc_row(label, y, s, w) for label, y, s, w in sets),
        "",
        f"Throughput: {total / seconds:.1f} items/s over all {total:,} items "
        f"(HaluEval {len(halu) / halu_scores.seconds:.1f}, SciFact "
        f"{len(sci) / sci_scores.seconds:.1f}; cold cache, models loaded, "
        f"{os.cpu_count()} cores).",
        "",
        "Mean score and share of each `recommended_action` per class (default thresholds: "
        "publish >= 0.8, caveat >= 0.5, human review >= 0.3):",
        "",
        f"| test set | class | items | mean score | {' | '.join(ACTIONS)} |",
        f"|---|---|---|---|{'---|' * len(ACTIONS)}",
        *(row for label, y, s, _ in sets[:3] for row in action_rows(label, y, s)),
        "",
        "Reliability: per score bin, `items: mean score / share faithful`:",
        "",
        "| test set | "
        + " | ".join(f"[{b / BINS:.1f}, {(b + 1) / BINS:.1f}{']' if b == BINS - 1 else ')'}"
                     for b in range(BINS))
        + " |",
        f"|---|{'---|' * BINS}",
        *(row for label, y, s, _ in sets[:3] for row in reliability_rows(label, y, s)),
        "",
    ]  # fmt: skip
    section = "\n".join(lines)
    print(section)
    if args.write:
        write_section(SECTION, section)
        log("wrote docs/benchmarks.md")


if __name__ == "__main__":
    main()
