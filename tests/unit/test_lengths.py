"""Lengths of time however they are written (:mod:`assay.answer.lengths`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.answer.lengths import minutes_stated
from assay.answer.reading import row_weights


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("How much is an hour-long massage?", {60}),
        ("Full body massage: Length: 60 minutes, Price: £80.", {60}),
        ("Is half an hour enough?", {30}),
        ("a half-hour slot", {30}),
        ("a 90-minute facial", {90}),
        ("It runs for 1.5 hours.", {90}),
        ("an hour and a half", {90}),
        ("a quarter of an hour", {15}),
        ("a two-day pass", {2880}),
        ("Check-in opens at 3pm.", set()),  # a time of day, no length
        ("Parking is charged hourly.", set()),
        ("within 2 working days", set()),  # working days are not days of 24 hours
        # a year in months, in years and by its adjective are one length
        ("Prepayment certificate, 12 months: Charge: £114.50.", {525_600}),
        ("How much is a yearly prepayment certificate?", {525_600}),
        ("the annual pass", {525_600}),
        ("a 3-month certificate", {131_400}),
        ("Monthly price: £9", {43_800}),
        ("2 weeks", {20_160}),
    ],
)  # fmt: skip
def test_a_length_of_time_is_read_in_minutes(text: str, minutes: set[int]) -> None:
    assert minutes_stated(text) == minutes


@given(st.integers(min_value=1, max_value=600))
def test_minutes_and_hours_written_with_digits_agree(n: int) -> None:
    assert minutes_stated(f"{n} minutes") == {n}
    assert minutes_stated(f"a {n}-minute session") == {n}
    assert minutes_stated(f"{n} hours") == {60 * n}


def test_the_row_of_the_asked_length_outweighs_its_neighbour() -> None:
    """A spa price list of my own: "How much is an hour-long massage?" was answered
    "£45" from "Back massage: Length: 30 minutes", whose header names a larger share of
    the question than "Full body massage"."""
    rows = [
        ("spa", "Treatment Back massage: Length: 30 minutes, Price: £45."),
        ("spa", "Treatment Full body massage: Length: 60 minutes, Price: £80."),
    ]
    back, full = row_weights("How much is an hour-long massage?", rows)
    assert full > back
    back, full = row_weights("How much is a back massage?", rows)
    assert back > full  # no length asked: the header decides, as before


@given(st.integers(min_value=1, max_value=40))
def test_years_and_their_months_agree(n: int) -> None:
    assert minutes_stated(f"{n} years") == minutes_stated(f"{12 * n} months")


def test_the_row_of_the_asked_period_outweighs_its_neighbour() -> None:
    """A pharmacy's charges of my own: "How much is a yearly prepayment certificate?" was
    answered "£32.05" from the 3-month row."""
    rows = [
        ("charges", "Item Prepayment certificate, 3 months: Charge: £32.05."),
        ("charges", "Item Prepayment certificate, 12 months: Charge: £114.50."),
    ]
    three, twelve = row_weights("How much is a yearly prepayment certificate?", rows)
    assert twelve > three
