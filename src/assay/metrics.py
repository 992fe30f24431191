"""Ranking and classification metrics as pure functions (scikit-learn's conventions).

``y_true`` holds 0/1 labels, ``y_score`` higher-means-positive scores. Kept here,
numpy only, so benchmarks and calibration report the same numbers without
scikit-learn at run time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from assay.errors import InvalidInputError

__all__ = ["auroc", "balanced_accuracy"]

ArrayLike = Sequence[float] | Sequence[int] | npt.NDArray[np.generic]


def _labels(
    y_true: ArrayLike, y_score: ArrayLike
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    y = np.asarray(y_true)
    s = np.asarray(y_score, dtype=np.float64)
    if y.shape != s.shape or y.ndim != 1:
        raise InvalidInputError("y_score", s.shape, f"give one score per label ({y.shape})")
    if not np.isin(y, (0, 1)).all():
        raise InvalidInputError("y_true", sorted(set(y.tolist())), "use 0/1 labels")
    if np.isnan(s).any():
        raise InvalidInputError("y_score", "NaN", "drop or impute missing scores")
    return y.astype(np.int64), s


def auroc(y_true: ArrayLike, y_score: ArrayLike) -> float:
    """Area under the ROC curve: P(score of a random positive > a random negative).

    Ties count one half (the Mann-Whitney U statistic over average ranks).
    """
    y, s = _labels(y_true, y_score)
    positives = int(y.sum())
    negatives = len(y) - positives
    if positives == 0 or negatives == 0:
        raise InvalidInputError("y_true", "one class", "AUROC needs both positives and negatives")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_scores = s[order]
    # average rank for tied scores
    _, first, counts = np.unique(sorted_scores, return_index=True, return_counts=True)
    average = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(average, counts)
    u = ranks[y == 1].sum() - positives * (positives + 1) / 2.0
    return float(u / (positives * negatives))


def balanced_accuracy(
    y_true: ArrayLike | Sequence[str], y_pred: ArrayLike | Sequence[str]
) -> float:
    """Mean of the recall of each class present in ``y_true`` (labels of any kind)."""
    y = np.asarray(y_true)
    p = np.asarray(y_pred)
    if y.shape != p.shape or y.ndim != 1 or not len(y):
        raise InvalidInputError("y_pred", p.shape, f"give one prediction per label ({y.shape})")
    return float(np.mean([np.mean(p[y == c] == c) for c in np.unique(y)]))
