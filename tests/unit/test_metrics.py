"""Ranking and classification metrics (assay.metrics) against their defining properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.errors import InvalidInputError
from assay.metrics import auroc, balanced_accuracy

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
