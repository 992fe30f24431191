"""A water company's pages of my own, asked through the CLI (issue 41).

"What happens if I miss a payment?" quoted "If the bill is still unpaid 28 days after the
reminder, we may pass it to a debt collection agency.", the sentence the relevance model
rates best, without the one that brings in "a reminder" before it names "the reminder":
the quote now opens with "We'll send you a reminder after 14 days.".

"What's the standing charge?" was drafted from a customer's forum post ("The standing
charge is £44 a year", last year's figure), which echoes the question and so rates above
the charges table's row ("Standing charge, per year: £48.00", 0.78 of the post's rating,
below :data:`~assay.answer.within.ANSWERS_WITHIN`): an official sentence holding the kind
of value asked outweighs a forum post's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

CHARGES = """---
title: Our charges 2026/27
published: 2026-03-02
---
# Charges from 1 April 2026

## Metered customers

| Charge | 2026/27 |
|---|---|
| Water, per cubic metre | £2.14 |
| Wastewater, per cubic metre | £2.66 |
| Standing charge, per year | £48.00 |
"""

PAYING = (
    "---\ntitle: Paying your bill\npublished: 2026-05-11\n---\n# Paying your bill\n\n"
    "## If you miss a payment\n\n"
    "We'll send you a reminder after 14 days. If the bill is still unpaid 28 days after the "
    "reminder, we may pass it to a debt collection agency.\n"
)

FORUM = (
    '{"id": "c2", "title": "Standing charge", "published": "2025-11-20", '
    '"text": "The standing charge is £44 a year on top of what you use."}\n'
)


@pytest.fixture(scope="module")
def water(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("water"),
        {
            "charges.md": (CHARGES, ["charges", "--kind", "official"]),
            "paying.md": (PAYING, ["paying", "--kind", "official"]),
            "forum.jsonl": (FORUM, ["community", "--kind", "customer"]),
        },
    )


def test_the_charges_table_drafts_the_answer_not_the_forum_post(water: Path) -> None:
    out = ask(water, "What's the standing charge?", "--policy", "informational")
    cited = {s["source_id"] for s in out["sources"] if s["cited"]}
    assert cited == {"charges"}, out["sources"]
    claims = " ".join(c["claim"] for c in out["judge"]["claims"])
    assert "£48.00" in claims and "£44" not in claims, claims


def test_a_sentence_naming_the_reminder_is_quoted_with_the_one_bringing_it_in(
    water: Path,
) -> None:
    out = ask(water, "What happens if I miss a payment?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("We'll send you a reminder after 14 days."), out["answer"]
