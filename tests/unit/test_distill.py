"""Soft targets from the teacher (issue 42): only where the teacher ranks better, only
for pairs it labelled, and a mix of the gold label and its belief."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.training import distill
from assay.training.pairsets import LabeledPair
from assay.training.teach import pair_id

RELEVANT = LabeledPair(
    "squad_v2", "relevance", "When was it sold?", "Sold in 2019.", "relevant", "a"
)
SWAPPED = LabeledPair("swap:squad_v2", "relevance", "When was it sold in 1990?", "Sold in 2019.",
                      "irrelevant", "a", kind="year")  # fmt: skip
POLICY = LabeledPair("policyqa", "relevance", "Do you sell data?", "We never sell it.",
                     "relevant", "b")  # fmt: skip
CLAIM = LabeledPair("scifact", "support", "It rose.", "It rose by 3%.", "supported", "c")


def test_targets_mix_the_gold_label_and_the_teachers_belief_where_it_teaches() -> None:
    belief = {pair_id(p): 0.9 for p in (RELEVANT, SWAPPED, POLICY, CLAIM)}
    taught = distill.with_targets([RELEVANT, SWAPPED, POLICY, CLAIM], belief, weight=0.5)
    assert [p.target for p in taught] == [
        pytest.approx(0.95),  # gold 1, teacher 0.9
        pytest.approx(0.45),  # gold 0, teacher 0.9: a swap the teacher doubts
        None,  # PolicyQA: the teacher ranks worse than the student there
        None,  # a support pair: the teacher labels relevance only
    ]
    assert [p.positive for p in taught] == [True, False, True, True]  # gold labels kept


def test_a_pair_the_teacher_never_labelled_keeps_its_gold_label_alone() -> None:
    [pair] = distill.with_targets([RELEVANT], {})
    assert pair.target is None and pair == RELEVANT


def test_beliefs_are_read_by_pair_id_from_the_teachers_labels(tmp_path: Path) -> None:
    rows = [{"id": pair_id(RELEVANT), "dataset": "squad_v2", "gold": 1, "teacher": 0.25}]
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert distill.beliefs(tmp_path) == {pair_id(RELEVANT): 0.25}


def test_the_shipped_labels_cover_the_sets_the_teacher_teaches_from() -> None:
    """The repository's labels hold beliefs for every set of TEACH_FROM."""
    labels = distill.TEACHER_LABELS / "labels.jsonl"
    sets = {json.loads(line)["dataset"] for line in labels.read_text().splitlines() if line}
    assert sets >= distill.TEACH_FROM
