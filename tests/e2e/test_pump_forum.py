"""A boat owner's knowledge base (issue 41, found in the held-out ordinary suite): a
pump's data sheet and an owners' forum. The forum's contradiction must be named beside
the data sheet's answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

SHEET = """---
title: Tidewater HP-300 bilge pump data sheet
published: 2026-09-01
---
# Tidewater HP-300 bilge pump data sheet

## Operating limits

Pumped liquid: fresh or sea water with light oil traces only. Water temperature: 0 °C to
50 °C. Dry running: the HP-300 must not run dry for more than 3 minutes at a time.
Continuous duty is allowed while the pump is submerged. Solids: passes particles up to
4 mm. Larger debris is held back by the strainer. The housing is sealed to IP68. The
motor has a thermal cut-out that resets once it cools.
"""
FORUM = json.dumps({
    "id": "p1", "title": "Running a bilge pump dry?", "published": "2026-10-27",
    "text": "Don't worry about running these dry. My HP-300 sat there humming in an empty "
    "bilge for over an hour when the float stuck, and it still works.",
}) + "\n"  # fmt: skip


@pytest.fixture(scope="module")
def pump_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("pump"), {
        "sheet.md": (SHEET, ["tidewater-sheet", "--kind", "official", "--owner", "Tidewater"]),
        "forum.jsonl": (FORUM, ["owners-forum", "--kind", "unverified", "--owner", "owners"]),
    })  # fmt: skip


def test_r_the_forum_that_says_dont_worry_is_named_as_a_disagreement(pump_db: Path) -> None:
    """ "Don't worry about running these dry" read as a denial, like the data sheet's
    "must not run dry", so the two seemed to agree."""
    out = ask(pump_db, "Is it fine to let my HP-300 run for a long time in an empty bilge?",
              "--policy", "informational")  # fmt: skip
    cited = {s["source_id"] for s in out["sources"] if s["cited"]}
    assert cited == {"tidewater-sheet"}, out["answer"]
    assert "owners-forum (unverified) states" in out["answer"], out["answer"]
