"""Inline citations (G2): found, validated against admitted evidence, stripped."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assay.answer.citations import cite, cited_ids, strip_citations, validate_citations


def test_g2_every_citation_must_name_admitted_evidence() -> None:
    answer = "Charge at 0-45 °C [Source: sds-1]. Store cool [Source: forum-9]."
    check = validate_citations(answer, ["sds-1", "wiki-2"])
    assert check.valid == ("sds-1",)
    assert check.invalid == ("forum-9",)
    assert not check.ok
    assert "forum-9" in (check.problem or "")


def test_g2_an_answer_without_citations_fails() -> None:
    check = validate_citations("Charge at 0-45 °C.", ["sds-1"])
    assert not check.ok
    assert check.problem == "the answer cites no evidence"


def test_g2_valid_citations_pass_and_repeats_count_once() -> None:
    answer = "A [Source: a]. B [Sources: a, b]. C [source: b; a]"
    assert cited_ids(answer) == ["a", "b"]
    check = validate_citations(answer, ["a", "b", "c"])
    assert check.ok and check.valid == ("a", "b") and check.invalid == ()
    assert check.to_dict() == {"ok": True, "valid": ["a", "b"], "invalid": []}


def test_strip_citations_leaves_clean_text() -> None:
    assert strip_citations("It takes 3 hours [Source: a]. Done [Source: b].") == (
        "It takes 3 hours. Done."
    )


@given(st.lists(st.from_regex(r"[a-z0-9][a-z0-9_-]{0,11}", fullmatch=True), min_size=1))
def test_g2_cite_round_trips_any_id(ids: list[str]) -> None:
    answer = " ".join(f"Claim {i}. {cite(x)}" for i, x in enumerate(ids))
    assert cited_ids(answer) == list(dict.fromkeys(ids))
    assert validate_citations(answer, ids).ok
