"""The teacher against the gold labels, beside the students it is meant to teach.

Reads the labels of ``python -m assay.training.teach`` (``labels/teacher-relevance``),
rebuilds their pairs from the data (a label holds the pair's id, not its text) and
prints, per set, the AUROC of the teacher's P(yes) beside cosine, the default relevance
model (``assay-relevance``) and the cross-encoder on the same pairs, and the teacher's
balanced accuracy at 0.5. A student learns from the teacher only on sets where the
teacher ranks better than the student does (issue 42)::

    .venv/bin/python bench/teacher.py [--labels DIR] [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docs_section import write_section
from models import baselines, cross_scores, head_scores

from assay.metrics import auroc, balanced_accuracy
from assay.models.pair_classifier import SHIPPED_CROSS_ENCODER, PairClassifier
from assay.training.mix import HELD_ASIDE
from assay.training.ordinary_pairs import MEASURING_ONLY
from assay.training.pairsets import LabeledPair
from assay.training.resumable import read_rows
from assay.training.teach import pair_id, teacher_sets

HEADING = "## The teacher against gold labels (bench/teacher.py)"
ROOT = Path(__file__).resolve().parents[1]


def fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def interval(y: np.ndarray, score: np.ndarray, *, draws: int = 1000) -> str:
    """A 95% bootstrap interval of the AUROC (pairs resampled): the sets are small."""
    rng = np.random.default_rng(13)
    found = []
    for _ in range(draws):
        k = rng.integers(0, len(y), len(y))
        if 0 < y[k].sum() < len(k):
            found.append(auroc(y[k], score[k]))
    low, high = np.percentile(found, [2.5, 97.5])
    return f"{low:.2f}-{high:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--more", type=Path, default=Path("../shared/data_more"))
    parser.add_argument("--labels", type=Path, default=ROOT / "labels/teacher-relevance")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    rows = read_rows(args.labels / "labels.jsonl")
    if not rows:
        raise SystemExit(f"no labels in {args.labels}: run `make teach` first")
    manifest = json.loads((args.labels / "manifest.json").read_text())
    beliefs = {str(row["id"]): float(row["teacher"]) for row in rows}
    cross = PairClassifier(SHIPPED_CROSS_ENCODER)
    lines = [
        "| set | held aside | pairs | teacher | teacher 95% interval | cosine | assay-relevance "
        "| cross-encoder | teacher balanced accuracy at 0.5 | teacher seconds per pair |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    seconds = {str(row["id"]): float(row.get("seconds", 0.0)) for row in rows}
    every = teacher_sets(args.data, args.more)
    for name in sorted(every):
        pairs: list[LabeledPair] = []
        seen: set[str] = set()
        for pair in every.get(name, []):
            key = pair_id(pair)
            if key in beliefs and key not in seen:
                seen.add(key)
                pairs.append(pair)
        y = np.array([int(p.positive) for p in pairs])
        if len(pairs) < 20 or len(set(y)) < 2:
            continue
        teacher = np.array([beliefs[pair_id(p)] for p in pairs])
        aside = name.removeprefix("swap:") in HELD_ASIDE or name in MEASURING_ONLY
        cosine = baselines(pairs)["cosine"]
        head = head_scores(pairs)[0]
        ce = cross_scores(cross, pairs)[0]
        lines.append(
            f"| {name} | {'yes' if aside else 'no'} "
            f"| {len(pairs)} "
            f"| {fmt(auroc(y, teacher))} | {interval(y, teacher)} | {fmt(auroc(y, cosine))} "
            f"| {fmt(auroc(y, head))} "
            f"| {fmt(auroc(y, ce))} | {fmt(balanced_accuracy(y, (teacher >= 0.5).astype(int)))} "
            f"| {np.median([seconds[pair_id(p)] for p in pairs]):.1f} |"
        )
        print(lines[-1], flush=True)
    text = "\n".join(lines)
    print(text)
    if args.write:
        # fmt: off
        write_section(
            HEADING,
            "\n".join([
                HEADING, "",
                f"`python bench/teacher.py` ({date.today().isoformat()}): the labels of "
                f"`python -m assay.training.teach` so far ({manifest['total']} pairs; teacher "
                f"`{manifest['teacher']}`, prompt `{manifest['prompt_version']}`, passages cut "
                f"at {manifest['passage_max_chars']} characters). AUROC of the relevant class "
                "on the same pairs; \"held aside\" sets never train a shipped model.", "",
                text, "",
            ]),
        )
        # fmt: on


if __name__ == "__main__":
    main()
