"""Ranking and classification metrics (assay.metrics) against their defining properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.errors import InvalidInputError
from assay.metrics import (
    auprc,
    aurc,
    auroc,
    balanced_accuracy,
    brier_score,
    ece_noise_floor,
    expected_calibration_error,
    precision_recall_f1,
    reliability_curve,
    risk_coverage_curve,
    selective_accuracy,
)

# scores drawn from a small grid so that ties are common
_score = st.integers(min_value=-5, max_value=5).map(lambda k: k / 2)


@st.composite
def _labelled_scores(draw: st.DrawFn) -> tuple[list[int], list[float]]:
    """Labels with at least one positive and one negative, and one score per label."""
    labels = draw(st.lists(st.sampled_from([0, 1]), min_size=2, max_size=40))
    labels[draw(st.integers(0, len(labels) - 1))] = 0
    labels[(labels.index(0) + 1) % len(labels)] = 1
    scores = draw(st.lists(_score, min_size=len(labels), max_size=len(labels)))
    return labels, scores


def _pairwise(labels: list[int], scores: list[float]) -> float:
    """P(positive outranks negative) by brute force over all pairs, ties counting 1/2."""
    pos = [s for y, s in zip(labels, scores, strict=True) if y == 1]
    neg = [s for y, s in zip(labels, scores, strict=True) if y == 0]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


@settings(max_examples=150, deadline=None)
@given(_labelled_scores())
def test_auroc_equals_the_pairwise_count_with_half_ties(
    data: tuple[list[int], list[float]],
) -> None:
    labels, scores = data
    assert auroc(labels, scores) == pytest.approx(_pairwise(labels, scores), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(_labelled_scores())
def test_auroc_is_invariant_under_strictly_increasing_transforms(
    data: tuple[list[int], list[float]],
) -> None:
    labels, scores = data
    s = np.asarray(scores)
    expected = auroc(labels, s)
    for transformed in (np.exp(s), 3.0 * s - 7.0, np.arctan(s), s**3):
        assert auroc(labels, transformed) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(_labelled_scores())
def test_auroc_of_negated_scores_is_one_minus_auroc(data: tuple[list[int], list[float]]) -> None:
    labels, scores = data
    s = np.asarray(scores)
    assert auroc(labels, -s) == pytest.approx(1.0 - auroc(labels, s), abs=1e-12)
    assert 0.0 <= auroc(labels, s) <= 1.0


def test_auroc_known_values() -> None:
    assert auroc([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == 1.0
    assert auroc([0, 0, 1, 1], [0.9, 0.8, 0.2, 0.1]) == 0.0
    assert auroc([0, 1], [0.5, 0.5]) == 0.5
    assert auroc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75  # the scikit-learn example
    assert auroc(np.array([True, False]), np.array([1, 0])) == 1.0  # bool labels, int scores
    assert isinstance(auroc([0, 1], [0.0, 1.0]), float)


@pytest.mark.parametrize(
    ("y_true", "y_score", "field", "hint"),
    [
        ([1, 1, 1], [0.1, 0.2, 0.3], "y_true", "both positives and negatives"),
        ([0, 0], [0.1, 0.2], "y_true", "both positives and negatives"),
        ([], [], "y_true", "both positives and negatives"),
        ([0, 1], [0.1, math.nan], "y_score", "NaN"),
        ([0, 1, 1], [0.1, 0.2], "y_score", "one score per label"),
        ([[0, 1]], [[0.1, 0.2]], "y_score", "one score per label"),
        ([0, 1, 2], [0.1, 0.2, 0.3], "y_true", "0/1 labels"),
        ([-1, 1], [0.1, 0.2], "y_true", "0/1 labels"),
    ],
)
def test_auroc_rejects_bad_input_clearly(
    y_true: list[object], y_score: list[object], field: str, hint: str
) -> None:
    with pytest.raises(InvalidInputError) as info:
        auroc(y_true, y_score)  # type: ignore[arg-type]
    assert info.value.field == field
    assert hint in str(info.value)


def test_balanced_accuracy_known_values() -> None:
    assert balanced_accuracy([0, 1, 1, 1], [0, 1, 1, 1]) == 1.0
    # recall 1/1 on class 0 and 1/3 on class 1: the mean, not the 2/4 plain accuracy
    assert balanced_accuracy([0, 1, 1, 1], [0, 1, 0, 0]) == pytest.approx((1.0 + 1 / 3) / 2)
    assert balanced_accuracy([0, 0, 1, 1], [1, 1, 0, 0]) == 0.0
    # labels of any kind: recalls 1/2 (supported), 0 (contradicted), 1 (unsupported)
    labels = np.asarray(["supported", "contradicted", "unsupported", "supported"])
    predicted = np.asarray(["supported", "unsupported", "unsupported", "contradicted"])
    assert balanced_accuracy(labels, predicted) == pytest.approx((0.5 + 0.0 + 1.0) / 3)
    # a predicted class absent from y_true adds no term
    assert balanced_accuracy(np.asarray(["a", "a"]), np.asarray(["b", "b"])) == 0.0


@pytest.mark.parametrize(("y_true", "y_pred"), [([0, 1], [0]), ([], []), ([[0, 1]], [[0, 1]])])
def test_balanced_accuracy_rejects_mismatched_input(
    y_true: list[object], y_pred: list[object]
) -> None:
    with pytest.raises(InvalidInputError, match="one prediction per label"):
        balanced_accuracy(y_true, y_pred)  # type: ignore[arg-type]


# -- calibration and selective prediction, against scikit-learn and their definitions --

_prob = st.integers(min_value=0, max_value=20).map(lambda k: k / 20)


@st.composite
def _labelled_probs(draw: st.DrawFn) -> tuple[list[int], list[float]]:
    """Labels with both classes and a probability (on a grid, so ties and edges occur)."""
    labels, _ = draw(_labelled_scores())
    probs = draw(st.lists(_prob, min_size=len(labels), max_size=len(labels)))
    return labels, probs


@settings(max_examples=100, deadline=None)
@given(_labelled_probs())
def test_brier_and_auprc_match_scikit_learn(data: tuple[list[int], list[float]]) -> None:
    from sklearn.metrics import average_precision_score, brier_score_loss

    labels, probs = data
    assert brier_score(labels, probs) == pytest.approx(brier_score_loss(labels, probs))
    assert auprc(labels, probs) == pytest.approx(average_precision_score(labels, probs))


@settings(max_examples=100, deadline=None)
@given(_labelled_probs(), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_reliability_curve_matches_scikit_learn(
    data: tuple[list[int], list[float]], n_bins: int, strategy: str
) -> None:
    from sklearn.calibration import calibration_curve

    labels, probs = data
    observed, predicted = calibration_curve(labels, probs, n_bins=n_bins, strategy=strategy)
    mean_prob, share, counts = reliability_curve(labels, probs, n_bins=n_bins, strategy=strategy)
    assert mean_prob == pytest.approx(predicted) and share == pytest.approx(observed)
    assert counts.sum() == len(labels)


@settings(max_examples=100, deadline=None)
@given(_labelled_probs(), st.sampled_from(["uniform", "quantile"]))
def test_ece_is_bounded_and_zero_for_perfect_calibration(
    data: tuple[list[int], list[float]], strategy: str
) -> None:
    labels, probs = data
    ece = expected_calibration_error(labels, probs, strategy=strategy)
    assert 0.0 <= ece <= 1.0
    assert ece <= brier_score(labels, probs) ** 0.5 + 1e-12  # |E[p - y]| per bin <= RMSE
    assert expected_calibration_error(labels, [float(y) for y in labels]) == 0.0


def test_ece_known_value() -> None:
    # two bins: 0.2 predicted, 1 of 4 positive (gap 0.05); 0.9 predicted, 2 of 2 (gap 0.1)
    labels = [0, 0, 0, 1, 1, 1]
    probs = [0.2, 0.2, 0.2, 0.2, 0.9, 0.9]
    assert expected_calibration_error(labels, probs, n_bins=5) == pytest.approx(
        (4 * 0.05 + 2 * 0.1) / 6
    )


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=60), st.integers(1, 15))
def test_ece_noise_floor_is_zero_only_for_certain_scores_and_never_above_one(
    probs: list[float], n_bins: int
) -> None:
    floor = ece_noise_floor(probs, n_bins=n_bins, draws=20)
    assert 0.0 <= floor <= 1.0
    if all(p in (0.0, 1.0) for p in probs):  # outcomes are certain: nothing to miss
        assert floor == 0.0
    assert ece_noise_floor(probs, n_bins=n_bins, draws=20) == floor  # seeded


def test_ece_noise_floor_shrinks_as_the_sample_grows() -> None:
    """A perfectly calibrated score shows ECE ~ sqrt(p(1-p)/n) per bin: 0.5 predicted for
    every item, n items, expected |share - 0.5| = sqrt(0.25 / n) * sqrt(2 / pi)."""
    for n in (100, 400, 1600):
        expected = math.sqrt(0.25 / n) * math.sqrt(2 / math.pi)
        assert ece_noise_floor([0.5] * n, draws=400) == pytest.approx(expected, rel=0.15)
    spread = np.random.default_rng(0).uniform(0.1, 0.9, 365)
    assert 0.03 < ece_noise_floor(spread, n_bins=15) < 0.09  # the targets' 0.03 is below it


def test_ece_noise_floor_refuses_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="y_prob"):
        ece_noise_floor([0.5, 1.5])
    with pytest.raises(InvalidInputError, match="draws"):
        ece_noise_floor([0.5], draws=0)
    with pytest.raises(InvalidInputError, match="y_true"):
        ece_noise_floor([])


@settings(max_examples=100, deadline=None)
@given(_labelled_probs())
def test_risk_coverage_curve_by_definition(data: tuple[list[int], list[float]]) -> None:
    labels, conf = data
    coverage, risk, thresholds = risk_coverage_curve(labels, conf)
    for c, r, t in zip(coverage, risk, thresholds, strict=True):
        answered = [y for y, s in zip(labels, conf, strict=True) if s >= t]
        assert c == pytest.approx(len(answered) / len(labels))
        assert r == pytest.approx(1 - sum(answered) / len(answered))
    assert coverage[-1] == 1.0 and list(coverage) == sorted(coverage)
    error_rate = 1 - sum(labels) / len(labels)
    assert risk[-1] == pytest.approx(error_rate)
    assert 0.0 <= aurc(labels, conf) <= 1.0


def test_aurc_rewards_ranking_the_wrong_answers_last() -> None:
    correct = [1, 1, 1, 0, 0]
    assert aurc(correct, [0.9, 0.8, 0.7, 0.2, 0.1]) < aurc(correct, [0.1, 0.2, 0.7, 0.8, 0.9])
    # a perfect ranking: risk 0 until the wrong ones come in, at coverage 4/5 and 1
    assert aurc(correct, [5, 4, 3, 2, 1]) == pytest.approx(0.2 * 0.25 + 0.2 * 0.4)


def test_selective_accuracy_and_precision_recall_f1() -> None:
    correct = [1, 0, 1, 1, 0, 0]
    conf = [0.9, 0.85, 0.8, 0.3, 0.2, 0.1]
    assert selective_accuracy(correct, conf, 0.5) == pytest.approx(2 / 3)
    assert selective_accuracy(correct, conf, 1.0) == pytest.approx(0.5)
    assert selective_accuracy(correct, conf, 0.01) == 1.0  # at least one item
    assert precision_recall_f1(correct, conf, 0.8) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    assert precision_recall_f1(correct, conf, 0.95) == (0.0, 0.0, 0.0)
    with pytest.raises(InvalidInputError, match="coverage"):
        selective_accuracy(correct, conf, 0.0)


@settings(max_examples=60, deadline=None)
@given(_labelled_probs(), st.floats(0, 1))
def test_precision_recall_f1_match_scikit_learn(
    data: tuple[list[int], list[float]], threshold: float
) -> None:
    from sklearn.metrics import f1_score, precision_score, recall_score

    labels, probs = data
    predicted = [int(p >= threshold) for p in probs]
    expected = (
        precision_score(labels, predicted, zero_division=0),
        recall_score(labels, predicted, zero_division=0),
        f1_score(labels, predicted, zero_division=0),
    )
    assert precision_recall_f1(labels, probs, threshold) == pytest.approx(expected)


def test_probabilities_outside_the_unit_interval_are_refused() -> None:
    with pytest.raises(InvalidInputError, match=r"y_prob=.*outside \[0, 1\]"):
        brier_score([0, 1], [0.5, 1.2])
    with pytest.raises(InvalidInputError, match="strategy"):
        reliability_curve([0, 1], [0.2, 0.8], strategy="log")


def test_a_range_holds_its_ends_as_gold_answers() -> None:
    """The fitting suite's "How late can I get an appointment on a Thursday?" answered
    "08:00-20:00" (an en dash) was counted wrong against "20:00": SQuAD's normalisation
    keeps an en dash ("0800-2000") and drops a hyphen, gluing the range ("08002000")."""
    from assay.calibration.scored import contains_gold

    assert contains_gold("Reception hours: 08:00\u201320:00.", ["20:00"])
    assert contains_gold("Pressure range: 2.0-3.5 bar (29-51 psi).", ["3.5 bar"])
    assert contains_gold("The HP-300 draws 4.2 A.", ["HP-300"])
    assert not contains_gold("Pressure range: 2.0-3.5 bar.", ["2.0-3.9 bar"])
