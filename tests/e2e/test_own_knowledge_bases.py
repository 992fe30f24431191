"""Questions a user asks of small knowledge bases written as users write them (issue 41),
through ``assay ask --json``: a medical practice's guide beside its older version and a
patients' group, and a mobile network's plans beside a forum. Each case was answered
wrongly before its change: the weekday hours for Saturday, a free replacement SIM for
"what should I do", a forum's "free" left unnamed beside the plan's price."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

PRACTICE = """---
title: Ashgrove Medical Practice patient guide 2026
published: 2026-02-02
---
# Ashgrove Medical Practice patient guide

## Opening hours

The practice is open 8am to 6:30pm Monday to Friday. On Saturdays it is open 9am to 12pm
for booked appointments only. Outside these hours, call 111.

## Repeat prescriptions

Order repeat prescriptions online or in writing, not by phone. Allow 3 working days before
collecting from your pharmacy.
"""

PLANS = """---
title: Lumo Mobile price plans, from 1 May 2026
published: 2026-05-01
---
# Lumo Mobile price plans

## Roaming

Roaming in the EU costs £2 a day, and you can use your UK allowance there.

## Lost or stolen phone

Call us on 0330 123 4567 straight away and we will bar your SIM. You are responsible for
charges made before you tell us. A replacement SIM is free and arrives in 2 working days.
"""

FORUM = json.dumps({
    "id": "p1", "title": "Community", "published": "2026-05-14",
    "text": "EU roaming is still free on Lumo, I went to Spain last month and paid nothing.",
})  # fmt: skip


@pytest.fixture(scope="module")
def practice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("practice"), {
        "guide.md": (PRACTICE, ["guide", "--kind", "official"]),
    })  # fmt: skip


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("network"), {
        "plans.md": (PLANS, ["plans", "--kind", "official"]),
        "forum.jsonl": (FORUM + "\n", ["forum", "--kind", "customer"]),
    })  # fmt: skip


def test_saturday_is_answered_by_the_sentence_about_saturdays(practice: Path) -> None:
    out = ask(practice, "Is the practice open on Saturday?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("On Saturdays it is open 9am to 12pm"), out["answer"]


def test_what_to_do_is_answered_by_the_instruction(network: Path) -> None:
    out = ask(network, "My phone was stolen, what should I do?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "Call us on 0330 123 4567 straight away" in out["answer"]
    assert "A replacement SIM is free" not in out["answer"]


def test_a_forum_saying_free_is_named_against_the_plans_price(network: Path) -> None:
    out = ask(network, "Is roaming free in the EU?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("Roaming in the EU costs £2 a day")
    assert 'forum (customer) states "EU roaming is still free' in out["answer"]
