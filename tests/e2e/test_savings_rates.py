"""A building society's savings rates of my own, asked through the CLI (issue 41):
"What is the rate on the 3 year bond?" was answered "4.00%" from the row of the 2 Year
Fixed Bond, though no 3 year bond is listed; the 1 year bond's rate is still given.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

RATES = """---
title: Savings interest rates (November 2026)
published: 2026-11-02
---
# Savings interest rates from 2 November 2026

| Account | Gross rate (AER) | Minimum to open |
|---|---|---|
| Easy Access Saver | 3.15% | £1 |
| 90 Day Notice | 3.90% | £500 |
| 1 Year Fixed Bond | 4.20% | £1,000 |
| 2 Year Fixed Bond | 4.00% | £1,000 |
| Cash ISA | 3.60% | £1 |
"""


@pytest.fixture(scope="module")
def rates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("savings"),
        {"rates.md": (RATES, ["rates-november", "--kind", "official"])},
    )


def test_a_bond_of_another_length_gives_no_rate(rates: Path) -> None:
    out = ask(rates, "What is the rate on the 3 year bond?", "--policy", "informational")
    assert out["status"] != "answered", out["answer"]
    assert "only for another number of years than asked" in out["answer"], out["answer"]


def test_the_bond_of_the_asked_length_gives_its_rate(rates: Path) -> None:
    out = ask(rates, "What's the rate on the 2 year fixed bond?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "4.00%" in out["answer"] and "4.20%" not in out["answer"], out["answer"]
