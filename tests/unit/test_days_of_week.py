"""Days of the week by name, span or kind (:mod:`assay.days_of_week`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.answer.reading import table_cell
from assay.days_of_week import days_named
from assay.judge.checks import missing_information
from assay.judge.schema import Context

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Sunday to Thursday", {6, 0, 1, 2, 3}),
        ("Friday and Saturday", {4, 5}),
        ("Mon-Fri 9am to 5pm", {0, 1, 2, 3, 4}),
        ("Wednesday \u2013 Sunday", {2, 3, 4, 5, 6}),
        ("on a Tuesday", {1}),
        ("Thurs.", {3}),
        ("at weekends", {5, 6}),
        ("on weekdays", {0, 1, 2, 3, 4}),
        ("the sun is out and we sat down", set()),  # no short name in lower case
        ("monitor the wedding", set()),
    ],
)  # fmt: skip
def test_the_days_a_text_names(text: str, days: set[int]) -> None:
    assert days_named(text) == days


@given(st.integers(0, 6), st.integers(0, 6))
def test_a_span_runs_from_its_first_day_to_its_last_round_the_week(first: int, last: int) -> None:
    spanned = days_named(f"{DAYS[first]} to {DAYS[last]}")
    assert first in spanned and last in spanned
    assert len(spanned) == (last - first) % 7 + 1


ROW = "Room Standard double: Sunday to Thursday: £110, Friday and Saturday: £145."


def test_the_column_whose_span_holds_the_day_asked_for_answers() -> None:
    """A hotel's rates of my own: "How much is a standard double on a Tuesday?" led with
    no price, both columns holding a weekday."""
    assert table_cell("How much is a standard double on a Tuesday?", ROW) == "£110"
    assert table_cell("How much is a standard double on a Saturday?", ROW) == "£145"


def test_a_day_within_a_span_of_the_evidence_is_held() -> None:
    rates = Context("rates", ROW, 0.9, title="Rates and policies 2026 > Room rates")
    assert missing_information("How much is a standard double on a Tuesday?", [rates]) == []
    closed = Context("hours", "Open Monday to Friday.", 0.9)
    assert missing_information("Are you open on Sunday?", [closed]) == [
        "'Sunday', which the query names"
    ]
