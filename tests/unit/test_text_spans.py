"""Where sentences and titled passages sit in a text (assay.text)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.text import BOUND, SENTENCE_BREAK, measured_figures, sentence_spans, titled

_TEXT = st.text(alphabet=st.sampled_from(list("ab .!?;\n\t")), max_size=60)


@given(_TEXT)
def test_the_spans_hold_the_sentences_the_split_gives(text: str) -> None:
    """A sentence read by its span is the one every other part of assay splits out."""
    split = [s.strip() for s in SENTENCE_BREAK.split(text.strip()) if s.strip()]
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == split
    assert all(a < b for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in pairwise(spans))


def test_a_title_path_goes_before_the_text_on_its_own_line() -> None:
    assert titled("HX-40 > Charging", "Charge it.") == "HX-40 > Charging\nCharge it."
    assert titled(None, "Charge it.") == titled("", "Charge it.") == "Charge it."


def test_an_abbreviation_or_a_lower_case_word_after_a_stop_ends_no_sentence() -> None:
    """A table cell "Max. speed indoors: 4 km/h" stays in its row's sentence, so the row
    is quoted whole rather than cut at "Max."; "No." ends a sentence unless a number
    follows."""
    row = "Class E: Rated capacity (kg): 2,000, Max. speed indoors: 4 km/h. See note 2."
    assert SENTENCE_BREAK.split(row) == [row[:-12], "See note 2."]
    assert SENTENCE_BREAK.split("It takes approx. 3 hours. Then stop.") == [
        "It takes approx. 3 hours.", "Then stop.",
    ]  # fmt: skip
    assert SENTENCE_BREAK.split("Bay No. 5 is free. No. It is not.") == [
        "Bay No. 5 is free.", "No.", "It is not.",
    ]  # fmt: skip
    assert SENTENCE_BREAK.split("It is 5 km. Then stop; or wait") == [
        "It is 5 km.", "Then stop;", "or wait",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "figures"),
    [
        ("My camera drone weighs 300 grams. Do I have to register it?", {"300"}),
        ("Can a Director fly business class on a 7-hour flight?", {"7"}),
        ("My 14-year-old has a toothache.", {"14"}),
        ("Can I claim a £40 taxi?", {"40"}),
        ("I'm 70. What would a full plot cost me?", {"70"}),
        ("What does a room for 1,200 people cost?", {"1200"}),
        ("My son is 7. Can he swim without me?", {"7"}),
        ("We are a group of 14. Do we need to book?", {"14"}),
        ("What is 2024 revenue?", set()),  # "is" before a year: a qualifier
        # qualifiers: a year, a quarter, a model number, a version, a count without a unit
        ("What was revenue in Q3 2023?", set()),
        ("What does the HP-300 cost?", set()),
        ("When was Ledgerloom 4.3.0 released?", set()),
        ("How much does a pack of 24 cost?", set()),
    ],
)
def test_measured_figures_are_the_askers_quantities_not_qualifiers(
    question: str, figures: set[str]
) -> None:
    assert measured_figures(question) == figures


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ("Business class may be booked for flights longer than 6 hours.", True),
        ("Operators of drones of 250 g or more must register.", True),
        ("Drones from 250 g up to 4 kg keep 30 m from people.", True),
        ("Adults and children over 12: take 1 tablet.", True),
        ("Swimmers aged 8 to 15 may swim alone.", True),
        ("On 24 V systems fit a 10 A fuse.", False),
        ("The race in 2023 was won by Ola Berg.", False),
    ],
)
def test_a_bound_is_a_figure_a_rule_compares_against(text: str, bound: bool) -> None:
    assert bool(BOUND.search(text)) is bound
