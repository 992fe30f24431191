"""The LLM-written reading questions: what is kept, and what the reader learns from them."""

from __future__ import annotations

import json
from pathlib import Path

from assay.training.reader_train import written_examples
from assay.training.resumable import read_rows as read
from assay.training.written_questions import _tatqa_table, kept_pairs, parse_pairs

PASSAGE = (
    "The HP-300 pump draws 4.2 amperes at 12 volts. In 2021 the plant shipped 1,200 units; "
    "in 2022 it shipped 1,450 units."
)


def test_parse_pairs_reads_a_list_or_the_objects_inside_prose() -> None:
    listed = '```json\n[{"question": "How much?", "answer": "4.2 amperes"}]\n```'
    assert parse_pairs(listed) == [("How much?", "4.2 amperes")]
    prose = 'Sure! {"question": "A?", "answer": "b"} and {"question": "C?", "answer": "d"}'
    assert parse_pairs(prose) == [("A?", "b"), ("C?", "d")]
    assert parse_pairs("no JSON here") == []
    assert parse_pairs('[{"question": 3, "answer": "x"}]') == []


def test_kept_pairs_keep_only_verbatim_short_answers_to_real_questions() -> None:
    kept = kept_pairs(
        PASSAGE,
        [
            ("How much current does the HP-300 draw?", "4.2 Amperes."),  # case, dot: kept
            ("How many units shipped in 2022?", "1,450 units"),
            ("How much current does the pump draw?", "about 4 amps"),  # not in the passage
            ("Tell me the voltage", "12 volts"),  # not a question
            ("Does the pump draw 4.2 amperes at 12 volts?", "4.2 amperes"),  # gives it away
            ("What did it ship in 2022?", "in 2022 it shipped 1,450 units and more words here"),
            ("How many units shipped in 2022?", "1,450 units"),  # asked twice
        ],
    )
    assert [(p.question, p.answer) for p in kept] == [
        ("How much current does the HP-300 draw?", "4.2 amperes"),
        ("How many units shipped in 2022?", "1,450 units"),
    ]
    for pair in kept:
        assert PASSAGE[pair.answer_start : pair.answer_start + len(pair.answer)] == pair.answer


def test_a_tatqa_table_is_written_as_assay_ingests_tables() -> None:
    table = [
        ["", "Years Ended September 30,", ""],
        ["", "2019", "2018"],
        ["Fixed Price", "$ 1,452.4", "$ 1,146.2"],
    ]
    assert _tatqa_table(table) == "Fixed Price: 2019: $ 1,452.4, 2018: $ 1,146.2."


def test_written_examples_add_absent_passages_and_year_swaps(tmp_path: Path) -> None:
    rows = [
        {"dataset": "demo", "key": str(k), "passage": text, "pairs": pairs, "dropped": 0}
        for k, (text, pairs) in enumerate([
            (PASSAGE, [{"question": "How many units did the plant ship in 2022?",
                        "answer": "1,450 units", "answer_start": PASSAGE.index("1,450 units")}]),
            ("An unrelated passage about tides and the moon.", []),
            ("Another passage, about bread.", [{"question": "What is it about?",
                                              "answer": "bread", "answer_start": 22}]),
        ])
    ]  # fmt: skip
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"cut sho')
    assert len(read(path)) == 3  # a line cut short by a stop is ignored
    examples = written_examples(tmp_path)
    answered = [e for e in examples if e.answer_start is not None]
    assert {e.answer_text for e in answered} == {"1,450 units", "bread"}
    swapped = [e for e in examples if e.dataset.endswith(":other-year")]
    assert len(swapped) == 1 and "2022" not in swapped[0].question
    assert swapped[0].passage == PASSAGE and swapped[0].answer_start is None


def test_parse_pairs_reads_the_schema_object() -> None:
    reply = '{"pairs": [{"question": "When?", "answer": "2009"}]}'
    assert parse_pairs(reply) == [("When?", "2009")]
