"""Score maps (assay.calibration.maps) against their defining properties and scikit-learn."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from assay.calibration import maps
from assay.calibration.maps import (
    IsotonicMap,
    PlattMap,
    fit_map,
    fit_metrics,
    map_from_dict,
    platt_loss,
    platt_targets,
)
from assay.errors import InvalidInputError
from assay.metrics import brier_score

# half the scores on a coarse grid, so that tied scores (pooled first) are common
_score = st.one_of(
    st.integers(min_value=0, max_value=20).map(lambda k: k / 20),
    st.floats(min_value=0.0, max_value=1.0),
)
_probe = st.floats(min_value=-0.5, max_value=1.5)


@st.composite
def labelled(draw: st.DrawFn, per_class: int = 1) -> tuple[list[float], list[int]]:
    """Scores with 0/1 labels, at least ``per_class`` of each class, in any order."""
    pairs = draw(st.lists(st.tuples(_score, st.just(1)), min_size=per_class, max_size=30))
    pairs += draw(st.lists(st.tuples(_score, st.just(0)), min_size=per_class, max_size=30))
    pairs = draw(st.permutations(pairs))
    return [s for s, _ in pairs], [y for _, y in pairs]


def _logit(s: np.ndarray, eps: float) -> np.ndarray:
    c = np.clip(s, eps, 1 - eps)
    return np.log(c / (1 - c))


# --- isotonic ---------------------------------------------------------------------


@given(labelled(), st.lists(_probe, min_size=1, max_size=40))
def test_isotonic_is_monotone_and_within_unit_interval(
    data: tuple[list[float], list[int]], probes: list[float]
) -> None:
    fitted = IsotonicMap.fit(*data)
    out = fitted(np.sort(np.r_[probes, data[0]]))
    assert (np.diff(out) >= 0).all()
    assert ((out >= 0) & (out <= 1)).all()


@given(labelled())
def test_isotonic_brier_beats_the_raw_score_and_the_base_rate(
    data: tuple[list[float], list[int]],
) -> None:
    # Both are non-decreasing functions of the score, and isotonic regression is the
    # least-squares fit among all of them.
    scores, labels = data
    after = brier_score(labels, IsotonicMap.fit(scores, labels)(scores))
    assert after <= brier_score(labels, scores) + 1e-12
    assert after <= brier_score(labels, np.full(len(labels), np.mean(labels))) + 1e-12


@settings(deadline=None)
@given(labelled(), st.lists(_probe, min_size=1, max_size=40))
def test_isotonic_agrees_with_scikit_learn(
    data: tuple[list[float], list[int]], probes: list[float]
) -> None:
    scores, labels = data
    # scikit-learn pools scores closer than 1e-15 as ties; we pool only equal ones
    distinct = np.unique(scores)
    assume(len(distinct) < 2 or np.diff(distinct).min() > 1e-9)
    ours = IsotonicMap.fit(scores, labels)
    theirs = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(scores, labels)
    at = np.r_[probes, scores, 0.0, 1.0]
    np.testing.assert_allclose(ours(at), theirs.predict(at), rtol=0, atol=1e-9)


def test_isotonic_pools_ties_then_violators() -> None:
    tied = IsotonicMap.fit([0.5, 0.5, 0.5, 0.5], [1, 0, 1, 1])
    assert tied(0.5) == 0.75 and tied(0.0) == 0.75 and tied(1.0) == 0.75
    fitted = IsotonicMap.fit([0.1, 0.2, 0.3, 0.3], [1, 0, 1, 1])
    assert fitted.x == (0.1, 0.2, 0.3) and fitted.y == (0.5, 0.5, 1.0)
    assert fitted(0.25) == pytest.approx(0.75)  # linear between the fitted points
    assert fitted(0.05) == 0.5 and fitted(0.9) == 1.0  # constant outside them


def test_isotonic_drops_points_inside_flat_runs() -> None:
    fitted = IsotonicMap.fit([0.1, 0.2, 0.3, 0.4, 0.5], [0, 0, 0, 0, 1])
    assert fitted.x == (0.1, 0.4, 0.5) and fitted.y == (0.0, 0.0, 1.0)


# --- Platt ------------------------------------------------------------------------


def test_platt_targets_are_smoothed() -> None:
    t = platt_targets(np.array([1.0, 1.0, 0.0]))
    assert t.tolist() == [3 / 4, 3 / 4, 1 / 3]


@settings(deadline=None)
@given(labelled(per_class=2))
def test_platt_no_small_perturbation_lowers_the_loss(data: tuple[list[float], list[int]]) -> None:
    scores, labels = data
    fitted = PlattMap.fit(scores, labels)
    f = _logit(np.asarray(scores), fitted.eps)
    t = platt_targets(np.asarray(labels, dtype=np.float64))
    best = platt_loss(np.array([fitted.a, fitted.b]), f, t)
    for delta in (1e-2, 1e-4):
        for da, db in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
            moved = np.array([fitted.a + da * delta, fitted.b + db * delta])
            assert platt_loss(moved, f, t) >= best - 1e-12


@given(labelled(per_class=2), st.lists(_probe, min_size=2, max_size=40))
def test_platt_is_monotone_and_within_unit_interval(
    data: tuple[list[float], list[int]], probes: list[float]
) -> None:
    fitted = PlattMap.fit(*data)
    out = fitted(np.sort(probes))
    steps = np.diff(out) if fitted.a >= 0 else -np.diff(out)
    assert (steps >= 0).all()
    assert ((out >= 0) & (out <= 1)).all()


def test_platt_fits_a_miscalibrated_score() -> None:
    rng = np.random.default_rng(7)
    scores = rng.random(2000)
    labels = (rng.random(2000) < scores**3).astype(int)  # the raw score is overconfident
    fitted = PlattMap.fit(scores, labels)
    assert fitted.a > 1  # the sigmoid steepens the logit to pull scores down
    metrics = fit_metrics(fitted, scores, labels)
    assert metrics["brier_after"] < metrics["brier_before"]
    assert metrics["ece_after"] < metrics["ece_before"]
    assert PlattMap.fit(scores, labels) == fitted  # deterministic


def test_platt_separable_and_constant_scores_still_fit() -> None:
    separable = PlattMap.fit([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])
    assert math.isfinite(separable.a) and separable.a > 0
    constant = PlattMap.fit([0.5] * 4, [0, 0, 1, 1])
    assert constant(0.5) == pytest.approx(0.5)


def test_platt_that_does_not_converge_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(maps, "_MAX_NEWTON_STEPS", 0)
    with pytest.raises(InvalidInputError, match="did not converge") as err:
        PlattMap.fit([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])
    assert "isotonic" in str(err.value)


# --- both -------------------------------------------------------------------------


@given(labelled(per_class=2), st.sampled_from(maps.METHODS), st.lists(_probe, max_size=20))
def test_maps_round_trip_through_json(
    data: tuple[list[float], list[int]], method: str, probes: list[float]
) -> None:
    fitted = fit_map(method, *data)
    stored = json.loads(json.dumps(fitted.to_dict()))
    rebuilt = map_from_dict(stored)
    assert rebuilt == fitted and rebuilt.method == method
    assert rebuilt.to_dict() == fitted.to_dict()
    assert np.array_equal(rebuilt(np.asarray(probes)), fitted(np.asarray(probes)))


@pytest.mark.parametrize("method", maps.METHODS)
def test_a_float_gives_a_float_and_an_array_an_array(method: str) -> None:
    fitted = fit_map(method, [0.1, 0.3, 0.6, 0.9], [0, 1, 0, 1])
    assert type(fitted(0.4)) is float
    assert type(fitted(np.float64(0.4))) is float
    out = fitted([0.2, 0.7])
    assert isinstance(out, np.ndarray) and out.shape == (2,)
    with pytest.raises(InvalidInputError, match="nan"):
        fitted(float("nan"))


@pytest.mark.parametrize(
    ("method", "scores", "labels", "field", "shown"),
    [
        ("isotonic", [0.1, 0.2], [0, 1, 1], "labels", "(3,) labels for (2,) scores"),
        ("isotonic", [0.1, 0.2], [0, 2], "labels", "2"),
        ("platt", [0.1, 0.2], [0, 0.5], "labels", "0.5"),
        ("isotonic", [0.1, float("nan")], [0, 1], "scores", "nan"),
        ("platt", [0.1, 1.5, 0.2, 0.3], [0, 1, 0, 1], "scores", "1.5"),
        ("isotonic", [-0.25, 0.5], [0, 1], "scores", "-0.25"),
        ("isotonic", [0.1, 0.2], [1, 1], "labels", "2 positive, 0 negative"),
        ("platt", [0.1, 0.2, 0.3], [0, 0, 1], "labels", "1 positive, 2 negative"),
        ("isotonic", [], [], "labels", "0 positive, 0 negative"),
        ("sigmoid", [0.1, 0.2], [0, 1], "method", "sigmoid"),
    ],
)
def test_bad_input_names_the_value(
    method: str, scores: list[float], labels: list[Any], field: str, shown: str
) -> None:
    with pytest.raises(InvalidInputError) as err:
        fit_map(method, scores, labels)
    assert err.value.field == field
    assert shown in str(err.value)


@pytest.mark.parametrize(
    "d",
    [
        {"method": "isotonic", "x": [0.2, 0.1], "y": [0.0, 1.0]},
        {"method": "isotonic", "x": [0.1, 0.2], "y": [1.0, 0.0]},
        {"method": "isotonic", "x": [0.1, 0.2], "y": [0.0]},
        {"method": "isotonic", "x": [], "y": []},
        {"method": "platt", "a": 1.0, "b": float("nan"), "eps": 1e-7},
        {"method": "platt", "a": 1.0, "b": 0.0},
        {"method": "platt", "a": "1", "b": 0.0, "eps": 1e-7},
        {"method": "beta", "a": 1.0},
    ],
)
def test_map_from_dict_refuses_a_malformed_map(d: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError, match="map"):
        map_from_dict(d)


def test_fit_metrics_report_brier_and_ece_before_and_after() -> None:
    scores, labels = [0.9, 0.8, 0.7, 0.2, 0.6, 0.1], [1, 0, 1, 0, 0, 0]
    metrics = fit_metrics(IsotonicMap.fit(scores, labels), scores, labels)
    assert set(metrics) == {"brier_before", "brier_after", "ece_before", "ece_after"}
    assert metrics["brier_before"] == pytest.approx(brier_score(labels, scores))
    assert metrics["brier_after"] <= metrics["brier_before"]


def test_isotonic_knots_closer_than_a_float_slope_allows_stay_monotone() -> None:
    """Hypothesis found scores a subnormal float apart (5e-324): np.interp's slope
    between two such knots overflows, and the map read 1.0 then 0.8."""
    fitted = IsotonicMap.fit([0.0, 1e-320, 1e-320, 0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1, 1, 1, 0])
    out = fitted(np.array([0.0, 5e-324, 1e-320, 0.5]))
    assert (np.diff(out) >= 0).all() and ((out >= 0) & (out <= 1)).all()


def test_isotonic_knots_stay_where_the_scores_are() -> None:
    """Hypothesis found the knot of a score 6e-8 moved by rounding: the map read 0.999994
    at that score where scikit-learn reads 1.0."""
    fitted = IsotonicMap.fit([5.960464477539063e-08, 0.0], [1, 0])
    assert fitted(5.960464477539063e-08) == 1.0 and fitted(0.0) == 0.0
