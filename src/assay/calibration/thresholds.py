"""Choosing a confidence threshold from a labeled calibration set.

Two ways, for two kinds of promise:

* :func:`risk_controlled_threshold` gives a statistical guarantee (requirement B3). An
  item is answered when its score is at or above the threshold ``t``; its loss is 1 when
  it is answered and wrong. The risk ``R(t)``, the expected loss, can only fall as ``t``
  rises. Learn then Test (Angelopoulos, Bates, Candès, Jordan and Lei, "Learn then Test:
  Calibrating predictive algorithms to achieve risk control", 2021) turns each candidate
  ``t`` into a hypothesis test of ``H0: R(t) > alpha`` and keeps the thresholds whose
  null is rejected. Because the risk is monotone the candidates are tested in a fixed
  sequence, from the highest down, at level ``delta`` each, stopping at the first that
  is not rejected; no multiplicity correction is needed. The p-value is the
  Hoeffding-Bentkus one of the paper (Bates, Angelopoulos, Lei, Malik and Jordan,
  "Distribution-free, risk-controlling prediction sets", 2021): the smaller of the
  Hoeffding bound and Bentkus' binomial bound (Bentkus, 2004). The lowest threshold
  still rejected answers the most while ``P(R(t) <= alpha) >= 1 - delta`` over the
  draw of an exchangeable calibration set.
* :func:`best_threshold` is the plain empirical search (requirement R6): scan the
  percentiles of the scores and keep the one with the best F1, precision or recall
  among those that meet a precision floor. It promises nothing beyond the calibration
  set, but it is what one wants for tuning a band edge.

numpy only; the binomial CDF is summed in log space here rather than taken from scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.errors import InvalidInputError
from assay.metrics import precision_recall_f1

__all__ = [
    "LTT_METHOD",
    "OBJECTIVES",
    "RiskThreshold",
    "ThresholdChoice",
    "best_threshold",
    "binomial_cdf",
    "hoeffding_bentkus_p_value",
    "risk_controlled_threshold",
]

ArrayLike = Sequence[float] | Sequence[int] | npt.NDArray[np.generic]
LTT_METHOD = "learn-then-test (Hoeffding-Bentkus, fixed sequence)"
OBJECTIVES = ("f1", "precision", "recall")
_DEFAULT_PERCENTILES = tuple(range(10, 95, 2))  # 10th, 12th, ..., 94th


@dataclass(frozen=True, slots=True)
class RiskThreshold:
    """A threshold whose answered-and-wrong rate is at most ``alpha`` with probability
    at least ``1 - delta``. When ``controlled`` is false no candidate could be certified:
    ``threshold`` is None (answer nothing), coverage and risk are 0, and ``p_value`` is
    that of the highest candidate, the one that failed."""

    threshold: float | None
    alpha: float
    delta: float
    n: int
    empirical_risk: float  #: share of calibration items answered and wrong at the threshold
    coverage: float  #: share of calibration items answered at the threshold
    p_value: float
    controlled: bool
    method: str = LTT_METHOD

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ThresholdChoice:
    """The empirically best threshold and its quality on the calibration set."""

    threshold: float
    precision: float
    recall: float
    f1: float
    objective: str
    min_precision: float | None
    met_floor: bool  #: False when no candidate reached ``min_precision``
    n: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


# -- p-values -----------------------------------------------------------------------------


def _binomial_log_cdf(k_max: int, n: int, p: float) -> npt.NDArray[np.float64]:
    """``log P(X <= k)`` for ``k = 0..k_max``, ``X ~ Binomial(n, p)``, ``0 < p < 1``.

    The log pmf follows the recurrence ``pmf(j + 1) = pmf(j) (n - j) p / ((j + 1)(1 - p))``
    from ``pmf(0) = (1 - p)^n``, summed in log space so nothing underflows.
    """
    j = np.arange(k_max, dtype=np.float64)
    steps = np.log(n - j) - np.log(j + 1) + (math.log(p) - math.log1p(-p))
    log_pmf = n * math.log1p(-p) + np.concatenate(([0.0], np.cumsum(steps)))
    return np.minimum(np.logaddexp.accumulate(log_pmf), 0.0)


def binomial_cdf(k: int, n: int, p: float) -> float:
    """``P(X <= k)`` for ``X ~ Binomial(n, p)``."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    return float(math.exp(_binomial_log_cdf(k, n, p)[k]))


def _hoeffding(risk: float, n: int, alpha: float) -> float:
    """``exp(-n h(min(risk, alpha), alpha))``, ``h`` the Bernoulli KL divergence."""
    r = min(risk, alpha)
    kl = (r * math.log(r / alpha) if r > 0 else 0.0) + (1 - r) * math.log((1 - r) / (1 - alpha))
    return math.exp(-n * kl)


