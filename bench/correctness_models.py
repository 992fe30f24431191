"""Answer-correctness models side by side, on the same drafted answers of the held-aside
knowledge bases.

``bench/abstention.py`` measures a release end to end, and a new correctness model
changes which answers are given as well as their score. This bench holds the answers
fixed: every held-aside set of ``bench/abstention.py`` (SQuAD 2.0 test articles, XQuAD's
articles outside SQuAD 2.0 dev, COVID-QA, PolicyQA test, TAT-QA test; none of them
fitted any correctness model) is asked once, under informational and financial, by an
engine that rates nothing (``correctness_model = none``), and every drafted answer is
then scored by each model as ``ask`` scores it: the J1 score, the lower of P(right) and
the judge's support. Beside them the judge's support alone, the score of releases
before the correctness model. Per set, both policies pooled: AUROC of right vs wrong,
Brier, ECE (15 bins).

To compare with an earlier release, write its model to a folder first::

    mkdir -p old && git show REV:src/assay/models/shipped/assay-correctness/model.json \\
        > old/model.json
    .venv/bin/python bench/correctness_models.py \\
        --models old src/assay/models/shipped/assay-correctness
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from abstention import SETS, load_set

from assay.answer.correctness import SHIPPED_CORRECTNESS, load_correctness_model
from assay.metrics import auroc, brier_score, expected_calibration_error
from assay.training.answer_rows import AnswerRow, Paragraph, ask_rows, each_knowledge_base

POLICIES = ("informational", "financial")


def collect(paragraphs: Sequence[Paragraph], name: str, n: int) -> list[AnswerRow]:
    """Every drafted answer of up to ``n`` questions per condition, rated by no model."""
    rows: list[AnswerRow] = []
    for engines, asked in each_knowledge_base(name, paragraphs, n, correctness_model="none"):
        for condition, items in asked.items():
            rows += ask_rows(name, condition, engines[condition], items, POLICIES)
    return [r for r in rows if r.features is not None]


def cell(y: npt.NDArray[np.int64], p: npt.NDArray[np.float64]) -> str:
    """AUROC / Brier / ECE of scores ``p`` against outcomes ``y``."""
    rank = f"{auroc(y, p):.3f}" if 0 < y.sum() < len(y) else "-"
    return f"{rank} / {brier_score(y, p):.3f} / {expected_calibration_error(y, p, n_bins=15):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).parents[2] / "shared/data")
    parser.add_argument("--more", type=Path, default=Path(__file__).parents[2] / "shared/data_more")
    parser.add_argument(
        "--models", nargs="+", type=Path, default=[SHIPPED_CORRECTNESS],
        help="folders with a model.json (default: the shipped assay-correctness)",
    )  # fmt: skip
    parser.add_argument("--questions", type=int, default=200, help="per set and condition")
    args = parser.parse_args()
    if args.questions < 1:
        parser.error(f"--questions must be a positive integer, got {args.questions}")
    models = {}
    for folder in args.models:
        model = load_correctness_model(folder)
        models[f"{model.ref} ({folder.name})" if model.ref in models else model.ref] = model
    print(
        f"`python bench/correctness_models.py --questions {args.questions}`: AUROC / Brier / "
        "ECE of each score on the same drafted answers, informational and financial pooled.\n"
    )
    print(f"| set | answers | right | {' | '.join(models)} | support alone |")
    print(f"|---|---|---|{'---|' * (len(models) + 1)}")
    for name, root, file, split, *_ in SETS:
        path = (args.data if root == "data" else args.more) / file
        if not path.is_file():
            print(f"| {name} | not measured ({file} is missing) |")
            continue
        start = time.perf_counter()
        paragraphs, _ = load_set(name, path, split, args.data)
        rows = collect(paragraphs, name, args.questions)
        print(
            f"{name}: {len(rows)} answers in {time.perf_counter() - start:.0f} s", file=sys.stderr
        )
        y = np.array([int(r.correct) for r in rows])
        support = np.array([r.features["support"] for r in rows if r.features])
        cells = [
            cell(y, np.minimum([m.probability(r.features or {}) for r in rows], support))
            for m in models.values()
        ]
        print(f"| {name} | {len(y)} | {y.mean():.3f} | {' | '.join(cells)} | {cell(y, support)} |")


if __name__ == "__main__":
    main()
