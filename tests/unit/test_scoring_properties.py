"""Property tests of the scoring math (E2, E4): bounds, monotonicity, half-life."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from assay import InvalidInputError, SubScores, Weights, composite_score, freshness_score
from assay.scoring.corroboration import aggregate_confidence
from assay.scoring.evidence import source_score

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def weights(draw: st.DrawFn) -> Weights:
    a = draw(unit)
    b = draw(st.floats(min_value=0.0, max_value=1.0 - a))
    return Weights(a, b, 1.0 - a - b)


@given(weights(), unit, unit, unit)
def test_e2_composite_stays_in_unit_interval(w: Weights, s: float, r: float, f: float) -> None:
    assert 0.0 <= composite_score(SubScores(s, r, f), w) <= 1.0


@given(weights(), unit, unit, unit, unit, st.sampled_from(["similarity", "source", "freshness"]))
def test_e2_composite_never_falls_when_a_sub_score_rises(
    w: Weights, s: float, r: float, f: float, higher: float, factor: str
) -> None:
    base = {"similarity": s, "source": r, "freshness": f}
    assume(higher >= base[factor])
    raised = base | {factor: higher}
    assert composite_score(SubScores(**raised), w) >= composite_score(SubScores(**base), w)


@given(unit, unit, unit)
def test_e2_composite_rises_strictly_with_a_weighted_factor(s: float, r: float, f: float) -> None:
    w = Weights(0.4, 0.35, 0.25)
    assume(s <= 0.9)
    assert composite_score(SubScores(s + 0.1, r, f), w) > composite_score(SubScores(s, r, f), w)


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_e2_weights_that_do_not_sum_to_one_are_refused(a: float, b: float, c: float) -> None:
    assume(abs(a + b + c - 1.0) > 1e-6)
    with pytest.raises(InvalidInputError, match="sum to"):
        Weights(a, b, c)


def test_e4_freshness_halves_in_about_139_days() -> None:
    assert freshness_score(0, 0.005) == 1.0
    assert freshness_score(139, 0.005) == pytest.approx(0.5, abs=0.002)


@given(st.integers(0, 5000), st.floats(0.0005, 0.05))
def test_e4_freshness_halves_every_half_life(age: int, rate: float) -> None:
    half_life = math.log(2) / rate
    assert freshness_score(age + half_life, rate) == pytest.approx(freshness_score(age, rate) / 2)


@given(st.integers(0, 20_000), st.integers(0, 20_000), st.floats(0, 0.1))
def test_e4_freshness_is_in_unit_interval_and_decreases_with_age(
    a: int, b: int, rate: float
) -> None:
    young, old = sorted((a, b))
    assert 0.0 <= freshness_score(old, rate) <= freshness_score(young, rate) <= 1.0


@given(unit, st.floats(-1, 1), unit)
def test_e9_source_score_is_clamped_to_unit_interval(
    r: float, adjustment: float, penalty: float
) -> None:
    assert 0.0 <= source_score(r, adjustment, penalty) <= 1.0


@given(st.lists(unit, min_size=1, max_size=6), st.floats(0, 1))
def test_e10_aggregate_is_bounded_by_best_item_and_one(cs: list[float], d: float) -> None:
    agg = aggregate_confidence(cs, d)
    assert max(cs) - 1e-6 <= agg <= 1.0


@given(st.lists(unit, min_size=1, max_size=6), unit, st.floats(0, 1))
def test_e10_another_agreeing_source_never_lowers_the_aggregate(
    cs: list[float], extra: float, d: float
) -> None:
    assert aggregate_confidence([*cs, extra], d) >= aggregate_confidence(cs, d)


def test_e10_aggregate_rule_known_values() -> None:
    assert aggregate_confidence([0.8, 0.8], 0.0) == pytest.approx(0.96)  # plain noisy-OR
    assert aggregate_confidence([0.8, 0.8], 1.0) == pytest.approx(0.8)  # fully dependent
    assert aggregate_confidence([0.8, 0.8], 0.5) == pytest.approx(1 - 0.2 * 0.6)
