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
