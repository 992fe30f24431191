"""Cross-encoder candidates side by side on bench-models' measured pairs, before any ships.

Training a candidate and measuring it through ``make bench-models`` costs an export and
40 minutes a candidate. This script splits the work so that candidates trained
elsewhere (an accelerator, with ``python -m assay.training.cross_train train --pairs``)
are compared on exactly the pairs ``bench/models.py`` draws, read exactly as the runtime
reads them (the same windows, the same aggregation):

    python bench/cross_encoder_candidates.py rows --out DIR
        writes DIR/rows.npz (token rows of every measured pair, nothing else) and
        DIR/meta.json (sets, labels, windows per pair), and DIR/shipped.npy: the shipped
        int8 model's logits of the same rows;
    python -m assay.training.cross_train logits --checkpoint C --rows DIR/rows.npz --out X.npy
        a candidate's logits (anywhere torch runs);
    python bench/cross_encoder_candidates.py report --meta DIR/meta.json NAME=X.npy ...
        AUROC of each candidate beside the shipped model: relevance, qualifier swaps,
        support, contradiction, with each group's mean and worst.

The figures choose a candidate; the one that ships is measured again by ``make
bench-models`` after its int8 export.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from assay.metrics import auroc
from assay.models.pair_classifier import PairClassifier
from assay.training.mix import evaluation_sets
from assay.training.pairsets import cap
from assay.training.stack_train import contradiction_labels

ROOT = Path(__file__).resolve().parents[2]


def rows(args: argparse.Namespace) -> None:
    """Token rows and labels of every measured set; the shipped model's logits of them."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = PairClassifier()
    ids: list[int] = []
    types: list[int] = []
    offsets = [0]
    meta: dict[str, dict[str, object]] = {}
    all_rows: list[tuple[list[int], list[int]]] = []
    for name, pairs in evaluation_sets(args.data, args.more).items():
        pairs = cap(pairs, args.per_set)
        if len({p.positive for p in pairs}) < 2:
            continue
        windows, made, cuts = model.windowed_rows([(p.first, p.second) for p in pairs])
        contra = contradiction_labels(pairs)
        meta[name] = {
            "task": pairs[0].task,
            "first_row": len(all_rows),
            "windows": windows,
            "cuts": cuts,
            "labels": [int(p.positive) for p in pairs],
            "contradicted": None if contra is None else [int(v) for v in contra],
        }
        for row_ids, row_types in made:
            ids.extend(row_ids)
            types.extend(row_types)
            offsets.append(len(ids))
        all_rows.extend(made)
        print(f"{name}: {len(pairs)} pairs, {len(made)} rows", file=sys.stderr)
    np.savez_compressed(
        out / "rows.npz",
        ids=np.array(ids, dtype=np.int32),
        types=np.array(types, dtype=np.int8),
        offsets=np.array(offsets, dtype=np.int64),
    )
    (out / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    if not args.no_shipped:
        np.save(out / "shipped.npy", model.run_rows(all_rows).astype(np.float32))


def figures(meta: dict[str, dict], logits: np.ndarray) -> dict[str, dict[str, float]]:
    """AUROC per set of one model's logits: P(relevant) or P(supported), and P(contradicted)."""
    out: dict[str, dict[str, float]] = {}
    for name, info in meta.items():
        start = int(info["first_row"])
        windows = info["windows"]
        views = PairClassifier.aggregate(
            logits[start : start + sum(windows)].astype(np.float64), windows, info["cuts"]
        )
        y = np.array(info["labels"])
        if info["task"] == "relevance":
            score = np.array([v.relevant for v in views])
        else:
            score = np.array([v.support[0] for v in views])
        out[name] = {"auroc": auroc(y, score)}
        if info["contradicted"] is not None:
            contra = np.array(info["contradicted"])
            out[name]["contradiction"] = auroc(contra, np.array([v.contradicted for v in views]))
    return out


def report(args: argparse.Namespace) -> None:
    meta = json.loads(Path(args.meta).read_text(encoding="utf-8"))
    models = dict(item.split("=", 1) for item in args.logits)
    scored = {name: figures(meta, np.load(path)) for name, path in models.items()}
    names = list(models)

    def group(kind: str) -> list[str]:
        if kind == "swap":
            return [n for n in meta if n.startswith("swap:")]
        if kind == "relevance":
            return [n for n in meta if meta[n]["task"] == "relevance" and ":" not in n]
        return [n for n in meta if meta[n]["task"] == "support"]

    lines = ["| set | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for kind in ("relevance", "swap", "support"):
        members = group(kind)
        for n in members:
            row = [f"{scored[m][n]['auroc']:.3f}" for m in names]
            lines.append(f"| {n} | " + " | ".join(row) + " |")
        for label, fn in (("mean", np.mean), ("worst", np.min)):
            row = [f"{fn([scored[m][n]['auroc'] for n in members]):.3f}" for m in names]
            lines.append(f"| **{kind} {label}** | " + " | ".join(row) + " |")
    contra = [n for n in meta if meta[n]["contradicted"] is not None]
    row = [f"{np.mean([scored[m][n]['contradiction'] for n in contra]):.3f}" for m in names]
    lines.append("| **contradiction vs the rest, mean** | " + " | ".join(row) + " |")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("rows", help="token rows, labels and the shipped model's logits")
    make.add_argument("--data", type=Path, default=ROOT / "shared/data")
    make.add_argument("--more", type=Path, default=ROOT / "shared/data_more")
    make.add_argument("--per-set", type=int, default=400, help="as bench/models.py")
    make.add_argument("--out", required=True)
    make.add_argument("--no-shipped", action="store_true", help="skip the shipped model's logits")
    show = commands.add_parser("report", help="AUROC of each model's logits")
    show.add_argument("--meta", required=True)
    show.add_argument("logits", nargs="+", help="NAME=logits.npy")
    args = parser.parse_args()
    rows(args) if args.command == "rows" else report(args)


if __name__ == "__main__":
    main()
