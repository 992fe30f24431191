"""Fit the map from MiniLM cosine to the similarity the scoring core receives.

Raw MiniLM cosines of a question with a passage that answers it sit around 0.3-0.7 and
of an off-topic passage around 0.0-0.2, so clipped cosine is not on the [0, 1] scale the
policies' similarity floors assume ("is this passage about the question at all?"). The
map is a linear rescale, clipped to [0, 1]:

    similarity = (cosine - low) / (high - low)

with ``low`` the 95th percentile of cosines to off-topic paragraphs (another article)
and ``high`` the 90th percentile of cosines to the question's own paragraph, both on
SQuAD 2.0 dev answerable questions of the first 25 articles; it is evaluated on the
last 10. (A logistic fit on the same pairs is nearly a step function: it separates
topics but erases the grading among on-topic passages that ranking and set signals
need.) The script also shows what no cosine map can fix: the own paragraph against
the most similar other paragraph of the same article -- on-topic but not answering,
the relevance model's job.

    python bench/similarity_map.py [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from assay.models.embedder import MiniLMEmbedder

DEFAULT_DATA = (
    Path(__file__).resolve().parents[2] / "shared/data/squad_v2_dev/dev-v2.0.reconstructed.json"
)


def pairs(
    articles: list[dict], embedder: MiniLMEmbedder, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cosine, label) for each answerable question's own paragraph and a paragraph of
    another article; and the cosine of the most similar other paragraph of its article."""
    rng = np.random.default_rng(seed)
    vectors = [embedder.embed([p["context"] for p in a["paragraphs"]]) for a in articles]
    cos, labels, hard = [], [], []
    for index, article in enumerate(articles):
        pv = vectors[index]
        questions, gold = [], []
        for i, p in enumerate(article["paragraphs"]):
            for qa in p["qas"]:
                if not qa["is_impossible"]:
                    questions.append(qa["question"])
                    gold.append(i)
        qv = embedder.embed(questions)
        sims = qv @ pv.T
        for q, (row, g) in enumerate(zip(sims, gold, strict=True)):
            cos.append(row[g])
            labels.append(1)
            hard.append(np.delete(row, g).max())
            other = int(rng.choice([i for i in range(len(articles)) if i != index]))
            paragraph = vectors[other][rng.integers(len(vectors[other]))]
            cos.append(float(qv[q] @ paragraph))
            labels.append(0)
    return (
        np.asarray(cos, dtype=np.float64),
        np.asarray(labels, dtype=np.float64),
        np.asarray(hard, dtype=np.float64),
    )


def auroc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Probability that a random positive outscores a random negative (ties count half)."""
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    for value in np.unique(scores):  # average ranks of ties
        tied = scores == value
        ranks[tied] = ranks[tied].mean()
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    if not args.data.exists():
        parser.error(f"{args.data} not found: pass --data (see docs/benchmarks.md)")
    articles = json.loads(args.data.read_text())["data"]
    embedder = MiniLMEmbedder()
    start = time.perf_counter()
    x_train, y_train, _ = pairs(articles[:25], embedder)
    x_test, y_test, hard = pairs(articles[25:], embedder)
    low = float(np.percentile(x_train[y_train == 0], 95))
    high = float(np.percentile(x_train[y_train == 1], 90))
    own, other = x_test[y_test == 1], x_test[y_test == 0]

    def mapped(cos: np.ndarray) -> np.ndarray:
        return np.clip((cos - low) / (high - low), 0.0, 1.0)

    print(
        f"pairs: {len(x_train)} train (first 25 articles), {len(x_test)} test (last 10); "
        f"{time.perf_counter() - start:.0f} s"
    )
    print(f"fitted on train: low = {low:.4f} (off-topic p95), high = {high:.4f} (own p90)")
    hard_auroc = auroc(np.r_[own, hard], np.r_[np.ones(len(own)), np.zeros(len(hard))])
    print(
        f"test AUROC of cosine: own vs off-topic {auroc(x_test, y_test):.4f}; "
        f"own vs best same-article other {hard_auroc:.4f}"
    )
    print(
        f"test mean similarity: own {mapped(own).mean():.3f}, "
        f"off-topic {mapped(other).mean():.3f}, best same-article other {mapped(hard).mean():.3f}"
    )
    for floor in (0.30, 0.45, 0.50, 0.55):
        print(
            f"  floor {floor:.2f}: keeps {np.mean(mapped(own) >= floor):.3f} of own paragraphs, "
            f"{np.mean(mapped(other) >= floor):.4f} of off-topic ones"
        )
    print(
        "cosine -> similarity: "
        + ", ".join(
            f"{c:.1f}->{float(mapped(np.array([c]))[0]):.2f}"
            for c in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
        )
    )


if __name__ == "__main__":
    main()
