"""Qualifier-swap stress pairs (issue 42): the swapped value is one the other text does
not state, so the swapped pair cannot answer by another route."""

from __future__ import annotations

import re

from assay.training.pairsets import LabeledPair
from assay.training.qualifier_swaps import qualifier_swaps


def _pair(question: str, passage: str, group: str = "doc", relevant: bool = True) -> LabeledPair:
    label = "relevant" if relevant else "irrelevant"
    return LabeledPair("src", "relevance", question, passage, label, group)


def _by_kind(pairs: list[LabeledPair]) -> dict[str, LabeledPair]:
    return {p.kind: p for p in pairs}


def test_a_year_swap_asks_a_year_the_passage_does_not_name() -> None:
    passage = "The city marathon of 2021 was won by a runner from the coast in 2:09."
    made = _by_kind(qualifier_swaps([_pair("Who won the marathon in 2021?", passage)], "src"))
    assert made["own"].positive and made["own"].dataset == "swap:src"
    year = re.search(r"\d{4}", made["year"].first)
    assert year and year.group() != "2021" and year.group() not in passage
    assert not made["year"].positive and made["year"].second == passage
    # the reverse: the passage's year changed everywhere, the question kept
    swapped = made["passage_year"]
    assert swapped.first == "Who won the marathon in 2021?" and "2021" not in swapped.second
    assert not swapped.positive


def test_gender_swaps_only_where_the_passage_is_silent_on_the_other() -> None:
    one = "The men's title went to a player from Lyon after five sets."
    both = "The men's title went to Lyon's player, the women's to a player from Porto."
    alone = _by_kind(qualifier_swaps([_pair("Who won the men's title?", one)], "src"))
    assert alone["gender"].first == "Who won the women's title?"
    assert "gender" not in _by_kind(qualifier_swaps([_pair("Who won the men's title?", both)], "a"))


def test_a_name_is_swapped_for_a_name_of_another_passage_of_the_document() -> None:
    pairs = [
        _pair("What did the engineer build in Lisbon?", "Engineers in Lisbon built a bridge."),
        _pair("What grows near Porto?", "Vineyards near Porto grow grapes for wine."),
    ]
    made = [p for p in qualifier_swaps(pairs, "src") if p.kind == "name"]
    assert made[0].first == "What did the engineer build in Porto?"
    assert all("Porto" not in p.second or "Lisbon" in p.first for p in made)


def test_a_capitalised_common_word_is_not_a_name() -> None:
    pairs = [
        _pair("What did the board approve in Lisbon?", "The board in Lisbon approved a plan."),
        _pair("Who chairs it?", "A meeting of the Committee chose a chair; every committee votes."),
    ]
    names = [p for p in qualifier_swaps(pairs, "src") if p.kind == "name"]
    assert not any("Committee" in p.first for p in names)


def test_pairs_without_a_qualifier_to_swap_and_negatives_are_left_out() -> None:
    plain = _pair("What colour is the sky?", "The sky is blue on clear days.")
    negative = _pair("Who won in 2021?", "In 2021 nobody won.", relevant=False)
    assert qualifier_swaps([plain, negative], "src") == []


def test_quarters_and_months_move_to_values_the_passage_does_not_state() -> None:
    passage = "Revenue in the third quarter rose 4%, and in March the board met."
    made = _by_kind(
        qualifier_swaps([_pair("How much did revenue rise in the third quarter?", passage)], "s")
    )
    assert "third quarter" not in made["quarter"].first
    assert re.search(r"(first|second|fourth) quarter", made["quarter"].first)
    month = _by_kind(qualifier_swaps([_pair("When in March did the board meet?", passage)], "s"))
    assert "March" not in month["month"].first
