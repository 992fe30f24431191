"""The labeled-answer sets behind the correctness model: which paragraphs the ``absent``
knowledge base lacks and which questions are asked of each condition."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from assay.errors import InvalidInputError
from assay.training.answer_rows import (
    AnswerRow,
    Journal,
    QAItem,
    ask_rows,
    by_document,
    journal_path,
    kept_rows,
    load_documents,
    read_rows,
    removed_half,
    sample_questions,
    table_text,
    write_rows,
)


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
    with pytest.raises(InvalidInputError, match="squad, xquad, policyqa, covid_qa, tatqa"):
        load_documents("newsqa", squad_file(tmp_path))
    with pytest.raises(InvalidInputError, match="split"):
        load_documents("squad", squad_file(tmp_path))


TABLE = [
    ["", "Years Ended", ""],
    ["", "2019", "2018"],
    ["Deferred tax assets", "", ""],
    ["Loss carryforwards", "$161,119", "$129,436"],
    ["Other", "59,584", ""],
]


def test_a_table_reads_as_one_sentence_per_row_with_its_column_names() -> None:
    assert table_text(TABLE).splitlines() == [
        "Deferred tax assets.",
        "Loss carryforwards: $161,119 (Years Ended 2019), $129,436 (2018).",
        "Other: 59,584 (Years Ended 2019).",
    ]


def tatqa_file(tmp_path: Path, reports: int = 1) -> Path:
    def question(uid: str, answer: object, kind: str, source: str, rel: list[str]) -> dict:
        return {"uid": uid, "question": f"Question {uid}?", "answer": answer,
                "answer_type": kind, "answer_from": source, "rel_paragraphs": rel}  # fmt: skip

    def report(r: int) -> dict:
        return {
            "table": {"table": TABLE},
            "paragraphs": [
                {"order": 1, "text": "Restructuring charges were $4.1 million in fiscal 2019."},
                {"order": 2, "text": "The loss carryforwards of $129,436 expire in 2030."},
            ],
            "questions": [
                question(f"text{r}", ["$4.1 million"], "span", "text", ["1"]),
                question(f"table{r}", ["$161,119"], "span", "table", []),
                # in the table and in paragraph 2: without one, the other answers
                question(f"twice{r}", ["$129,436"], "span", "text", ["2"]),
                question(f"sum{r}", 290555, "arithmetic", "table", []),
                question(f"both{r}", ["2019"], "span", "table-text", ["1"]),
                question(f"many{r}", ["$161,119", "59,584"], "multi-span", "table", []),
            ],
        }

    path = tmp_path / "tatqa.json"
    path.write_text(json.dumps([report(r) for r in range(reports)]))
    return path


def test_tatqa_keeps_the_span_questions_one_passage_alone_answers(tmp_path: Path) -> None:
    paragraphs = load_documents("tatqa", tatqa_file(tmp_path))
    assert [p.id for p in paragraphs] == ["tatqa:0:table", "tatqa:0:1", "tatqa:0:2"]
    assert {p.id: [q.id for q in p.questions] for p in paragraphs} == {
        "tatqa:0:table": ["table0"],
        "tatqa:0:1": ["text0"],
        "tatqa:0:2": [],
    }
    assert paragraphs[0].text == table_text(TABLE)
    assert paragraphs[0].questions[0].golds == ("$161,119",)


def test_a_report_that_is_its_own_knowledge_base_keeps_half_its_passages(tmp_path: Path) -> None:
    paragraphs = load_documents("tatqa", tatqa_file(tmp_path, reports=40))
    removed = removed_half(paragraphs, per_document=True)
    assert removed == removed_half(paragraphs, per_document=True)  # seeded
    for document in by_document(paragraphs).values():
        assert sum(p.id in removed for p in document) == 1  # 3 passages: one goes
    # each report draws its own: the table is not always kept, nor always removed
    assert 0 < sum(p.id.endswith("table") for p in paragraphs if p.id in removed) < 40
    asked = sample_questions(paragraphs, 100, removed=removed)
    by_question = {q.id: p.id for p in paragraphs for q in p.questions}
    assert asked["present"] and all(by_question[q.id] in removed for q in asked["present"])


def test_kept_rows_read_back_as_they_were_written(tmp_path: Path) -> None:
    """A fit or bench that reuses kept answers sees the very rows it kept, features and
    undrafted questions alike."""
    rows = [
        AnswerRow("squad", "present", "informational", "Who?", "answered", "Ann.", True, True,
                  True, 0.8, {"support": 1.0, "reader_cited": 0.7}),
        AnswerRow("squad", "absent", "financial", "Who?", "refused", "", False, False, False,
                  0.0, None),
    ]  # fmt: skip
    kept = tmp_path / "folder" / "squad.jsonl"
    write_rows(kept, rows)
    assert read_rows(kept) == rows


def test_kept_rows_are_asked_once_and_then_read_back(tmp_path: Path) -> None:
    """The first run collects and keeps (as NAME-llm.jsonl when the chat model was asked);
    a later run reads them back and asks nothing."""
    row = AnswerRow("tatqa", "present", "informational", "How much?", "answered", "$5.", True,
                    True, True, 0.9, {"support": 1.0, "llm_cited": 0.8})  # fmt: skip
    assert kept_rows(tmp_path, "tatqa", lambda: [row], llm=True) == [row]
    assert (tmp_path / "tatqa-llm.jsonl").is_file()

    def asked_again() -> list[AnswerRow]:
        raise AssertionError("kept rows were asked again")

    assert kept_rows(tmp_path, "tatqa", asked_again, llm=True) == [row]
    assert kept_rows(None, "tatqa", lambda: [row]) == [row]  # nothing kept without a folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tatqa-llm.jsonl"]


def test_a_stopped_collection_goes_on_where_it_stopped(tmp_path: Path) -> None:
    """Rows kept as they are asked are taken back in the order asked; at the first
    question asked otherwise the rest no longer applies and is dropped, as is a last line
    half written when the run stopped; a finished collection removes its journal."""
    path = journal_path(tmp_path, "squad", llm=True)
    assert path == tmp_path / "squad-llm.asking.jsonl"

    def row(question: str, policy: str = "informational") -> AnswerRow:
        return AnswerRow("squad", "present", policy, question, "refused", "", False, False,
                         False, 0.0, None)  # fmt: skip

    first = Journal(path)
    for question in ("A?", "B?", "C?"):
        assert first.take("squad", "present", question, "informational") is None
        first.add(row(question))
    again = Journal(path)  # the run stopped here; the next one starts
    assert again.take("squad", "present", "A?", "informational") == row("A?")
    assert again.take("squad", "present", "A?", "financial") is None  # asked otherwise
    again.add(row("A?", "financial"))
    assert read_rows(path) == [row("A?"), row("A?", "financial")]
    again.add(row("B?", "financial"))
    with path.open("a") as file:
        file.write('{"dataset": "squad", "cond')  # stopped while writing
    resumed = Journal(path)
    assert resumed.take("squad", "present", "A?", "informational") == row("A?")
    assert read_rows(path) == [row("A?"), row("A?", "financial"), row("B?", "financial")]
    resumed.close()
    assert not path.exists()
    nothing_kept = Journal(None)
    assert nothing_kept.take("squad", "present", "A?", "informational") is None
    nothing_kept.add(row("A?"))
    nothing_kept.close()


def test_rows_a_journal_kept_are_not_asked_again(tmp_path: Path) -> None:
    """:func:`ask_rows` takes a journal's rows back instead of asking the engine."""
    path = tmp_path / "kept.jsonl"
    kept = AnswerRow("squad", "present", "informational", "What is 1?", "answered", "1.",
                     True, True, True, 0.8, {"support": 1.0})  # fmt: skip
    Journal(path).add(kept)

    def ask(*args: object, **kwargs: object) -> None:
        raise AssertionError("a kept row was asked again")

    engine = SimpleNamespace(relevance=None, reader=None, ask=ask)
    item = QAItem("q1", "What is 1?", ("1",))
    rows = ask_rows("squad", "present", engine, [item], ["informational"],  # type: ignore[arg-type]
                    journal=Journal(path))  # fmt: skip
    assert rows == [kept]
