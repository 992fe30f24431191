"""Answer-correctness models side by side, on the same drafted answers of the held-aside
knowledge bases.

``bench/abstention.py`` measures a release end to end, and a new correctness model
changes which answers are given as well as their score. This bench holds the answers
fixed: every held-aside set of ``bench/abstention.py`` (SQuAD 2.0 test articles, XQuAD's
articles outside SQuAD 2.0 dev, COVID-QA, PolicyQA test, TAT-QA test) and the ordinary
documents of ``bench/ordinary`` (none of them fitted any correctness model) are asked
once, under informational and financial, by an engine that rates nothing
(``correctness_model = none``), and every drafted answer is then scored by each model as
``ask`` scores it: the J1 score, the lower of P(right) and the judge's support. Beside
them the judge's support alone, the score of releases before the correctness model. Per
set, both policies pooled: AUROC of right vs wrong, Brier, ECE (15 bins).

To compare with an earlier release, write its model to a folder first::

    mkdir -p old && git show REV:src/assay/models/shipped/assay-correctness/model.json \\
        > old/model.json
    .venv/bin/python bench/correctness_models.py \\
        --models old src/assay/models/shipped/assay-correctness

With ``--llm`` every drafted answer's cited passage is also read by the chat model at
``ASSAY_LLM_URL`` (``make llm`` serves the local one), so that ``assay-correctness-llm``
releases can be compared too (a request per answer: pick a few ``--sets``)::

    ASSAY_LLM_URL=http://127.0.0.1:8765/v1 ASSAY_LLM_MODEL=qwen2.5-coder-1.5b-instruct \\
        .venv/bin/python bench/correctness_models.py --llm --sets squad tatqa \\
        --models old src/assay/models/shipped/assay-correctness-llm

``--rows FOLDER`` keeps each set's drafted answers there (``squad.jsonl``, ...) and reuses
them on the next run; ``bench/correctness_forms.py`` reads them.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt
from abstention import SETS, load_set

from assay.answer.correctness import SHIPPED_CORRECTNESS, load_correctness_model
from assay.metrics import auroc, brier_score, expected_calibration_error
from assay.models.answerability import LLMAnswerability
from assay.models.llm import required_client
from assay.training.answer_rows import (
    AnswerRow,
    Paragraph,
    ask_rows,
    each_knowledge_base,
    kept_rows,
)
from assay.training.ordinary_kbs import answer_rows

ORDINARY = Path(__file__).resolve().parent / "ordinary"

POLICIES = ("informational", "financial")


def collect(
    paragraphs: Sequence[Paragraph],
    name: str,
    n: int,
    answerability: LLMAnswerability | None = None,
) -> list[AnswerRow]:
    """Every drafted answer of up to ``n`` questions per condition, rated by no model
    (with the chat model's belief among its features when ``answerability`` is given)."""
    rows: list[AnswerRow] = []
    for engines, asked in each_knowledge_base(name, paragraphs, n, correctness_model="none"):
        for condition, items in asked.items():
            rows += ask_rows(
                name, condition, engines[condition], items, POLICIES, answerability=answerability
            )
    return [r for r in rows if r.features is not None]


def ordinary(answerability: LLMAnswerability | None = None) -> list[AnswerRow]:
    """Every drafted answer to the ordinary suite's questions, rated by no model."""
    rows = answer_rows(ORDINARY, "ordinary", POLICIES, answerability, correctness_model="none")
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
    parser.add_argument(
        "--sets",
        nargs="+",
        choices=[*(name for name, *_ in SETS), "ordinary"],
        help="default: every set",
    )
    parser.add_argument(
        "--llm", action="store_true", help="also ask the chat model at ASSAY_LLM_URL"
    )
    parser.add_argument(
        "--rows",
        type=Path,
        help="folder to keep each set's answers in; later runs reuse them as kept",
    )
    args = parser.parse_args()
    if args.questions < 1:
        parser.error(f"--questions must be a positive integer, got {args.questions}")
    answerability = LLMAnswerability(required_client("--llm")) if args.llm else None
    models = {}
    for folder in args.models:
        model = load_correctness_model(folder)
        if model.answerability and not args.llm:
            parser.error(f"{folder} reads the chat model's beliefs: add --llm")
        models[f"{model.ref} ({folder.name})" if model.ref in models else model.ref] = model
    print(
        f"`python bench/correctness_models.py --questions {args.questions}"
        f"{' --llm' if args.llm else ''}`: AUROC / Brier / "
        "ECE of each score on the same drafted answers, informational and financial pooled.\n"
    )
    print(f"| set | answers | right | {' | '.join(models)} | support alone |")
    print(f"|---|---|---|{'---|' * (len(models) + 1)}")
    for name, root, file, split, *_ in [*SETS, ("ordinary", "", "", None)]:
        if args.sets and name not in args.sets:
            continue
        start = time.perf_counter()
        if name == "ordinary":  # every question of every knowledge base, on its own day
            asking = partial(ordinary, answerability)
        else:
            path = (args.data if root == "data" else args.more) / file
            if not path.is_file():
                print(f"| {name} | not measured ({file} is missing) |")
                continue
            paragraphs, _ = load_set(name, path, split, args.data)
            asking = partial(collect, paragraphs, name, args.questions, answerability)
        rows = kept_rows(args.rows, name, asking, llm=answerability is not None)
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
