"""Which form of answer-correctness model: the shipped logistic regression beside
non-linear ones, on the same features and the same drafted answers.

The issue asks for a model "logistic or boosted". This bench decides it by the
held-aside sets: each form is fitted on the fitting sets' answers the way
``assay.training.correctness_train`` fits the shipped model (every set weighing the same)
and rates every held-aside set's answers as ``ask`` rates them (the lower of P(right) and
the judge's support):

- logistic: ``correctness_train.fit``, the shipped recipe;
- logistic on splines: each feature expanded into quadratic B-splines (4 knots), so
  that a feature may count more in one part of its range than in another;
- boosted trees: ``HistGradientBoostingClassifier`` of depth 2 or 3 (interactions).

A last row per form says what the features hold at all: each held-aside set rated by
models of that form fitted on the set itself, 5 folds by question (out of fold). Where
even that stays low, a better form cannot help; new information must.

The answers come from the folders the other tools keep them in (``make
bench-correctness-forms`` runs all three, about 30 minutes)::

    python -m assay.training.correctness_train --data DATA --more MORE --out /tmp/fitted \\
        --rows FIT_ROWS
    python bench/correctness_models.py --rows HELD_ROWS
    python bench/correctness_forms.py --fit-rows FIT_ROWS --held-rows HELD_ROWS
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from abstention import SETS
from correctness_models import cell

from assay.answer.correctness import FEATURES
from assay.training.answer_rows import AnswerRow, read_rows
from assay.training.correctness_train import FIT_SETS, fit, matrix, per_set_weights

Probabilities = Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]


def drafted_answers(folder: Path, name: str) -> list[AnswerRow]:
    """The drafted answers kept in ``folder/NAME.jsonl``."""
    path = folder / f"{name}.jsonl"
    if not path.is_file():
        raise SystemExit(f"{path} is missing: run the command in this bench's docstring first")
    return [r for r in read_rows(path) if r.features is not None]


def sklearn_form(kind: str) -> Any:
    """An unfitted scikit-learn model of the form ``kind``."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import SplineTransformer

    if kind == "logistic on splines":
        return make_pipeline(
            SplineTransformer(n_knots=4, degree=2), LogisticRegression(C=0.3, max_iter=3000)
        )
    depth = {"boosted trees, depth 2": 2, "boosted trees, depth 3": 3}[kind]
    return HistGradientBoostingClassifier(
        max_depth=depth, learning_rate=0.05, max_iter=200, min_samples_leaf=40,
        l2_regularization=1.0, random_state=0,
    )  # fmt: skip


FORMS = ("logistic", "logistic on splines", "boosted trees, depth 2", "boosted trees, depth 3")


def fitted(kind: str, rows: Sequence[AnswerRow]) -> Probabilities:
    """P(right) of a model of form ``kind`` fitted on ``rows``, every set weighing the same."""
    if kind == "logistic":
        model = fit(rows, "-", "-")
        return lambda x: np.array(
            [model.probability(dict(zip(FEATURES, v, strict=True))) for v in x]
        )
    x, y = matrix(rows)
    form = sklearn_form(kind)
    weights = per_set_weights(rows)
    if hasattr(form, "steps"):
        form.fit(x, y, **{f"{form.steps[-1][0]}__sample_weight": weights})
    else:
        form.fit(x, y, sample_weight=weights)
    return lambda v: np.asarray(form.predict_proba(v)[:, 1], dtype=float)


def rated(probabilities: npt.NDArray[np.float64], x: npt.NDArray[np.float64]) -> Any:
    """The J1 score ``ask`` gives: the lower of P(right) and the judge's support."""
    return np.minimum(probabilities, x[:, FEATURES.index("support")])


def out_of_fold(kind: str, rows: Sequence[AnswerRow], folds: int = 5) -> str:
    """:func:`cell` of a set rated by models of form ``kind`` fitted on its other folds."""
    from sklearn.model_selection import GroupKFold

    x, y = matrix(rows)
    p = np.zeros(len(rows))
    for train, test in GroupKFold(folds).split(x, y, [r.question for r in rows]):
        p[test] = fitted(kind, [rows[i] for i in train])(x[test])
    return cell(y, rated(p, x))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit-rows", type=Path, required=True, help="kept by correctness_train")
    parser.add_argument(
        "--held-rows", type=Path, required=True, help="kept by bench/correctness_models.py"
    )
    parser.add_argument(
        "--sets", nargs="+", default=[name for name, *_ in SETS], help="held-aside sets to rate"
    )
    args = parser.parse_args()
    training = [r for name, *_ in FIT_SETS for r in drafted_answers(args.fit_rows, name)]
    held = {name: drafted_answers(args.held_rows, name) for name in args.sets}
    print(
        "`python bench/correctness_forms.py`: AUROC / Brier / ECE (15 bins) of min(P(right), "
        f"support) on each held-aside set's drafted answers; fitted on "
        f"{', '.join(name for name, *_ in FIT_SETS)} ({len(training)} answers).\n"
    )
    print(f"| form | fitted on | {' | '.join(f'{n} ({len(r)})' for n, r in held.items())} |")
    print(f"|---|---|{'---|' * len(held)}")
    for kind in FORMS:
        probabilities = fitted(kind, training)
        cells = []
        for rows in held.values():
            x, y = matrix(rows)
            cells.append(cell(y, rated(probabilities(x), x)))
        print(f"| {kind} | the fitting sets | {' | '.join(cells)} |", flush=True)
    for kind in ("logistic", "boosted trees, depth 2"):
        cells = [out_of_fold(kind, r) for r in held.values()]
        print(f"| {kind} | the set itself, 5 folds by question | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
