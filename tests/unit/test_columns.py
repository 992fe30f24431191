"""A table's columns as qualifiers (issue 41): a row about another item than asked."""

from __future__ import annotations

import pytest

from assay.answer.columns import column_clashes
from assay.ingest.tables import table_sentences


def table_rows(*lines: str) -> list[str]:
    """The rows of a markdown table as ingestion writes them, one sentence each."""
    written = table_sentences(list(lines))
    assert written is not None
    return written.splitlines()


ROWS = [
    *table_rows(
        "| Species | Vaccine | Protects against | First dose | Price |",
        "|---|---|---|---|---|",
        "| Dog | DHP core | distemper, hepatitis, parvovirus | 8 weeks | £46.00 |",
        "| Dog | Rabies | rabies (needed for travel) | 12 weeks | £68.00 |",
        "| Cat | FCP core | cat flu, feline enteritis | 9 weeks | £52.00 |",
    ),
    "Dogs travelling abroad need a rabies vaccination.",
]


@pytest.mark.parametrize(
    ("question", "clashes"),
    [
        # no row holds a cat's rabies vaccine: each is about another vaccine or species
        ("How much does the rabies vaccine cost for a cat?",
         ["Species", "Species", "Vaccine", None]),
        ("How much is the rabies jab for my dog?", ["Vaccine", None, "Species", None]),
        ("What does vaccinating a cat cost?", ["Species", "Species", None, None]),
        # a value in a list of them names the row: "distemper" picks the DHP row
        ("How much is the distemper vaccine?",
         [None, "Protects against", "Protects against", None]),
        # a figure is the asker's condition, not a row's name
        ("My puppy is 12 weeks old. What can he have?", [None, None, None, None]),
        ("What vaccines does Fenbrook offer?", [None, None, None, None]),
    ],
)  # fmt: skip
def test_a_row_clashes_where_the_question_names_another_rows_value(
    question: str, clashes: list[str | None]
) -> None:
    assert column_clashes(question, ROWS) == clashes


def test_a_column_of_descriptions_or_figures_picks_no_row() -> None:
    """Found on an API reference: "What error do I get if my request body is too big?"
    named "Too many requests" of the 429 row's meaning; a column that describes (or
    counts) tells no items apart, only one whose every value names a thing."""
    rows = table_rows(
        "| HTTP status | Meaning |",
        "|---|---|",
        "| 413 | The request body is over 10 MB. |",
        "| 429 | Too many requests, see Retry-After. |",
    )
    assert column_clashes("What error do I get if my request body is too big?", rows) == [
        None,
        None,
    ]


def test_prose_and_a_table_of_one_row_never_clash() -> None:
    one = "Species Cat: Vaccine: FCP core, Price: £52.00."
    assert column_clashes("How much is rabies for a cat?", [one, "Cats need FCP."]) == [None, None]


def test_a_word_only_one_value_holds_names_it() -> None:
    """Asking my own price list: "How much does the Business plan cost for
    self-hosting?" quoted the Solo plan's €0, since no row is self-hosted Business
    Cloud and "Business" alone did not name "Business Cloud". A word of the question that
    only one value of a column holds names that value; one that several hold names none."""
    rows = table_rows(
        "| Plan | Seats | Hosting | Price |",
        "|---|---|---|---|",
        "| Solo | 1 user | Self-hosted | €0 |",
        "| Team | up to 10 users | Self-hosted | €29 |",
        "| Team Cloud | up to 10 users | Cloud | €49 |",
        "| Business Cloud | up to 50 users | Cloud | €199 |",
    )
    business = "How much does the Business plan cost for self-hosting?"
    assert column_clashes(business, rows) == ["Plan", "Plan", "Plan", "Hosting"]
    assert column_clashes("How much is the cloud plan?", rows) == [
        "Hosting", "Hosting", None, None,
    ]  # fmt: skip
