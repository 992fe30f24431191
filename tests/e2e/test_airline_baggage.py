"""An airline's baggage policy and special assistance page of my own, asked through the
CLI (issue 41), as passengers ask:

- "How much does it cost to take a bike?" was asked back, "none that mention bike",
  beside "Bicycles must be booked at least 48 hours before departure and cost £50";
- "When do I need to tell you about my powered wheelchair?" was withheld, "the answer
  gives no date or time period", though it quoted "at least 48 hours before you fly".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

BAGGAGE = """---
title: Skyrill Air baggage policy (2026)
published: 2026-10-25
---
# Baggage policy

## Checked bags

Each checked bag may weigh up to 23 kg. A bag over 23 kg and up to 32 kg costs £45 per bag
per flight at the airport. Bags over 32 kg are not accepted; send them as cargo.

## Sports equipment

Golf bags and skis travel as a checked bag if they are within the weight allowance.
Bicycles must be booked at least 48 hours before departure and cost £50 per flight.
"""

ASSISTANCE = """---
title: Skyrill Air special assistance
published: 2026-05-10
---
# Special assistance

## Mobility aids

Two mobility aids, such as a wheelchair and a walking frame, travel free in addition to
your baggage allowance. Tell us at least 48 hours before you fly if you use a powered
wheelchair, and bring its battery specifications.
"""


@pytest.fixture(scope="module")
def airline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("airline"),
        {
            "baggage.md": (BAGGAGE, ["baggage-2026", "--kind", "official"]),
            "assistance.md": (ASSISTANCE, ["assistance", "--kind", "official"]),
        },
    )


def test_a_clipped_word_is_found_in_its_full_form(airline: Path) -> None:
    out = ask(airline, "How much does it cost to take a bike?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "£50" in out["answer"] and "Bicycles must be booked" in out["answer"], out["answer"]


def test_a_time_before_an_event_answers_when(airline: Path) -> None:
    question = "When do I need to tell you about my powered wheelchair?"
    out = ask(airline, question, "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "at least 48 hours before you fly" in out["answer"], out["answer"]
    assert "no date or time period" not in out["assessment"]["score_rationale"]
