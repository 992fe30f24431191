"""A glossary entry of the term a question asks the meaning of, read as a sentence by the
relevance models (issue 41): "- F22: the water pressure is too low" for "What does F22
mean?" reads as "- F22 means the water pressure is too low"."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.models.definitions import as_prose, term_asked

GLOSSARY = """Fault codes
The display shows a code when the boiler locks out.

- F22: the water pressure is too low. Top up the pressure.
- F28: the burner did not light.
1. Solid red \u2013 no internet connection.
Flashing orange: a firmware update is running."""


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("What does F22 mean?", {"f22"}),
        ("What does the E2 code mean on my fryer?", {"e2", "code"}),
        ("what do the flashing lights indicate", {"flashing", "lights"}),
        ("What does APR stand for?", {"apr"}),
        ("What is meant by a qualifying day?", {"qualifying", "day"}),
        ("What is the price of F22?", set()),
        ("How do I clear F22?", set()),
        ("The display says E35, what's wrong?", {"e35"}),
        ("It shows F22, what does that mean?", {"f22"}),
        ("What's wrong with my order?", set()),
    ],
)
def test_the_term_whose_meaning_is_asked(question: str, term: set[str]) -> None:
    assert term_asked(question) == term


def test_only_the_entries_of_the_asked_term_read_as_sentences() -> None:
    read = as_prose("What does F22 mean?", GLOSSARY)
    assert "- F22 means the water pressure is too low." in read
    assert "F28" not in read  # another code's entry is no part of this answer
    assert "The display shows a code when the boiler locks out." in read  # prose stays
    read = as_prose("What does a solid red light mean?", GLOSSARY)
    assert "1. Solid red means no internet connection." in read
    read = as_prose("What does the flashing orange light mean?", GLOSSARY)
    assert "Flashing orange means a firmware update is running." in read
    assert "F22" not in read and "Solid red" not in read


@given(st.text(max_size=300), st.sampled_from(["What is the price?", "How do I reset it?"]))
def test_a_question_that_asks_no_meaning_leaves_the_passage_as_written(
    passage: str, question: str
) -> None:
    assert as_prose(question, passage) == passage


@given(st.text(alphabet="abcF2: -\n.", max_size=200))
def test_the_reading_changes_no_line_but_an_entry_of_the_term(passage: str) -> None:
    """Line for line, a line is either as written or an entry of F22 read as a sentence."""
    read = as_prose("What does F22 mean?", passage)
    assert len(read.split("\n")) == len(passage.split("\n"))
    for written, line in zip(passage.split("\n"), read.split("\n"), strict=True):
        assert line == written or (" means " in line and "F22" in line.split(" means ")[0])
