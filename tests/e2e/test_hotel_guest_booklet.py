"""A hotel's guest booklet and spa price list of my own, asked through the CLI (issue 41):
"What time can I check in?" was asked back ("none that mention check") beside "Check-in
opens at 3pm"; "Where can I park if the hotel car park is full?" was answered with the
car park's size, not the case asked about; "How much is an hour-long massage?" was
answered "£45", the price of a 30-minute one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

BOOKLET = """---
title: Harbourside Hotel guest information
published: 2026-09-01
---
# Welcome to the Harbourside Hotel

## Arriving and leaving

Check-in opens at 3pm. Rooms must be vacated by 11am on the day you leave.

## Parking

Our car park has 14 spaces and cannot be booked in advance. Parking costs £10 per night,
paid at reception. When it is full, the long-stay car park on Abbey Road is a five-minute
walk away.

## Pets

Dogs are welcome in our ground-floor rooms for £15 per dog per night, up to two dogs per
room. Dogs are not allowed in the Quay Room or the spa.
"""
RATES = """---
title: Harbourside Hotel rates and policies (2026)
published: 2026-03-01
---
# Rates and policies 2026

## Room rates

| Room | Sunday to Thursday | Friday and Saturday |
|---|---|---|
| Standard double | £110 | £145 |
| Sea-view double | £140 | £180 |
"""
SPA = """---
title: Harbourside Spa price list
published: 2026-05-10
---
# Harbourside Spa

| Treatment | Length | Price |
|---|---|---|
| Back massage | 30 minutes | £45 |
| Full body massage | 60 minutes | £80 |
| Sea salt facial | 45 minutes | £60 |
"""


@pytest.fixture(scope="module")
def hotel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hotel")
    return knowledge_base(folder, {
        "booklet.md": (BOOKLET, ["booklet", "--kind", "official"]),
        "spa.md": (SPA, ["spa", "--kind", "official"]),
        "rates.md": (RATES, ["rates", "--kind", "official"]),
    })  # fmt: skip


def test_a_compound_of_the_evidence_covers_the_words_asked_apart(hotel: Path) -> None:
    out = ask(hotel, "What time can I check in?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("3pm: Check-in opens at 3pm"), out["answer"]


def test_the_sentence_stating_the_case_asked_about_answers(hotel: Path) -> None:
    out = ask(hotel, "Where can I park if the hotel car park is full?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "the long-stay car park on Abbey Road" in out["answer"], out["answer"]
    assert "14 spaces" not in out["answer"]


def test_the_row_of_the_length_asked_for_answers(hotel: Path) -> None:
    out = ask(hotel, "How much is an hour-long massage?", "--policy", "informational")
    drafted = " ".join(claim["claim"] for claim in out["judge"]["claims"])
    assert "£80" in drafted, out["answer"]
    assert "£45" not in out["answer"]


def test_asked_whether_dogs_are_allowed_the_rule_comes_before_its_exception(hotel: Path) -> None:
    out = ask(hotel, "Are dogs allowed?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("Dogs are welcome in our ground-floor rooms"), out["answer"]


def test_a_day_asked_for_picks_the_column_whose_span_holds_it(hotel: Path) -> None:
    out = ask(hotel, "How much is a standard double on a Tuesday?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("£110: "), out["answer"]
    assert "does not hold everything asked for" not in out["answer"]
