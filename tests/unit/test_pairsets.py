"""Cross-dataset pairs: group splits, capping, deduplication, evidence selection and the
generated stress sets the relevance and support models are measured on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.errors import InvalidInputError
from assay.training.pairsets import LabeledPair, cap, dedupe_against, in_test_split
from assay.training.stress import stress_pairs
from assay.training.support_sets import select_evidence


def _pair(group: str, second: str = "passage", label: str = "relevant") -> LabeledPair:
    return LabeledPair("set", "relevance", f"question {group}", second, label, group)


def test_held_out_groups_are_stable_and_about_a_fifth() -> None:
    groups = [f"g{i}" for i in range(5000)]
    held = [g for g in groups if in_test_split("squad_v2", g)]
    assert held == [g for g in groups if in_test_split("squad_v2", g)]
    assert 0.17 < len(held) / len(groups) < 0.23
    # the dataset name is part of the hash: another set holds out other groups
    assert held != [g for g in groups if in_test_split("boolq", g)]


@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(1, 5)), min_size=1, max_size=40),
    st.integers(1, 60),
)
def test_cap_never_exceeds_the_limit_and_keeps_all_when_fewer(
    spec: list[tuple[int, int]], limit: int
) -> None:
    pairs = [_pair(f"g{g}", f"p{g}-{i}") for g, n in spec for i in range(n)]
    chosen = cap(pairs, limit)
    assert len(chosen) == min(limit, len(pairs))
    assert all(p in pairs for p in chosen)
    assert chosen == cap(pairs, limit)  # seeded: the same draw every time


def test_cap_draws_whole_groups_until_the_last() -> None:
    pairs = [_pair(f"g{g}", f"p{g}-{i}") for g in range(10) for i in range(4)]
    chosen = cap(pairs, 10)
    counts = sorted(sum(p.group == g for p in chosen) for g in {p.group for p in chosen})
    assert counts == [2, 4, 4]  # two whole groups, the third sampled to fit


def test_cap_rejects_a_limit_below_one() -> None:
    with pytest.raises(InvalidInputError, match="limit"):
        cap([_pair("g")], 0)


def test_dedupe_drops_training_pairs_that_share_a_text_with_a_held_out_set() -> None:
    train = [_pair("a", "The Rhine flows north."), _pair("b", "Another passage.")]
    held = [_pair("x", "the rhine flows NORTH")]  # same words, other case and punctuation
    assert dedupe_against(train, held) == [train[1]]


def test_selected_evidence_stays_in_budget_and_in_document_order() -> None:
    sentences = [f"Sentence {i} is about topic {i} only." for i in range(60)]
    sentences[41] = "The charging temperature must stay between 0 and 45 degrees."
    sentences[7] = "Charging outside that temperature range voids the warranty."
    evidence = select_evidence("What charging temperature is safe?", sentences, words=30)
    assert len(evidence.split()) <= 30
    assert evidence.index("voids") < evidence.index("45 degrees")  # document order
    assert select_evidence("anything", ["Short.", "Text."]) == "Short. Text."


def _squad_file(tmp_path: Path) -> Path:
    context = (
        "The plant was opened in 1994 in Halden. It employs 300 people. "
        "Its owner, Nordkraft, sold it in 2011."
    )
    qas = [
        {"id": "1", "question": "When did the plant open?", "is_impossible": False,
         "answers": [{"text": "1994", "answer_start": context.index("1994")}]},
        {"id": "2", "question": "When was it sold?", "is_impossible": False,
         "answers": [{"text": "2011", "answer_start": context.index("2011")}]},
        {"id": "3", "question": "Who built it?", "is_impossible": True, "answers": []},
    ]  # fmt: skip
    file = tmp_path / "squad.json"
    data = {"data": [{"title": "Plant", "paragraphs": [{"context": context, "qas": qas}]}]}
    file.write_text(json.dumps(data))
    return file


def test_stress_swaps_the_answer_for_another_of_the_same_type(tmp_path: Path) -> None:
    pairs = stress_pairs(_squad_file(tmp_path), "toy")
    swapped = [p for p in pairs if p.kind == "answer_swap"]
    assert swapped and all(p.label == "contradicted" for p in swapped)
    for p in swapped:
        assert p.answer in p.first and p.answer not in p.second  # the claim keeps the old one
    assert {p.kind for p in pairs if p.label == "supported"} == {"verbatim", "reworded"}
    assert all(p.dataset == "stress:toy" for p in pairs)
    assert not any("Who built it" in p.first for p in pairs)  # unanswerable: no claim


def test_stress_negates_the_sentence_with_the_answer(tmp_path: Path) -> None:
    negated = [p for p in stress_pairs(_squad_file(tmp_path), "toy") if p.kind == "negated"]
    assert negated
    assert all(" not " in p.second and " not " not in p.first for p in negated)


DATA = Path(os.environ.get("ASSAY_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
MORE = DATA.parent / "data_more"


@pytest.mark.skipif(not MORE.is_dir(), reason="no public data: set ASSAY_DATA")
def test_training_mix_holds_no_text_of_a_set_held_aside_and_no_measuring_only_set() -> None:
    from assay.training.mix import ALL_SETS, HELD_ASIDE, training_mix
    from assay.training.pairsets import normalized

    mix = training_mix(DATA, MORE, recipe="2")  # recipe 1 plus swaps and newer stress kinds
    used = {p.dataset.split(":")[-1] for p in mix}  # stress: and swap: pairs name their source
    assert not used & HELD_ASIDE
    assert all(ALL_SETS[name].commercial for name in used)
    aside = {normalized(p.second) for name in HELD_ASIDE for p in ALL_SETS[name].loader(DATA, MORE)}
    assert not any(normalized(p.second) in aside for p in mix if p.kind != "off_topic")
    assert not any(in_test_split(p.dataset.split(":")[-1], p.group) for p in mix)
    assert {p.dataset for p in mix} >= {"swap:squad_v2", "swap:covid_qa"}


def test_an_unknown_mix_recipe_is_refused_before_any_data_is_read(tmp_path: Path) -> None:
    from assay.training.mix import training_mix

    with pytest.raises(InvalidInputError, match="recipe"):
        training_mix(tmp_path, tmp_path, recipe="4")
