"""The dashboard's reliability diagram of reviewed answers (issue 43): bins and ECE."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.server.dashboard.charts import reliability_chart
from assay.server.dashboard.views import expected_calibration_error, review_reliability


def test_verdicts_are_binned_by_the_confidence_given() -> None:
    labels = [(0.42, True), (0.47, False), (0.45, True), (0.91, True), (1.0, True)]
    binned = review_reliability(labels)
    assert [(round(b.mean_score, 3), round(b.correct, 3), b.count) for b in binned] == [
        (0.447, 0.667, 3),
        (0.955, 1.0, 2),  # 1.0 falls in the last bin, not an eleventh
    ]
    ece = expected_calibration_error(binned)
    assert ece == pytest.approx((3 * abs(0.667 - 0.447) + 2 * abs(1.0 - 0.955)) / 5, abs=1e-3)
    assert expected_calibration_error([]) is None


@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), max_size=200))
def test_bins_keep_every_verdict_and_ece_is_a_probability_gap(
    labels: list[tuple[float, bool]],
) -> None:
    binned = review_reliability(labels)
    assert sum(b.count for b in binned) == len(labels)
    assert all(0 <= b.mean_score <= 1 and 0 <= b.correct <= 1 for b in binned)
    ece = expected_calibration_error(binned)
    assert (ece is None) == (not labels) and (ece is None or 0 <= ece <= 1)


def test_the_chart_draws_one_dot_per_bin_with_its_count() -> None:
    svg = str(reliability_chart([(0.45, 0.67, 3), (0.95, 1.0, 2)], name="r", title="t"))
    assert svg.count("<circle") == 2 and "67% of 3 reviewed answers correct" in svg
    assert "no reviewed answers yet" in str(reliability_chart([], name="r", title="t"))
