"""Ranking, classification, calibration and selective-prediction metrics, pure functions.

scikit-learn's conventions: ``y_true`` holds 0/1 labels (1 = the positive class, e.g.
"the answer is correct"), ``y_score`` / ``y_prob`` higher-means-positive scores or
probabilities. numpy only, so benchmarks, calibration and the service report the same
numbers without scikit-learn at run time; the tests check them against their
definitions and, where scikit-learn has the same metric, against it.

* ranking: :func:`auroc`, :func:`auprc` (average precision);
* classification at a threshold: :func:`precision_recall_f1`, :func:`balanced_accuracy`;
* calibration: :func:`brier_score`, :func:`expected_calibration_error` and
  :func:`reliability_curve` with uniform or quantile bins, and :func:`ece_noise_floor`,
  the ECE that sampling noise alone gives at a sample's size;
* selective prediction (answer only above a confidence): :func:`risk_coverage_curve`,
  its area :func:`aurc` (Geifman & El-Yaniv, NeurIPS 2017) and
  :func:`selective_accuracy` at a coverage.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from assay.errors import InvalidInputError

__all__ = [
    "auprc",
    "aurc",
    "auroc",
    "balanced_accuracy",
    "brier_score",
    "ece_noise_floor",
    "expected_calibration_error",
    "precision_recall_f1",
    "reliability_curve",
    "risk_coverage_curve",
    "selective_accuracy",
]

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


def _probabilities(
    y_true: ArrayLike, y_prob: ArrayLike
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    y, p = _labels(y_true, y_prob)
    if not len(y):
        raise InvalidInputError("y_true", [], "give at least one labelled score")
    if ((p < 0) | (p > 1)).any():
        raise InvalidInputError(
            "y_prob", f"[{p.min():g}, {p.max():g}]", "give probabilities in [0, 1]",
            problem="is outside [0, 1]",
        )  # fmt: skip
    return y, p


def auprc(y_true: ArrayLike, y_score: ArrayLike) -> float:
    """Average precision: sum over thresholds of precision times the recall gained
    (scikit-learn's ``average_precision_score``: a step function, no interpolation)."""
    y, s = _labels(y_true, y_score)
    positives = int(y.sum())
    if positives == 0:
        raise InvalidInputError("y_true", "no positives", "AUPRC needs at least one positive")
    order = np.argsort(-s, kind="mergesort")
    s_sorted, y_sorted = s[order], y[order]
    last_of_tie = np.r_[np.diff(s_sorted) != 0, True]  # one point per distinct score
    tp = np.cumsum(y_sorted)[last_of_tie]
    predicted = (np.arange(len(y)) + 1)[last_of_tie]
    precision = tp / predicted
    recall = tp / positives
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def precision_recall_f1(
    y_true: ArrayLike, y_score: ArrayLike, threshold: float
) -> tuple[float, float, float]:
    """Precision, recall and F1 of predicting positive when ``score >= threshold``
    (0.0 where a ratio has nothing to divide, as scikit-learn's ``zero_division=0``)."""
    y, s = _labels(y_true, y_score)
    predicted = s >= threshold
    tp = int((predicted & (y == 1)).sum())
    precision = tp / int(predicted.sum()) if predicted.any() else 0.0
    recall = tp / int(y.sum()) if y.any() else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def brier_score(y_true: ArrayLike, y_prob: ArrayLike) -> float:
    """Mean squared difference between the predicted probability and the 0/1 outcome."""
    y, p = _probabilities(y_true, y_prob)
    return float(np.mean((p - y) ** 2))


def _inner_edges(p: npt.NDArray[np.float64], n_bins: int, strategy: str) -> npt.NDArray[np.float64]:
    """The ``n_bins - 1`` edges between bins: equally spaced, or the quantiles of ``p``."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise InvalidInputError("n_bins", n_bins, "give a whole number of bins, 1 or more")
    if strategy == "uniform":
        return np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    if strategy == "quantile":
        return np.percentile(p, np.linspace(0.0, 1.0, n_bins + 1) * 100)[1:-1]  # as sklearn
    raise InvalidInputError("strategy", strategy, "use uniform or quantile")


def reliability_curve(
    y_true: ArrayLike, y_prob: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform"
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Per non-empty bin: the mean predicted probability, the observed share of
    positives, and the count. Bins are equal-width (``uniform``) or hold equal counts
    (``quantile``); a probability on an inner edge goes to the lower bin, as in
    scikit-learn's ``calibration_curve``.
    """
    y, p = _probabilities(y_true, y_prob)
    which = np.searchsorted(_inner_edges(p, n_bins, strategy), p)  # as calibration_curve
    counts = np.bincount(which, minlength=n_bins)
    filled = counts > 0
    mean_prob = np.bincount(which, weights=p, minlength=n_bins)[filled] / counts[filled]
    observed = np.bincount(which, weights=y, minlength=n_bins)[filled] / counts[filled]
    return mean_prob, observed, counts[filled].astype(np.int64)


def expected_calibration_error(
    y_true: ArrayLike, y_prob: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform"
) -> float:
    """ECE: the count-weighted mean gap between predicted probability and observed share
    of positives over the bins of :func:`reliability_curve` (Naeini et al., AAAI 2015)."""
    mean_prob, observed, counts = reliability_curve(
        y_true, y_prob, n_bins=n_bins, strategy=strategy
    )
    return float(np.sum(counts * np.abs(mean_prob - observed)) / counts.sum())


def ece_noise_floor(
    y_prob: ArrayLike, *, n_bins: int = 10, draws: int = 200, seed: int = 13
) -> float:
    """The mean ECE of a perfectly calibrated score with these probabilities.

    Outcomes are drawn with probability ``y_prob`` (seeded), ``draws`` times. ECE is
    biased upwards on a finite sample: at a few hundred items even a perfect score shows
    0.03-0.06. A measured ECE near this floor cannot be told from perfect calibration,
    and a target below it cannot be met at this sample size.
    """
    p = np.asarray(y_prob, dtype=np.float64)
    _probabilities(np.zeros(p.shape, dtype=np.int64), p)  # the same checks as the metrics
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise InvalidInputError("draws", draws, "give a whole number of draws, 1 or more")
    rng = np.random.default_rng(seed)
    return float(
        np.mean(
            [expected_calibration_error(rng.binomial(1, p), p, n_bins=n_bins) for _ in range(draws)]
        )
    )


def risk_coverage_curve(
    correct: ArrayLike, confidence: ArrayLike
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Answer only at or above each distinct confidence: the coverage (share answered),
    the risk (share of answered that are wrong) and the threshold, most confident first.
    Ties are answered together, so every point is reachable by a threshold."""
    y, s = _labels(correct, confidence)
    if not len(y):
        raise InvalidInputError("correct", [], "give at least one labelled score")
    order = np.argsort(-s, kind="mergesort")
    s_sorted, y_sorted = s[order], y[order]
    last_of_tie = np.r_[np.diff(s_sorted) != 0, True]
    answered = (np.arange(len(y)) + 1)[last_of_tie]
    wrong = np.cumsum(1 - y_sorted)[last_of_tie]
    return answered / len(y), wrong / answered, s_sorted[last_of_tie]


def aurc(correct: ArrayLike, confidence: ArrayLike) -> float:
    """Area under the risk-coverage curve, as a step function of coverage (lower is better;
    a confidence that ranks every wrong answer last reaches the minimum for its error rate)."""
    coverage, risk, _ = risk_coverage_curve(correct, confidence)
    return float(np.sum(np.diff(np.r_[0.0, coverage]) * risk))


def selective_accuracy(correct: ArrayLike, confidence: ArrayLike, coverage: float) -> float:
    """Accuracy on the ``coverage`` share of items with the highest confidence (at least
    one item; ties broken by input order, so the result is deterministic)."""
    y, s = _labels(correct, confidence)
    if not len(y):
        raise InvalidInputError("correct", [], "give at least one labelled score")
    if isinstance(coverage, bool) or not isinstance(coverage, int | float) or not 0 < coverage <= 1:
        raise InvalidInputError("coverage", coverage, "give a share in (0, 1]")
    keep = max(1, int(np.ceil(coverage * len(y) - 1e-9)))
    order = np.argsort(-s, kind="mergesort")[:keep]
    return float(y[order].mean())
