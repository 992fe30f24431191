"""Parts of the day named by people and stated as clock times by documents."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.times_of_day import clock_hours, parts_named, parts_stated, parts_timed


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("open 08:00 to 18:00", [8, 18]),
        ("from 9am until 5.30pm", [9, 17]),
        ("6:30 p.m.", [18]),
        ("at noon and at midnight", [12, 0]),
        ("12am", [0]),
        ("12pm", [12]),
        ("£6.00 a day, 1.50 a mile", []),  # prices, not times
        ("25:00 or 13pm", []),
    ],
)
def test_clock_hours_reads_the_forms_documents_use(text: str, hours: list[int]) -> None:
    assert clock_hours(text) == hours


def test_the_parts_a_question_names() -> None:
    assert parts_named("My son was sick this morning") == {"morning"}
    assert parts_named("Is it open tonight?") == {"evening"}
    assert parts_named("Can I park overnight?") == {"night"}
    assert parts_named("Is there a lunchtime class?") == {"lunchtime"}
    assert parts_named("Is it open on Sundays?") == set()


def test_a_part_is_timed_only_by_a_clock_time_within_it() -> None:
    assert parts_stated("Updates install between 02:00 and 04:00.") == {"night"}
    assert parts_timed(["evening", "morning"], ["open 13:00 to 18:00"]) == ["evening"]
    assert parts_timed(["evening"], ["open 08:00 to 16:00"]) == []


def test_a_span_of_hours_says_when_it_opens_and_closes() -> None:
    """A nursery's handbook of my own: "What time do you close?" was asked back for
    "close" beside "open Monday to Friday, 08:00 to 18:00"."""
    hours = ["The nursery is open Monday to Friday, 08:00 to 18:00."]
    assert parts_timed(["close", "shut", "opening", "closure"], hours) == [
        "close",
        "shut",
        "opening",
    ]
    assert parts_timed(["close"], ["Doors close at 18:00."]) == []  # one time, no span
    assert parts_timed(["close"], ["Open 50 weeks a year."]) == []


@given(st.integers(0, 23), st.integers(0, 59))
def test_every_clock_time_falls_in_some_part_of_the_day(hour: int, minute: int) -> None:
    stated = parts_stated(f"at {hour:02d}:{minute:02d}")
    assert clock_hours(f"at {hour:02d}:{minute:02d}") == [hour]
    assert stated, f"{hour:02d}:{minute:02d} falls in no part of the day"
