"""Where sentences and titled passages sit in a text (assay.text)."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from assay.text import SENTENCE_BREAK, sentence_spans, titled

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
