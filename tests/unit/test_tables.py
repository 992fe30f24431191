"""Markdown tables are ingested one sentence per row, each value beside its column's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.answer.qualifiers import clauses
from assay.answer.reading import named_row, table_cell
from assay.ingest.markdown import load_markdown
from assay.ingest.tables import table_sentences
from assay.text import SENTENCE_BREAK

RESULTS = [
    "| Year | Men's winner | Women's winner |",
    "|------|-------------:|:---------------|",
    "| 2021 | Tomas Eklund | Ingrid Solberg |",
    "| 2022 | Mattias Grønli | |",
]


def test_each_row_is_a_sentence_that_names_its_columns() -> None:
    assert table_sentences(RESULTS) == (
        "Year 2021: Men's winner: Tomas Eklund, Women's winner: Ingrid Solberg.\n"
        "Year 2022: Men's winner: Mattias Grønli."
    )


def test_a_row_without_a_first_column_name_is_led_by_its_first_cell() -> None:
    spec = ["| | HP-150 | HP-300 |", "|---|---|---|", "| Recommended fuse | 5 A | 7.5 A |"]
    assert table_sentences(spec) == "Recommended fuse: HP-150: 5 A, HP-300: 7.5 A."


def test_lines_that_are_no_table_are_left_alone() -> None:
    assert table_sentences(["| a | b |", "| c | d |", "| e | f |"]) is None  # no separator
    assert table_sentences(["| a | b |", "|---|---|"]) is None  # no body


def test_each_value_is_a_clause_of_its_own() -> None:
    row = table_sentences(RESULTS)
    assert row is not None
    first = row.splitlines()[0]
    assert [first[a:b].strip(" ,:") for a, b in clauses(first)] == [
        "Year 2021",
        "Men's winner: Tomas Eklund",
        "Women's winner: Ingrid Solberg.",
    ]


def test_a_markdown_file_keeps_its_text_and_writes_out_its_table(tmp_path: Path) -> None:
    file = tmp_path / "results.md"
    file.write_text("# Results\n\nWinners by year:\n" + "\n".join(RESULTS) + "\n\n`| kept |`\n")
    texts = [b.text for b in load_markdown(file)[0].blocks]
    assert "Winners by year:" in texts[1]
    assert "Year 2021: Men's winner: Tomas Eklund, Women's winner: Ingrid Solberg." in texts[1]
    assert texts[-1] == "`| kept |`"


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("What fuse does the HP-300 need?", "7.5 A"),
        ("What fuse does the HP-150 need?", "5 A"),
        ("Who won the women's race in 2021?", "Ingrid Solberg"),
        ("Who won the men's race in 2021?", "Tomas Eklund"),
        # the question's own value is not its answer: the rate, not "75%" of its LTV
        ("What's the rate on the 5 year fix at 75% LTV?", "4.09%"),
    ],
)
def test_the_cell_whose_column_keeps_to_the_question_answers(question: str, value: str) -> None:
    rows = {
        "fuse": "Recommended fuse at 12 V: HP-150: 5 A, HP-300: 7.5 A.",
        "race": "Year 2021: Men's winner: Tomas Eklund, Men's time: 2:14:36, "
        "Women's winner: Ingrid Solberg, Women's time: 2:31:02.",
    }
    rows["rate"] = "Product 5 Year Fixed: Maximum LTV: 75%, Initial rate: 4.09%, Product fee: £999."
    row = rows[next((k for k in ("fuse", "rate") if k in question), "race")]
    assert table_cell(question, row) == value


def test_no_cell_is_picked_from_prose_or_without_a_clear_column() -> None:
    assert table_cell("What fuse does the pump need?", "The pump needs a 7.5 A fuse.") is None
    row = "Recommended fuse at 12 V: HP-150: 5 A, HP-300: 7.5 A."
    assert table_cell("What fuse does the pump need?", row) is None  # which model?


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("How much is an adult ticket?", "EUR 14"),  # "how much is": the price column
        ("What is the price of an adult ticket?", "EUR 14"),  # "EUR 14" is money
        ("How much does the family ticket cost?", "EUR 35"),
    ],
)
def test_a_price_question_reads_the_price_cell(question: str, value: str) -> None:
    adult = "Ticket Adult: Price: EUR 14, Notes: 18 and over."
    family = "Ticket Family: Price: EUR 35, Notes: 2 adults and up to 3 children."
    assert table_cell(question, family if "family" in question else adult) == value


def test_a_semicolon_inside_a_cell_does_not_cut_the_row_in_two() -> None:
    """A row is one sentence: a cell's semicolon would end it there, and the cells after
    it ("Resolution target: 1 business day") would lose the row's header ("P2")."""
    lines = [
        "| Priority | Meaning | Resolution target |",
        "|---|---|---|",
        "| P2 | A major function is impaired; no workaround | 1 business day |",
    ]
    row = table_sentences(lines)
    assert row == (
        "Priority P2: Meaning: A major function is impaired, no workaround, "
        "Resolution target: 1 business day."
    )
    assert SENTENCE_BREAK.split(row) == [row]


def test_of_two_columns_the_question_names_the_one_its_phrase_ends_on() -> None:
    """ "Tyre pressure" asks for a pressure, "tyre size" for a tyre: each names both
    columns once, and the head of the phrase, its last word, picks the cell."""
    row = 'Model Kestrel Glide: Tyre: 27.5 x 2.2", Pressure range: 2.0-3.5 bar (29-51 psi).'
    pressure = table_cell("What is the maximum tyre pressure for the Kestrel Glide?", row)
    assert pressure == "2.0-3.5 bar (29-51 psi)"
    assert table_cell("What tyre size does the Kestrel Glide have?", row) == '27.5 x 2.2"'


SPECS = (
    "Item Pump pressure: Value: 15 bar.\nItem Power: Value: 1,350 W.\n"
    "Item Water tank: Value: 1.4 litres.\nItem Weight: Value: 4.6 kg."
)


@pytest.mark.parametrize(
    ("question", "row"),
    [
        ("How many watts is it?", "Item Power: Value: 1,350 W."),
        ("How many kilos does it weigh?", "Item Weight: Value: 4.6 kg."),
        ("How many litres does the tank hold?", "Item Water tank: Value: 1.4 litres."),
        ("How many cups can it make?", None),  # no unit: no row
    ],
)
def test_a_row_in_the_unit_the_question_counts_in_is_named(question: str, row: str | None) -> None:
    """Found asking an espresso machine's data sheet: "How many watts is it?" names no
    row's header ("Power"), and the reader reads no table, so it was declined ("does not
    state the number it asks for"); the one row whose value is in watts answers."""
    where = named_row(question, SPECS)
    assert (SPECS[where[0] : where[1]] if where else None) == row
