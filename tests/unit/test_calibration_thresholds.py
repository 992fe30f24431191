"""Thresholds from a labeled set (assay.calibration.thresholds): Learn then Test with the
Hoeffding-Bentkus p-value (B3), and the empirical precision-floor search (R6)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.calibration.thresholds import (
    LTT_METHOD,
    RiskThreshold,
    ThresholdChoice,
    best_threshold,
    binomial_cdf,
    hoeffding_bentkus_p_value,
    risk_controlled_threshold,
)
from assay.errors import InvalidInputError
from assay.metrics import precision_recall_f1


def _exact_cdf(k: int, n: int, p: Fraction) -> float:
    return float(sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1)))


def _hb_by_hand(k: int, n: int, alpha: float) -> float:
    r = min(k / n, alpha)
    kl = (r * math.log(r / alpha) if r else 0.0) + (1 - r) * math.log((1 - r) / (1 - alpha))
    return min(1.0, math.exp(-n * kl), math.e * _exact_cdf(k, n, Fraction(alpha)))


def _ltt_brute_force(
    scores: list[float], correct: list[int], alpha: float, delta: float
) -> float | None:
    """Every distinct score from the top down, one p-value each, stop at the first failure."""
    n, kept = len(scores), None
    for t in sorted(set(scores), reverse=True):
        losses = sum(1 for s, c in zip(scores, correct, strict=True) if s >= t and c == 0)
        if hoeffding_bentkus_p_value(losses / n, n, alpha) > delta:
            break
        kept = t
    return kept


# -- the binomial CDF and the p-value -------------------------------------------------------


@pytest.mark.parametrize(("k", "n", "p"), [(0, 1, "1/2"), (1, 10, "1/5"), (3, 7, "9/10")])
def test_binomial_cdf_matches_the_exact_sum(k: int, n: int, p: str) -> None:
    assert binomial_cdf(k, n, float(Fraction(p))) == pytest.approx(
        _exact_cdf(k, n, Fraction(p)), rel=1e-12
    )


def test_binomial_cdf_edges() -> None:
    assert binomial_cdf(-1, 5, 0.3) == 0.0
    assert binomial_cdf(5, 5, 0.3) == 1.0
    assert binomial_cdf(2, 5, 0.0) == 1.0
    assert binomial_cdf(2, 5, 1.0) == 0.0
    assert binomial_cdf(0, 100_000, 0.5) == 0.0  # underflows to 0, never NaN


def test_binomial_cdf_against_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(4)
    for _ in range(300):
        n = int(rng.integers(1, 5000))
        k, p = int(rng.integers(0, n + 1)), float(rng.uniform(0.001, 0.999))
        expected = float(stats.binom.cdf(k, n, p))
        assert binomial_cdf(k, n, p) == pytest.approx(expected, rel=1e-8, abs=1e-300)


@pytest.mark.parametrize(("k", "n", "alpha"), [(0, 10, 0.2), (1, 10, 0.2), (3, 100, 0.1)])
def test_hoeffding_bentkus_known_values(k: int, n: int, alpha: float) -> None:
    assert hoeffding_bentkus_p_value(k / n, n, alpha) == pytest.approx(_hb_by_hand(k, n, alpha))


def test_hoeffding_bentkus_takes_the_smaller_bound() -> None:
    # n=10, alpha=0.2, no loss: Hoeffding 0.8^10 beats Bentkus e * 0.8^10
    assert hoeffding_bentkus_p_value(0.0, 10, 0.2) == pytest.approx(0.8**10)
    # many items at a risk just below alpha: the binomial tail is the sharper one
    p = hoeffding_bentkus_p_value(0.05, 2000, 0.08)
    assert p == pytest.approx(math.e * binomial_cdf(100, 2000, 0.08))
    # at or above alpha nothing can be rejected
    assert hoeffding_bentkus_p_value(0.2, 50, 0.2) == 1.0
    assert hoeffding_bentkus_p_value(0.5, 50, 0.2) == 1.0


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 400),
    k1=st.integers(0, 400),
    k2=st.integers(0, 400),
    alpha=st.floats(0.01, 0.5),
)
def test_p_value_rises_with_the_empirical_risk(n: int, k1: int, k2: int, alpha: float) -> None:
    lo, hi = sorted((min(k1, n), min(k2, n)))
    assert hoeffding_bentkus_p_value(lo / n, n, alpha) <= hoeffding_bentkus_p_value(
        hi / n, n, alpha
    )


@settings(max_examples=200, deadline=None)
@given(
    losses=st.integers(0, 20),
    size=st.integers(1, 50),
    more=st.integers(1, 20),
    alpha=st.floats(0.01, 0.5),
)
def test_p_value_falls_with_n_at_the_same_risk(
    losses: int, size: int, more: int, alpha: float
) -> None:
    """The same share of losses over more items is stronger evidence (whole counts only:
    ``ceil(n * risk)`` makes the Bentkus bound jump between them)."""
    losses = min(losses, size)
    risk = losses / size
    small = hoeffding_bentkus_p_value(risk, size, alpha)
    large = hoeffding_bentkus_p_value(risk, size * (1 + more), alpha)
    assert large <= small + 1e-12


@pytest.mark.parametrize(("alpha", "n"), [(0.05, 200), (0.1, 500), (0.2, 60)])
def test_p_value_is_valid_at_the_boundary(alpha: float, n: int) -> None:
    """Under R = alpha exactly, P(p <= delta) <= delta (seeded simulation, 3 SE allowance)."""
    rng = np.random.default_rng(17)
    draws = 20_000
    counts = rng.binomial(n, alpha, size=draws)
    p_values = {k: hoeffding_bentkus_p_value(k / n, n, alpha) for k in set(counts.tolist())}
    for delta in (0.05, 0.1, 0.2):
        rate = float(np.mean([p_values[k] <= delta for k in counts.tolist()]))
        assert rate <= delta + 3 * math.sqrt(delta * (1 - delta) / draws)


# -- Learn then Test --------------------------------------------------------------------------


def test_all_correct_answers_everything() -> None:
    scores = np.linspace(0.0, 1.0, 100)
    result = risk_controlled_threshold(scores, [1] * 100, alpha=0.1, delta=0.1)
    assert result.controlled and result.threshold == 0.0 and result.coverage == 1.0
    assert result.empirical_risk == 0.0
    assert result.p_value == pytest.approx(0.9**100)
    assert result.method == LTT_METHOD


def test_known_case_stops_where_the_wrong_answers_start() -> None:
    # 200 items; the 40 lowest-scored ones are wrong; alpha 0.05 allows a few of them
    scores = [i / 200 for i in range(200)]
    correct = [0] * 40 + [1] * 160
    result = risk_controlled_threshold(scores, correct, alpha=0.05, delta=0.1)
    expected = _ltt_brute_force(scores, correct, 0.05, 0.1)
    assert expected is not None and 0.0 < expected < 40 / 200
    assert result.threshold == expected
    losses = sum(1 for s, c in zip(scores, correct, strict=True) if s >= expected and c == 0)
    assert result.empirical_risk == losses / 200
    assert result.coverage == sum(s >= expected for s in scores) / 200
    assert result.p_value <= 0.1 < hoeffding_bentkus_p_value((losses + 1) / 200, 200, 0.05)


def test_too_few_items_control_nothing() -> None:
    # five items, all right: 0.95^5 = 0.77 is no evidence that the risk is below 5%
    result = risk_controlled_threshold([0.9, 0.8, 0.7, 0.6, 0.5], [1] * 5, alpha=0.05, delta=0.1)
    assert not result.controlled and result.threshold is None
    assert result.coverage == 0.0 and result.empirical_risk == 0.0
    assert result.p_value == pytest.approx(0.95**5)
    assert result.to_dict()["threshold"] is None


def test_wrong_at_the_top_controls_nothing() -> None:
    scores = [1.0] * 30 + [0.5] * 70
    result = risk_controlled_threshold(scores, [0] * 30 + [1] * 70, alpha=0.1, delta=0.1)
    assert not result.controlled and result.p_value == 1.0


def test_a_given_grid_is_tested_from_the_top() -> None:
    scores = [i / 100 for i in range(100)]
    correct = [0] * 20 + [1] * 80
    result = risk_controlled_threshold(
        scores, correct, alpha=0.1, delta=0.1, grid=[0.0, 0.25, 0.5, 0.75]
    )
    assert result.threshold in (0.0, 0.25, 0.5, 0.75)
    assert result.threshold == 0.25  # risk 0 there; at 0.0 it is 0.2 > alpha


@st.composite
def _calibration_sets(draw: st.DrawFn) -> tuple[list[float], list[int]]:
    n = draw(st.integers(1, 300))
    scores = draw(st.lists(st.integers(0, 20).map(lambda k: k / 20), min_size=n, max_size=n))
    correct = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    return scores, correct


@settings(max_examples=150, deadline=None)
@given(
    data=_calibration_sets(),
    a1=st.floats(0.01, 0.5),
    a2=st.floats(0.01, 0.5),
    delta=st.floats(0.01, 0.5),
)
def test_threshold_matches_brute_force_and_falls_with_alpha(
    data: tuple[list[float], list[int]], a1: float, a2: float, delta: float
) -> None:
    scores, correct = data
    lo, hi = sorted((a1, a2))
    strict = risk_controlled_threshold(scores, correct, alpha=lo, delta=delta)
    loose = risk_controlled_threshold(scores, correct, alpha=hi, delta=delta)
    assert strict.threshold == _ltt_brute_force(scores, correct, lo, delta)
    if strict.controlled:
        assert loose.controlled
        assert loose.threshold is not None and strict.threshold is not None
        assert loose.threshold <= strict.threshold
        assert loose.coverage >= strict.coverage


def test_risk_threshold_to_dict() -> None:
    result = risk_controlled_threshold([0.5] * 100, [1] * 100, alpha=0.1, delta=0.05)
    assert isinstance(result, RiskThreshold)
    assert result.to_dict() == {
        "threshold": 0.5,
        "alpha": 0.1,
        "delta": 0.05,
        "n": 100,
        "empirical_risk": 0.0,
        "coverage": 1.0,
        "p_value": pytest.approx(0.9**100),
        "controlled": True,
        "method": LTT_METHOD,
    }


# -- the empirical search ---------------------------------------------------------------------


def _scan(
    scores: list[float], labels: list[int], objective: str, floor: float | None
) -> tuple[float, bool]:
    grid = sorted(set(np.percentile(scores, list(range(10, 95, 2))).tolist()))
    rows = [(t, *precision_recall_f1(labels, scores, t)) for t in grid]
    at = {"precision": 1, "recall": 2, "f1": 3}[objective]
    ok = [r for r in rows if floor is None or r[1] >= floor]
    if ok:
        return max(ok, key=lambda r: (r[at], r[0]))[0], True
    return max(rows, key=lambda r: (r[1], r[0]))[0], False


def test_best_threshold_known_case() -> None:
    # the top 40 of 100 are the positives; the 60th percentile, 0.594, separates them
    scores = [i / 100 for i in range(100)]
    labels = [int(s >= 0.6) for s in scores]
    choice = best_threshold(scores, labels)
    assert isinstance(choice, ThresholdChoice)
    assert choice.threshold == pytest.approx(0.594)
    assert (choice.precision, choice.recall, choice.f1) == (1.0, 1.0, 1.0)
    assert choice.met_floor and choice.n == 100 and choice.objective == "f1"


def test_best_threshold_precision_floor_not_met() -> None:
    choice = best_threshold([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 0], min_precision=0.9)
    assert not choice.met_floor
    assert choice.to_dict()["min_precision"] == 0.9


def test_best_threshold_given_candidates_and_ties_go_up() -> None:
    choice = best_threshold(
        [0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1], objective="precision", candidates=[0.3, 0.5, 0.85]
    )
    assert choice.threshold == 0.85 and choice.precision == 1.0


@settings(max_examples=150, deadline=None)
@given(
    data=_calibration_sets(),
    objective=st.sampled_from(["f1", "precision", "recall"]),
    floor=st.none() | st.floats(0.0, 1.0),
)
def test_best_threshold_agrees_with_a_brute_force_scan(
    data: tuple[list[float], list[int]], objective: str, floor: float | None
) -> None:
    scores, labels = data
    choice = best_threshold(scores, labels, objective=objective, min_precision=floor)
    threshold, met = _scan(scores, labels, objective, floor)
    assert (choice.threshold, choice.met_floor) == (threshold, met)
    assert (choice.precision, choice.recall, choice.f1) == precision_recall_f1(
        labels, scores, threshold
    )


# -- input errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field", "value"),
    [
        ({"alpha": 0.0}, "alpha", 0.0),
        ({"alpha": 1.5}, "alpha", 1.5),
        ({"delta": True}, "delta", True),
        ({"delta": 1}, "delta", 1),
        ({"scores": [0.1, float("nan")]}, "scores", "nan"),
        ({"scores": [0.1, float("inf")]}, "scores", math.inf),
        ({"scores": []}, "scores", []),
        ({"correct": [1, 2]}, "correct", [1, 2]),
        ({"correct": [1]}, "correct", (1,)),
        ({"grid": []}, "grid", []),
    ],
)
def test_risk_controlled_threshold_rejects_bad_input(
    kwargs: dict[str, object], field: str, value: object
) -> None:
    args: dict[str, object] = {"scores": [0.1, 0.9], "correct": [1, 0], "alpha": 0.1}
    args |= {"delta": 0.1} | kwargs
    with pytest.raises(InvalidInputError) as caught:
        risk_controlled_threshold(**args)  # type: ignore[arg-type]
    assert caught.value.field == field
    if value == "nan":
        assert math.isnan(caught.value.value)
    else:
        assert caught.value.value == value
    assert field in str(caught.value)


@pytest.mark.parametrize(
    ("kwargs", "field", "value"),
    [
        ({"objective": "accuracy"}, "objective", "accuracy"),
        ({"min_precision": 1.5}, "min_precision", 1.5),
        ({"labels": ["yes", "no"]}, "labels", ["no", "yes"]),
        ({"candidates": []}, "candidates", []),
    ],
)
def test_best_threshold_rejects_bad_input(
    kwargs: dict[str, object], field: str, value: object
) -> None:
    args: dict[str, object] = {"scores": [0.1, 0.9], "labels": [0, 1]} | kwargs
    with pytest.raises(InvalidInputError) as caught:
        best_threshold(**args)  # type: ignore[arg-type]
    assert (caught.value.field, caught.value.value) == (field, value)


@pytest.mark.parametrize(
    ("risk", "n", "alpha", "field"),
    [(0.1, 0, 0.1, "n"), (1.2, 10, 0.1, "risk"), (0.1, 10, 1.0, "alpha")],
)
def test_p_value_rejects_bad_input(risk: float, n: int, alpha: float, field: str) -> None:
    with pytest.raises(InvalidInputError, match=field):
        hoeffding_bentkus_p_value(risk, n, alpha)
