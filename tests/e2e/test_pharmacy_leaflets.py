"""A community pharmacy's leaflets of my own, asked through the CLI (issue 41):

- "How do I order a repeat prescription?" was published as "Order your repeat
  prescription at least 7 days before you run out of medicine.": it echoes the question,
  while the passage under "How to order", as strong, sets out the three steps;
- "How much is a yearly prepayment certificate?" was answered "£32.05" from the 3-month
  row of the charges table, beside the row "Prepayment certificate, 12 months".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

REPEATS = """---
title: Repeat prescriptions leaflet
published: 2026-02-20
---
# Repeat prescriptions

Order your repeat prescription at least 7 days before you run out of medicine.

## How to order

1. Tick the items you need on the right-hand side of your last prescription.
2. Hand the form in at the counter or post it through our letterbox.
3. Collect your medicine from the pharmacy.

Your prescription is usually ready within 2 working days of your order.
"""

CHARGES = """---
title: Prescription charges and exemptions (2026)
published: 2026-05-01
---
# Prescription charges from 1 May 2026

| Item | Charge |
|---|---|
| Single prescription item | £9.90 |
| Prepayment certificate, 3 months | £32.05 |
| Prepayment certificate, 12 months | £114.50 |
"""


@pytest.fixture(scope="module")
def pharmacy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("pharmacy"),
        {
            "repeats.md": (REPEATS, ["repeats", "--kind", "official"]),
            "charges.md": (CHARGES, ["charges-2026", "--kind", "official"]),
        },
    )


def test_how_do_i_is_answered_by_the_numbered_steps(pharmacy: Path) -> None:
    out = ask(pharmacy, "How do I order a repeat prescription?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    for step in ("1. Tick the items you need", "2. Hand the form in", "3. Collect your medicine"):
        assert step in out["answer"], out["answer"]


def test_a_yearly_period_is_the_twelve_month_row(pharmacy: Path) -> None:
    question = "How much is a yearly prepayment certificate?"
    out = ask(pharmacy, question, "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "£114.50" in out["answer"] and "£32.05" not in out["answer"], out["answer"]
