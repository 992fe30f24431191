"""The labeled-answer sets behind the correctness model: which paragraphs the ``absent``
knowledge base lacks and which questions are asked of each condition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import InvalidInputError
from assay.training.answer_rows import load_documents, removed_half, sample_questions


def squad_file(tmp_path: Path) -> Path:
    paragraphs = [
        {
            "context": f"Paragraph {p} says the answer is {p}.",
            "qas": [
                {"id": f"q{p}", "question": f"What is {p}?", "answers": [{"text": str(p)}]},
                {"id": f"u{p}", "question": f"What is not {p}?", "answers": []},
            ],
        }
        for p in range(10)
    ]
    path = tmp_path / "policies.json"
    path.write_text(json.dumps({"data": [{"title": "shop.example", "paragraphs": paragraphs}]}))
    return path


def test_absent_lacks_half_the_paragraphs_and_its_questions_come_from_that_half(
    tmp_path: Path,
) -> None:
    paragraphs = load_documents("policyqa", squad_file(tmp_path))
    removed = removed_half(paragraphs)
    assert len(removed) == 5 and removed == removed_half(paragraphs)  # seeded
    asked = sample_questions(paragraphs, 3)
    assert asked["present"] == asked["absent"] and len(asked["present"]) == 3
    by_question = {q.id: p.id for p in paragraphs for q in p.questions}
    for condition, items in asked.items():
        assert all(by_question[q.id] in removed for q in items), condition
    assert all(not q.golds for q in asked["unanswerable"])
    # a PolicyQA question asks about "this website": it names the policy
    assert asked["present"][0].question.startswith("shop.example: ")


def test_the_articles_left_out_are_not_loaded(tmp_path: Path) -> None:
    """XQuAD's articles that SQuAD 2.0 dev holds too are left out of its knowledge base."""
    assert len(load_documents("xquad", squad_file(tmp_path))) == 10
    assert load_documents("xquad", squad_file(tmp_path), leave_out={"shop.example"}) == []


def test_an_unknown_set_or_a_squad_file_without_split_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="squad, xquad, policyqa or covid_qa"):
        load_documents("tatqa", squad_file(tmp_path))
    with pytest.raises(InvalidInputError, match="split"):
        load_documents("squad", squad_file(tmp_path))