def hoeffding_bentkus_p_value(risk: float, n: int, alpha: float) -> float:
    """A valid p-value for ``H0: R > alpha`` from the empirical risk of ``n`` losses in
    [0, 1]: the smaller of Hoeffding's bound and ``e * P(Binomial(n, alpha) <=
    ceil(n * risk))`` (Bentkus), capped at 1. Both bound the same tail probability, so
    their minimum does too."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidInputError("n", n, "give the number of calibration items, 1 or more")
    if not 0 <= risk <= 1:
        raise InvalidInputError("risk", risk, "give an empirical risk from 0 to 1")
    alpha = _level("alpha", alpha)
    k = math.ceil(n * risk - 1e-9)  # an integer count of losses must not round up
    return min(1.0, _hoeffding(risk, n, alpha), math.e * binomial_cdf(k, n, alpha))


# -- validation ---------------------------------------------------------------------------


def _level(field: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise InvalidInputError(field, value, "give a number strictly between 0 and 1")
    return float(value)


def _scored(
    scores: ArrayLike, labels: ArrayLike, label_field: str
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError("scores", scores, "give a list of numbers") from None
    y = np.asarray(labels)
    if s.ndim != 1 or s.size == 0:
        raise InvalidInputError("scores", scores, "give a non-empty list of numbers")
    if not np.isfinite(s).all():
        bad = s[~np.isfinite(s)][0].item()
        raise InvalidInputError("scores", bad, "drop or impute scores that are NaN or infinite")
    if y.shape != s.shape:
        raise InvalidInputError(
            label_field, y.shape, f"give one 0/1 label per score ({s.size} scores)"
        )
    if y.dtype.kind not in "biuf" or not np.isin(y, (0, 1)).all():
        raise InvalidInputError(label_field, sorted(set(y.tolist()))[:10], "use 0/1 labels")
    return s, y.astype(np.int64)


# -- Learn then Test ----------------------------------------------------------------------


def risk_controlled_threshold(
    scores: ArrayLike,
    correct: ArrayLike,
    *,
    alpha: float,
    delta: float,
    grid: ArrayLike | None = None,
) -> RiskThreshold:
    """The lowest threshold whose answered-and-wrong rate is certified to be at most
    ``alpha`` with probability at least ``1 - delta`` (Learn then Test).

    ``scores`` are confidences (higher = more likely right); ``correct`` is 1 where the
    item's answer is right. Candidates are ``grid`` or, by default, the distinct scores:
    between two of them the empirical risk and so the p-value do not change, so this is
    the same as testing every real threshold. They are tested from the highest down;
    the search stops at the first whose p-value exceeds ``delta``. Never raises for
    data that no threshold can control: ``controlled`` is then False.
    """
    a, d = _level("alpha", alpha), _level("delta", delta)
    s, y = _scored(scores, correct, "correct")
    n = s.size
    if grid is None:
        candidates = np.unique(s)[::-1]
    else:
        candidates = np.unique(np.asarray(grid, dtype=np.float64))[::-1]
        if candidates.size == 0 or not np.isfinite(candidates).all():
            raise InvalidInputError("grid", grid, "give a non-empty list of finite thresholds")
    wrong = np.sort(s[y == 0])
    answered_sorted = np.sort(s)
    # counts answered-and-wrong / answered at each candidate: items with score >= t
    losses = wrong.size - np.searchsorted(wrong, candidates, side="left")
    answered = n - np.searchsorted(answered_sorted, candidates, side="left")
    log_cdf = _binomial_log_cdf(int(losses.max()), n, a)
    best: int | None = None
    p_first = p_best = 1.0
    for i, k in enumerate(losses.tolist()):
        risk = k / n
        bentkus = math.e * math.exp(float(log_cdf[k]))
        p = min(1.0, _hoeffding(risk, n, a), bentkus)
        if i == 0:
            p_first = p
        if p > d:
            break
        best = i
        p_best = p
    if best is None:
        return RiskThreshold(None, a, d, n, 0.0, 0.0, p_first, False)
    return RiskThreshold(
        threshold=float(candidates[best]),
        alpha=a,
        delta=d,
        n=n,
        empirical_risk=int(losses[best]) / n,
        coverage=int(answered[best]) / n,
        p_value=p_best,
        controlled=True,
    )


# -- the empirical search -----------------------------------------------------------------


def best_threshold(
    scores: ArrayLike,
    labels: ArrayLike,
    *,
    objective: str = "f1",
    min_precision: float | None = None,
    candidates: ArrayLike | None = None,
) -> ThresholdChoice:
    """The candidate threshold (predict positive when ``score >= t``) with the best
    ``objective`` among those whose precision reaches ``min_precision``.

    Candidates are ``candidates`` or the 10th, 12th, ..., 94th percentiles of the
    scores. Ties go to the higher threshold, the more conservative one. When no
    candidate reaches the floor, the one with the highest precision is returned with
    ``met_floor=False``, so a caller can see the floor was not met instead of an error.
    """
    if objective not in OBJECTIVES:
        raise InvalidInputError(
            "objective", objective, f"choose one of: {', '.join(OBJECTIVES)}", problem="is unknown"
        )
    if min_precision is not None and (
        isinstance(min_precision, bool)
        or not isinstance(min_precision, int | float)
        or not 0 <= min_precision <= 1
    ):
        raise InvalidInputError("min_precision", min_precision, "give a number from 0 to 1")
    s, y = _scored(scores, labels, "labels")
    if candidates is None:
        grid = np.percentile(s, _DEFAULT_PERCENTILES)
    else:
        grid = np.asarray(candidates, dtype=np.float64)
        if grid.ndim != 1 or grid.size == 0 or not np.isfinite(grid).all():
            raise InvalidInputError(
                "candidates", candidates, "give a non-empty list of finite thresholds"
            )
    rows = [(float(t), *precision_recall_f1(y, s, float(t))) for t in np.unique(grid)]
    which = {"precision": 1, "recall": 2, "f1": 3}[objective]
    floor = -1.0 if min_precision is None else float(min_precision)
    eligible = [r for r in rows if r[1] >= floor]
    met = bool(eligible)
    # max() keeps the first of equals; scanning from the highest threshold prefers it
    pick = (
        max(reversed(eligible), key=lambda r: r[which])
        if met
        else max(reversed(rows), key=lambda r: r[1])
    )
    return ThresholdChoice(
        threshold=pick[0],
        precision=pick[1],
        recall=pick[2],
        f1=pick[3],
        objective=objective,
        min_precision=None if min_precision is None else float(min_precision),
        met_floor=met,
        n=int(s.size),
    )
