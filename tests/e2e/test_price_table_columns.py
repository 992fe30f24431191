"""A price table asked for an item it does not price (issue 41, found in the fitting
suite's vet price list): each row shares most of the question's words, but none is the
item asked for. The answer must not quote another item's price; asked for an item the
table has, its row answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

PRICES = """---
title: Fenwick Vets vaccination prices
published: 2026-09-01
---
# Vaccination prices

| Species | Vaccine | First dose | Price per dose |
|---|---|---|---|
| Dog | DHP core | 8 weeks | £46.00 |
| Dog | Rabies | 12 weeks | £68.00 |
| Cat | FCP core | 9 weeks | £52.00 |
| Cat | FeLV | 9 weeks | £42.00 |

Prices include the health check at the same appointment.
"""


@pytest.fixture(scope="module")
def prices_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("prices"), {
        "prices.md": (PRICES, ["fenwick-prices", "--kind", "official"]),
    })  # fmt: skip


def test_r_a_row_of_another_species_or_vaccine_is_not_the_answer(
    prices_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Judged by support alone, so that what the answerer drafts is what is tested:
    before, the cat's FCP row and its £52.00 answered the rabies question."""
    monkeypatch.setenv("ASSAY_CORRECTNESS_MODEL", "none")
    out = ask(prices_db, "How much does the rabies vaccine cost for a cat?", "--policy",
              "informational")  # fmt: skip
    assert out["status"] != "answered", out["answer"]
    assert "another" in out["answer"], out["answer"]
    for price in ("£52.00", "£42.00", "£68.00", "£46.00"):
        assert not out["answer"].startswith(price), out["answer"]
    dog = ask(prices_db, "How much does the rabies vaccine cost for a dog?", "--policy",
              "informational")  # fmt: skip
    assert dog["status"] == "answered", dog["answer"]
    assert "£68.00" in dog["answer"], dog["answer"]
