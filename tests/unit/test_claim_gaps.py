"""The lexical gaps between a claim and its evidence (``assay.models.claim_gaps``)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from assay.models.claim_gaps import GAP_FEATURES, claim_gaps, statement

EVIDENCE = (
    "The HX-40 battery charges fully in about 3 hours. Charging is safe between 0 and 45 "
    "degrees Celsius. Customer service in Dublin handles 1,200 calls a day."
)


def gaps(claim: str, evidence: str = EVIDENCE) -> dict[str, float]:
    return dict(zip(GAP_FEATURES, claim_gaps(claim, evidence), strict=True))


def test_a_claim_quoted_from_the_evidence_has_no_gaps() -> None:
    g = gaps("Charging is safe between 0 and 45 degrees Celsius.")
    assert g["missing_share"] == g["missing_terms"] == g["missing_numbers"] == 0.0
    assert g["missing_names"] == g["negation_mismatch"] == 0.0
    assert g["missing_share_best_sentence"] == 0.0 and g["word_overlap"] == 1.0


def test_e10_a_figure_the_evidence_does_not_state_is_a_gap() -> None:
    assert gaps("The battery charges fully in about 9 hours.")["any_missing_number"] == 1.0
    assert gaps("The battery charges fully in about 3 hours.")["missing_numbers"] == 0.0
    # thousands separators do not matter
    assert gaps("Customer service handles 1200 calls a day.")["missing_numbers"] == 0.0


def test_e10_a_name_the_evidence_does_not_state_is_a_gap() -> None:
    assert gaps("Customer service in Cork handles 1,200 calls a day.")["missing_names"] == 1.0
    assert gaps("Customer service in Dublin handles 1,200 calls a day.")["missing_names"] == 0.0
    # a capitalised first word is not taken for a name
    assert gaps("Customer service handles 1,200 calls a day.")["missing_names"] == 0.0


def test_e10_a_negation_on_one_side_only_is_a_gap() -> None:
    g = gaps("Charging is not safe between 0 and 45 degrees Celsius.")
    assert g["negation_mismatch"] == 1.0 and g["negation_difference"] == 1.0
    assert g["missing_terms"] == 0.0  # the same words: only the negation tells


def test_the_closest_sentence_is_compared_not_the_whole_evidence() -> None:
    # every word is in the evidence, but spread over two sentences
    g = gaps("The battery charges in Dublin.")
    assert g["missing_share"] == 0.0 and g["missing_share_best_sentence"] > 0.0


@given(st.text(min_size=1, max_size=200))
def test_gaps_are_finite_and_bounded_for_any_text(text: str) -> None:
    g = claim_gaps(text, EVIDENCE)
    assert g.shape == (len(GAP_FEATURES),) and np.isfinite(g).all() and (g >= 0).all()
    named = dict(zip(GAP_FEATURES, g, strict=True))
    for share in ("missing_share", "missing_share_best_sentence", "word_overlap"):
        assert 0.0 <= named[share] <= 1.0


@given(st.text(min_size=1, max_size=200))
def test_any_text_has_no_gaps_against_itself(text: str) -> None:
    named = dict(zip(GAP_FEATURES, claim_gaps(text, text), strict=True))
    assert named["missing_share"] == named["missing_numbers"] == named["missing_names"] == 0.0


def test_a_leading_question_is_not_part_of_what_is_claimed() -> None:
    assert statement("How long does a full charge take? About 3 hours.") == "About 3 hours."
    assert statement("Is it safe? Yes. Why? It says so.") == "It says so."
    assert statement("A claim without a question.") == "A claim without a question."
    assert statement("Trailing question?") == "Trailing question?"
    asked = gaps("At what temperature can the HX-40 charge? Between 0 and 45 degrees.")
    assert asked["missing_terms"] == 0.0  # "temperature" is only asked about
