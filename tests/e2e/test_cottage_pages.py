"""A holiday cottage's booking terms and guest book of my own, asked through the CLI
(issue 41): "What happens if we cancel a month before?" quoted the case of cancelling
more than 6 weeks before, for a month never met weeks and the case left after it ("If
you cancel later") states no quantity; "Is there a pub within walking distance?" was
published as "Beautiful spot.", the other sentence of a guest's post that asks it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

BOOKING = (
    "---\ntitle: Booking terms\npublished: 2025-11-14\n---\n"
    "# Booking terms\n\n## Paying\n\n"
    "A deposit of 30% secures your booking. The balance is due 6 weeks before you arrive.\n\n"
    "## Cancelling\n\n"
    "If you cancel more than 6 weeks before arrival you lose the deposit. If you cancel "
    "later, you pay the full price unless we can let the cottage again.\n"
)
GUEST_BOOK = (
    '{"id": "g1", "title": "Pub?", "published": "2026-09-19", '
    '"text": "Beautiful spot. Is there a pub within walking distance?"}\n'
)


@pytest.fixture(scope="module")
def cottage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("cottage"),
        {
            "booking.md": (BOOKING, ["booking", "--kind", "official"]),
            "guest-book.jsonl": (GUEST_BOOK, ["guest-book", "--kind", "customer"]),
        },
    )


def test_a_month_before_meets_weeks_and_the_case_left_after(cottage: Path) -> None:
    out = ask(cottage, "What happens if we cancel a month before?")
    assert "If you cancel later, you pay the full price" in (out["answer"] or ""), out


def test_a_post_that_asks_the_question_beside_a_remark_answers_nothing(cottage: Path) -> None:
    out = ask(cottage, "Is there a pub within walking distance?")
    assert out["status"] != "answered", out["answer"]
    assert "Beautiful spot" not in out["answer"], out["answer"]
