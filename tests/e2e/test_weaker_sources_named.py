"""A bike shop's terms beside its customers' reviews, asked through the CLI (issue 41:
every disagreement of a weaker source is named). A review that says otherwise in its
own words ("Had to pay £10 for the loan bike" against "A loan bike is free"), or that
states another limit ("25kg max" against "up to 30 kg"), went unnamed beside the
answer: the first shares too few of the question's words, the second read as a value
within the terms' bound.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

TERMS = (
    "---\ntitle: Workshop terms\npublished: 2026-03-02\n---\n"
    "# Workshop terms\n\n## Loan bikes\n\n"
    "A loan bike is free while your own bike is in for a full service.\n\n"
    "## Paying\n\n"
    "We take cards and bank transfer only, not cash.\n\n"
    "## Sending bikes to us\n\n"
    "Boxed bikes sent by courier may weigh up to 30 kg.\n"
)
REVIEWS = (
    '{"id": "r1", "title": "Loan bike", "published": "2026-06-02", '
    '"text": "Had to pay £10 for the loan bike even with a full service, bit cheeky."}\n'
    '{"id": "r2", "title": "Cash", "published": "2026-07-11", '
    '"text": "Paid cash at the counter, no problem."}\n'
    '{"id": "r3", "title": "Courier", "published": "2026-08-20", '
    '"text": "Boxed bikes are 25kg max, they turned mine away at the depot."}\n'
)


@pytest.fixture(scope="module")
def bike_shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("bike-shop"),
        {
            "terms.md": (TERMS, ["terms", "--kind", "official"]),
            "reviews.jsonl": (REVIEWS, ["reviews", "--kind", "customer"]),
        },
    )


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Is the loan bike free?", "A loan bike is free"),
        ("Can I pay in cash?", "not cash"),
        ("How heavy can a boxed bike be?", "up to 30 kg"),
    ],
)
def test_r_a_review_that_says_otherwise_is_named_beside_the_answer(
    bike_shop: Path, question: str, answer: str
) -> None:
    out = ask(bike_shop, question)
    text = out["answer"] or ""
    assert answer in text, out
    assert "Sources disagree: reviews (customer)" in text, text
