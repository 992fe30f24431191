"""Relevance and support models on held-out data, beside cosine, BM25 and length baselines.

Everything goes through the public interfaces (``get_relevance_model(...).score``,
``get_support_model(...).score``), exactly as ``assay ask`` uses them, on test splits
that training never saw (:mod:`assay.training.datasets`):

* relevance, SQuAD 2.0 test articles: AUROC of task a (answerable vs unanswerable
  question on its own paragraph) and task b (own paragraph vs BM25-retrieved others);
* support: AUROC and balanced accuracy (the model's own label "supported" vs the rest)
  on HaluEval test, all of it and length-matched, and on SciFact test claims;
* speed: pairs/s on a cold cache (every text encoded) for each shipped model;
* with ``ASSAY_LLM_URL`` set: the LLM yes/no scorer and the cascade on a seeded sample
  (``--llm-sample`` pairs of each task), beside the fast head on the same pairs.

    .venv/bin/python bench/models.py [--data PATH] [--llm-sample N] [--write]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from docs_section import write_section

from assay.metrics import auroc, balanced_accuracy
from assay.models import pairs as pair_module
from assay.models.embedder import get_embedder
from assay.models.llm import client_from_environment
from assay.models.relevance import (
    CascadeRelevanceModel,
    LLMRelevanceModel,
    RelevanceModel,
    get_relevance_model,
)
from assay.models.support import get_support_model
from assay.training.bm25 import BM25
from assay.training.datasets import (
    RelevancePair,
    SupportPair,
    halueval_pairs,
    relevance_pairs,
    scifact_pairs,
)
from assay.training.windows import window_pairs

DATA = Path(__file__).resolve().parents[2] / "shared/data"
SECTION = "## Relevance and support models (bench/models.py)"
TARGETS = {"task_a": 0.75, "task_a_cascade": 0.80, "task_b": 0.97, "scifact_bacc": 0.78, "pps": 50}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def cold() -> None:
    """Forget every cached text encoding, so speed figures include encoding."""
    for cache in pair_module._shared_caches.values():
        cache.clear()


def relevance_scores(model: RelevanceModel, pairs: Sequence[RelevancePair]) -> np.ndarray:
    """Scores of ``pairs`` through ``model.score``, one call per query (as ask does)."""
    by_query: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        by_query.setdefault(p.query, []).append(i)
    out = np.zeros(len(pairs))
    for query, rows in by_query.items():
        out[rows] = model.score(query, [pairs[i].passage for i in rows])
    return out


def random_negatives(pairs: Sequence[RelevancePair], seed: int = 7) -> list[RelevancePair]:
    """Task ``"r"``: each answerable question against a random other paragraph of its article
    (the negatives the issue's 0.97 target was set with)."""
    rng = random.Random(seed)
    by_article: dict[str, list[str]] = {}
    for p in pairs:
        if p.task == "a" and p.passage not in by_article.setdefault(p.group, []):
            by_article[p.group].append(p.passage)
    out = []
    for p in pairs:
        others = [q for q in by_article.get(p.group, []) if q != p.passage]
        if p.task == "a" and p.label == 1 and others:
            out.append(RelevancePair(p.query, rng.choice(others), 0, "r", p.group))
    return out


TASKS = {
    "a": "answerable vs not, own paragraph",
    "b": "own vs BM25-retrieved other paragraph",
    "r": "own vs random other paragraph of the article",
    "w": "1-3 sentence window holds the answer or not",
}


def tasks(pairs: Sequence[RelevancePair], scores: np.ndarray) -> dict[str, float]:
    """AUROC of each task; b and r compare answerable own paragraphs with negatives."""
    y = np.asarray([p.label for p in pairs])
    task = np.asarray([p.task for p in pairs])
    own = (task == "a") & (y == 1)
    masks = {"a": task == "a", "b": (task == "b") | own, "r": (task == "r") | own, "w": task == "w"}
    return {t: auroc(y[m], scores[m]) for t, m in masks.items()}


def cosine_scores(first: Sequence[str], second: Sequence[str]) -> np.ndarray:
    embedder = get_embedder("minilm")
    texts = sorted(set(first) | set(second))
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    return np.asarray([float(vectors[a] @ vectors[b]) for a, b in zip(first, second, strict=True)])


def bm25_scores(first: Sequence[str], second: Sequence[str]) -> np.ndarray:
    """BM25 of each first text against its second, over the collection of second texts."""
    corpus = sorted(set(second))
    index = {t: i for i, t in enumerate(corpus)}
    bm25 = BM25(corpus)
    return np.asarray([bm25.scores(a)[index[b]] for a, b in zip(first, second, strict=True)])


def timed(fn: Callable[[], np.ndarray], n: int) -> tuple[np.ndarray, float]:
    """(result, pairs per second) of ``fn`` on a cold cache."""
    cold()
    start = time.perf_counter()
    result = fn()
    return result, n / (time.perf_counter() - start)


def relevance_section(data: Path, lines: list[str]) -> dict[str, float]:
    squad = data / "squad_v2_dev/dev-v2.0.reconstructed.json"
    pairs = relevance_pairs(squad, "test")
    pairs += random_negatives(pairs) + window_pairs(squad, "test")
    log(f"relevance: {len(pairs)} test pairs")
    rows, figures = [], {}
    for name in ("assay-relevance", "assay-relevance-lexical"):
        model = get_relevance_model(name)
        scores, speed = timed(lambda m=model: relevance_scores(m, pairs), len(pairs))
        areas = tasks(pairs, scores)
        figures |= {f"{name}:{t}": v for t, v in areas.items()} | {f"{name}:pps": speed}
        cells = " | ".join(f"{areas[t]:.3f}" for t in TASKS)
        rows.append(f"| {model.name} | {cells} | {speed:.0f} |")
        log(rows[-1])
    first, second = [p.query for p in pairs], [p.passage for p in pairs]
    for name, baseline in (("MiniLM cosine", cosine_scores), ("BM25", bm25_scores)):
        areas = tasks(pairs, baseline(first, second))
        rows.append(f"| {name} (baseline) | {' | '.join(f'{areas[t]:.3f}' for t in TASKS)} | |")
    counts = {t: sum(p.task == t for p in pairs) for t in TASKS}
    lines += [
        "SQuAD 2.0 dev, the 10 test articles; AUROC per task ("
        + "; ".join(f"{t}: {what}, {counts[t]:,} pairs" for t, what in TASKS.items())
        + "). Speed: pairs/s on 2 cores, cold cache (every text encoded).",
        "",
        f"| model | {' | '.join(f'task {t}' for t in TASKS)} | pairs/s |",
        f"|---|{'---|' * len(TASKS)}---|",
        *rows,
        "",
    ]
    return figures


def support_metrics(pairs: Sequence[SupportPair], name: str) -> tuple[float, float, float]:
    """(AUROC, balanced accuracy of the model's label, pairs/s)."""
    model = get_support_model(name)
    results, speed = timed(
        lambda: np.asarray(model.score([(p.claim, p.evidence) for p in pairs]), dtype=object),
        len(pairs),
    )
    y = np.asarray([p.label == "supported" for p in pairs], dtype=np.int64)
    scores = np.asarray([r.score for r in results])
    predicted = np.asarray([r.label == "supported" for r in results], dtype=np.int64)
    return auroc(y, scores), balanced_accuracy(y, predicted), speed


def support_section(data: Path, lines: list[str]) -> dict[str, float]:
    halu = data / "halueval/qa_data.json"
    sets = {
        "HaluEval test": halueval_pairs(halu, "test"),
        "HaluEval test, length-matched": halueval_pairs(halu, "test", length_matched=True),
        "SciFact test claims": scifact_pairs(
            data / "scifact_train/claims_train.jsonl", data / "scifact_train/corpus.jsonl", "test"
        ),
    }
    rows, figures = [], {}
    for label, pairs in sets.items():
        y = np.asarray([p.label == "supported" for p in pairs], dtype=np.int64)
        cells = []
        for name in ("assay-support", "assay-support-lexical"):
            area, bacc, speed = support_metrics(pairs, name)
            figures[f"{label}:{name}:auroc"], figures[f"{label}:{name}:bacc"] = area, bacc
            figures[f"{name}:pps"] = speed
            cells.append(f"{area:.3f} / {bacc:.3f}")
        claims, evidence = [p.claim for p in pairs], [p.evidence for p in pairs]
        baselines = [
            f"{auroc(y, cosine_scores(claims, evidence)):.3f}",
            f"{auroc(y, bm25_scores(claims, evidence)):.3f}",
            f"{auroc(y, -np.asarray([p.answer_words for p in pairs])):.3f}"
            if label.startswith("HaluEval")
            else "",
        ]
        rows.append(f"| {label} ({len(pairs):,}) | {' | '.join(cells + baselines)} |")
        log(rows[-1])
    lines += [
        "AUROC / balanced accuracy for supported vs not (contradicted or unsupported). "
        "Baselines give AUROC only: MiniLM cosine of claim and evidence, BM25, and the "
        "answer's length in words (shorter = supported; HaluEval's shortcut, which the "
        "length-matched subset removes).",
        "",
        "| test set (pairs) | assay-support | assay-support-lexical | cosine | BM25 "
        "| length only |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        f"Speed (cold cache, 2 cores): assay-support {figures['assay-support:pps']:.0f} pairs/s, "
        f"assay-support-lexical {figures['assay-support-lexical:pps']:.0f} pairs/s "
        "(on the last set above).",
        "",
    ]
    return figures


def cascade_section(data: Path, n: int, lines: list[str]) -> dict[str, float]:
    client = client_from_environment()
    if client is None:
        lines += ["LLM and cascade: not measured in this run (set ASSAY_LLM_URL).", ""]
        return {}
    pairs = relevance_pairs(data / "squad_v2_dev/dev-v2.0.reconstructed.json", "test")
    pairs += random_negatives(pairs)
    rng = random.Random(7)
    a = rng.sample([p for p in pairs if p.task == "a"], n)
    b_pos = [p for p in a if p.label == 1][: n // 2]
    b = b_pos + rng.sample([p for p in pairs if p.task == "r"], n // 2)
    fast = get_relevance_model("assay-relevance")
    llm = LLMRelevanceModel(client)
    cascade = CascadeRelevanceModel(fast, llm, top=1)
    rows, figures = [], {}
    scores: dict[str, dict[str, np.ndarray]] = {}
    start = time.perf_counter()
    for task, sample in (("a", a), ("b", b)):
        fast_scores = relevance_scores(fast, sample)
        llm_scores = relevance_scores(llm, sample)
        combined = np.asarray(
            [cascade_combine(cascade, f, s) for f, s in zip(fast_scores, llm_scores, strict=True)]
        )
        scores[task] = {"assay-relevance": fast_scores, llm.name: llm_scores, "cascade": combined}
        log(f"  task {task}: {len(sample)} pairs, {time.perf_counter() - start:.0f} s")
    seconds_per_pair = (time.perf_counter() - start) / (len(a) + len(b))
    for name in scores["a"]:
        ya = np.asarray([p.label for p in a])
        yb = np.asarray([p.label for p in b])
        area_a, area_b = auroc(ya, scores["a"][name]), auroc(yb, scores["b"][name])
        figures[name] = area_a
        rows.append(f"| {name} | {area_a:.3f} | {area_b:.3f} |")
    lines += [
        f"Seeded sample of the test pairs: {len(a)} for task a, {len(b)} for task r "
        "(half own paragraphs, half random other paragraphs); the LLM took "
        f"{seconds_per_pair:.1f} s a pair on 2 cores. The cascade averages the two models' "
        "log-odds.",
        "",
        "| model | task a AUROC | task r AUROC |",
        "|---|---|---|",
        *rows,
        "",
    ]
    return figures


def cascade_combine(cascade: CascadeRelevanceModel, fast: float, slow: float) -> float:
    """The cascade's combined score for one pair from its two parts' scores."""
    from assay.models.relevance import _logit

    w = cascade.fast_weight
    z = w * _logit(fast) + (1 - w) * (_logit(slow) - cascade.slow_bias)
    return float(1.0 / (1.0 + np.exp(-z)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--llm-sample", type=int, default=150, help="LLM pairs per task")
    parser.add_argument("--write", action="store_true", help="replace the docs section")
    args = parser.parse_args()
    lines = [
        SECTION,
        "",
        f"`python bench/models.py` on {os.cpu_count()} cores.",
        "",
        "### Relevance",
        "",
    ]
    figures = relevance_section(args.data, lines)
    lines += ["### Support", ""]
    figures |= support_section(args.data, lines)
    lines += ["### LLM yes/no and the cascade", ""]
    figures |= cascade_section(args.data, args.llm_sample, lines)
    checks = [
        ("relevance task a >= 0.75", figures["assay-relevance:a"] >= TARGETS["task_a"]),
        ("relevance task r >= 0.97", figures["assay-relevance:r"] >= TARGETS["task_b"]),
        ("relevance >= 50 pairs/s", figures["assay-relevance:pps"] >= TARGETS["pps"]),
        (
            "SciFact balanced accuracy >= 0.78",
            figures["SciFact test claims:assay-support:bacc"] >= TARGETS["scifact_bacc"],
        ),
    ]
    if "cascade" in figures:
        checks.append(("cascade task a >= 0.80", figures["cascade"] >= TARGETS["task_a_cascade"]))
    lines += [
        "### Targets",
        "",
        *(f"- {'PASS' if ok else 'MISS'}: {name}" for name, ok in checks),
        "",
    ]
    section = "\n".join(lines)
    print(section)
    if args.write:
        write_section(SECTION, section)


if __name__ == "__main__":
    main()
