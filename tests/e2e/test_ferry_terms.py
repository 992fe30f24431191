"""A ferry's booking conditions and timetable of my own, asked through the CLI (issue 41):
a cancellation three days ahead was answered with the case for a week or more, Christmas
Day was asked back beside "no sailings on 25 December", and France beside "EU
countries"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ask, knowledge_base

REFUNDS = (
    "If you cancel 7 days or more before departure you get a full refund. If you cancel "
    "less than 7 days before, we refund half the fare. Passengers who do not turn up get "
    "no refund."
)
SAILINGS = (
    "The crossing takes 55 minutes. There are no sailings on 25 December and 1 January. "
    "On 24 and 31 December the last sailing from Mirran leaves at 14:50."
)
CONDITIONS = f"""---
title: Kittiwake Ferries booking conditions
published: 2026-02-01
---
# Booking conditions

## Cancellations and refunds

{REFUNDS}

## Taking a car abroad

Cars booked through us may be taken on to EU countries for a foreign travel fee of £25.
"""

TIMETABLE = f"""---
title: Kittiwake Ferries winter timetable
published: 2026-02-01
---
# Winter timetable

{SAILINGS}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ferry")
    return knowledge_base(folder, {
        "conditions.md": (CONDITIONS, ["conditions", "--kind", "official"]),
        "timetable.md": (TIMETABLE, ["timetable", "--kind", "official"]),
    })  # fmt: skip


def _drafted(response: dict[str, Any]) -> str:
    """What the answer drafted, published or withheld: its claims as the judge read them."""
    return " ".join(claim["claim"] for claim in response["judge"]["claims"])


def test_the_case_that_holds_the_askers_days_is_quoted(db: Path) -> None:
    three = ask(db, "What do I get back if I cancel three days before I travel?")
    assert "less than 7 days before, we refund half the fare" in _drafted(three)
    assert "full refund" not in _drafted(three)
    nine = ask(db, "What do I get back if I cancel nine days before I travel?")
    assert "7 days or more before departure you get a full refund" in _drafted(nine)


def test_a_holiday_is_read_by_its_date(db: Path) -> None:
    christmas = ask(db, "Is there a ferry on Christmas Day?")
    assert christmas["status"] != "clarification", christmas["answer"]
    assert "no sailings on 25 December" in _drafted(christmas)


def test_a_country_is_read_by_its_group(db: Path) -> None:
    france = ask(db, "Can I take the car to France?")
    assert france["status"] != "clarification", france["answer"]
    assert "EU countries" in _drafted(france)
