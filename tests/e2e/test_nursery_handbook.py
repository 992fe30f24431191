"""A nursery's parent handbook of my own, asked through the CLI (issue 41): "What time do
you close?" led with "Monday to Friday, 08:00 to 18:00", "What are your opening hours?"
with "50 weeks a year", and "What time do you close in the evening?" was asked back for
"evening" beside "08:00 to 18:00"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ask, knowledge_base

HOURS = "The nursery is open Monday to Friday, 08:00 to 18:00, for 50 weeks a year."
HANDBOOK = f"""---
title: Thornbury Community Nursery parent handbook
published: 2026-08-20
---
# Parent handbook

## Opening hours

{HOURS}

## What to bring

Please bring a named bag with a spare set of clothes. We provide nappies, wipes and sun cream.

## Leaving the nursery

We need four weeks' notice in writing to end a place.
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("nursery")
    return knowledge_base(folder, {"handbook.md": (HANDBOOK, ["handbook", "--kind", "official"])})


def _lead(response: dict[str, Any]) -> str:
    """The first claim the answer drafted, published or withheld, as the judge read it."""
    claims = response["judge"]["claims"]
    assert claims, response["answer"]
    return str(claims[0]["claim"])


def test_the_end_of_the_hours_asked_for_leads(db: Path) -> None:
    assert _lead(ask(db, "What time do you close?")).startswith("18:00")
    assert _lead(ask(db, "What time do you open?")).startswith("08:00")


def test_opening_hours_lead_with_the_hours(db: Path) -> None:
    assert _lead(ask(db, "What are your opening hours?")).startswith("08:00 to 18:00")


def test_the_evening_is_read_in_the_hours(db: Path) -> None:
    evening = ask(db, "What time do you close in the evening?")
    assert evening["status"] != "clarification", evening["answer"]
    assert "evening" not in evening["signals"]["missing_terms"]
