"""Fit ``assay-support-stack`` (:mod:`assay.models.support_stack`); its card is kept by hand.

The heads learn from pairs the cross-encoder never saw: the held-out groups of the
support sets in its training mix, the commercially usable support sets held aside from
it, and the stress sets generated from held-out articles
(:func:`~assay.training.mix.evaluation_sets`), less the judge's test rows. Non-commercial
and research-only sets are never used. Each set weighs the same, whatever its size, so
that no one domain decides.

``make bench-models`` measures the same recipe (:func:`fit_stack_head`) leave one
dataset out; that is the figure that chose it and the one to quote, since the shipped
heads have seen every usable set.

    python -m assay.training.stack_train --data ../shared/data --more ../shared/data_more \\
        --out src/assay/models/shipped/assay-support-stack
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.models.head import TreeHead, save_head
from assay.models.pair_classifier import SHIPPED_CROSS_ENCODER, PairClassifier
from assay.models.support_stack import STACK_FEATURES, stack_rows
from assay.training.datasets import halueval_rows, scifact_pairs
from assay.training.mix import ALL_SETS, evaluation_sets
from assay.training.pairsets import LabeledPair, cap, normalized
from assay.training.train import export_trees

__all__ = ["VERSION", "contradiction_labels", "fit_stack_head", "stack_training_sets"]

VERSION = "1.0.0"
SEED = 13
#: chosen leave one dataset out (bench/models.py's protocol) among five settings from 4 to
#: 31 leaves: larger trees learned the stress generator and lost on summaries and on
#: contradiction in the public sets
TREE_SETTINGS: dict[str, Any] = {
    "max_iter": 100,
    "learning_rate": 0.05,
    "max_leaf_nodes": 5,
    "min_samples_leaf": 40,
}
Floats = npt.NDArray[np.float64]
Labels = npt.NDArray[np.int64]


def trainable(name: str) -> bool:
    """Whether a shipped model may learn from the set (its licence allows commercial use)."""
    info = ALL_SETS.get(name.removeprefix("stress:"))
    return info is not None and info.commercial


def contradiction_labels(pairs: Sequence[LabeledPair]) -> Labels | None:
    """1 for a contradicted pair, where the set tells contradiction from the rest."""
    labels = {p.label for p in pairs}
    if "contradicted" in labels and labels - {"contradicted", "not_supported"}:
        return np.array([p.label == "contradicted" for p in pairs], dtype=np.int64)
    return None


def fit_stack_head(
    name: str, rows: Mapping[str, Floats], labels: Mapping[str, Labels], version: str = VERSION
) -> TreeHead:
    """Boosted trees on the rows of every set in ``rows``, each set weighing the same."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    x = np.vstack([rows[s] for s in rows])
    y = np.concatenate([labels[s] for s in rows])
    weight = np.concatenate([np.full(len(labels[s]), 1.0 / len(labels[s])) for s in rows])
    weight *= len(weight) / weight.sum()
    model = HistGradientBoostingClassifier(
        **TREE_SETTINGS, class_weight="balanced", random_state=SEED
    ).fit(x, y, sample_weight=weight)
    info = {"sets": sorted(rows), "pairs": len(y), **TREE_SETTINGS}
    head = export_trees(model, name, STACK_FEATURES, np.zeros(0), info, version)
    assert np.allclose(head.probabilities(x[:200]), model.predict_proba(x[:200]), atol=1e-9)
    return head


def judge_test_texts(data: Path) -> set[str]:
    """The HaluEval knowledge and SciFact claims of the judge's test rows (bench/judge.py),
    which the stack must not learn from, since the judge applies it to them."""
    rows = halueval_rows(data / "halueval" / "qa_data.json", "test", seed=SEED)
    claims = scifact_pairs(
        data / "scifact_train" / "claims_train.jsonl",
        data / "scifact_train" / "corpus.jsonl",
        "test",
        seed=SEED,
    )
    return {normalized(r["knowledge"]) for r in rows} | {normalized(p.claim) for p in claims}


def stack_training_sets(data: Path, more: Path, per_set: int) -> dict[str, list[LabeledPair]]:
    """The commercially usable support and stress sets, up to ``per_set`` pairs each,
    without the judge's test rows."""
    aside = judge_test_texts(data)
    out = {}
    for name, pairs in evaluation_sets(data, more).items():
        if pairs and pairs[0].task == "support" and trainable(name):
            kept = [p for p in pairs if not {normalized(p.first), normalized(p.second)} & aside]
            drawn = cap(kept, per_set, seed=SEED)
            if len({p.positive for p in drawn}) == 2:
                out[name] = drawn
    return out


def _write(folder: Path, support: TreeHead, contradiction: TreeHead, meta: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    files = {"support": "support.npz", "contradiction": "contradiction.npz"}
    digests = {
        files["support"]: save_head(support, folder / files["support"]),
        files["contradiction"]: save_head(contradiction, folder / files["contradiction"]),
    }
    info = {"name": "assay-support-stack", "version": VERSION, "files": files, "sha256": digests}
    (folder / "model.json").write_text(json.dumps({**info, **meta}, indent=2) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--more", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--per-set", type=int, default=1000, help="pairs drawn per set")
    parser.add_argument("--cross-encoder", type=Path, default=SHIPPED_CROSS_ENCODER)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    classifier = PairClassifier(args.cross_encoder)
    sets = stack_training_sets(args.data, args.more, args.per_set)
    rows, supported, contradicted = {}, {}, {}
    for name, pairs in sets.items():
        items = [(p.first, p.second) for p in pairs]
        rows[name] = stack_rows(items, classifier.score(items))
        supported[name] = np.array([p.positive for p in pairs], dtype=np.int64)
        labels = contradiction_labels(pairs)
        if labels is not None:
            contradicted[name] = labels
        print(f"{name}: {len(pairs)} pairs", flush=True)
    support = fit_stack_head("assay-support-stack", rows, supported)
    contradiction = fit_stack_head(
        "assay-support-stack-contradiction", {s: rows[s] for s in contradicted}, contradicted
    )
    meta = {
        "cross_encoder": classifier.name,
        "cross_encoder_sha256": classifier.sha256,
        "features": list(STACK_FEATURES),
        "support_sets": {s: len(v) for s, v in supported.items()},
        "contradiction_sets": {s: len(v) for s, v in contradicted.items()},
        "per_set": args.per_set,
        "seed": SEED,
        "seconds": round(time.perf_counter() - started),
    }
    _write(args.out, support, contradiction, meta)
    print(json.dumps(meta, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
