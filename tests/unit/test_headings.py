"""The answer a heading gives (:mod:`assay.answer.headings`, issue 41)."""

from __future__ import annotations

import pytest

from assay.answer.headings import asked_part, heading_answer

CHANGELOG = "Ledgerloom changelog > 4.2.0 — 2026-07-15 > Added"


@pytest.mark.parametrize(
    ("question", "part"),
    [
        ("Which version added the diff command?", "version"),
        ("Which release introduced multi-currency ledgers?", "release"),
        ("What article of the ordinance covers night flights?", "article"),
        ("In which section are deadlines?", "section"),
        ("What changed in version 4.2?", None),  # names a version, asks what changed
        ("How long is the certificate valid?", None),
    ],
)
def test_the_part_of_a_document_a_question_asks_for(question: str, part: str | None) -> None:
    assert asked_part(question) == part


def test_the_nearest_heading_holding_the_identifier_answers() -> None:
    sentence = "- Multi-currency ledgers: each account can have its own currency."
    assert heading_answer("Which release introduced multi-currency?", CHANGELOG, sentence) == (
        "4.2.0"
    )
    ordinance = "Ordinance 2025/12 > Chapter III — Flying > Article 11 — Flights at night"
    night = "An aircraft flown between sunset and sunrise shall show a green light."
    assert heading_answer("Which article covers flying at night?", ordinance, night) == (
        "Article 11"
    )
    assert heading_answer("Which chapter covers flying at night?", ordinance, night) == (
        "Chapter III"
    )


def test_a_sentence_that_names_its_own_identifier_or_no_heading_gives_none() -> None:
    """The sentence answers in its own words ("Python 3.10"), or nothing answers."""
    python = "Python 3.10 or newer is now required."
    assert heading_answer("Which version of Python is required?", CHANGELOG, python) is None
    plain = "- Export to Parquet."
    assert heading_answer("Which version added Parquet export?", None, plain) is None
    assert heading_answer("Which version added Parquet export?", "Guide > Export", plain) is None
    assert heading_answer("When did the shop open?", "Shop > Hours, 1 May 2026", plain) is None


def test_a_when_question_about_a_change_is_answered_by_its_sections_date() -> None:
    """A knowledge base of my own: "When was log streaming added?" pins no release down;
    the date of the changelog section its entry stands under answers it."""
    plain = "- Export to Parquet."
    assert heading_answer("When was Parquet export added?", CHANGELOG, plain) == "2026-07-15"


def test_a_roman_numeral_counts_only_in_capitals() -> None:
    """ "Section civic duties" holds no section number, "Chapter III" does."""
    plain = "Every resident may vote."
    assert (
        heading_answer("Which section covers voting?", "Guide > Section civic duties", plain)
        is None
    )
    assert (
        heading_answer("Which chapter covers voting?", "Act > Chapter III", plain) == "Chapter III"
    )


def test_a_when_question_about_a_release_is_answered_by_its_headings_date() -> None:
    """ "When was Ledgerloom 4.3.0 released?": the date stands in the heading of the
    release asked about, beside its version; another release's heading, or a heading
    that names nothing the question asks about, gives no date."""
    question = "When was Ledgerloom 4.3.0 released?"
    said = "- Python 3.10 or newer is now required."
    assert heading_answer(question, "Changelog > 4.3.0 — 2026-10-01 > Changed", said) == (
        "2026-10-01"
    )
    assert heading_answer(question, "Changelog > 4.2.0 — 2026-07-15 > Changed", said) is None
    assert heading_answer("When does it open?", "Shop > Hours, 1 May 2026", "At nine.") is None
    dated = "Released on 1 October 2026."  # the sentence states it: its own date answers
    assert heading_answer(question, "Changelog > 4.3.0 — 2026-10-01", dated) is None
