"""A rail operator's Delay Repay table of my own, asked through the CLI (issue 41): "How
much do I get back if my single train was 40 minutes late?" was refused, "none of the 3
strongest passages of the evidence states the figure or quantity it asks for": every
row's header is "Delay ... minutes", so none stood out, and the reader reads no tables."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import ask, knowledge_base

DELAY_REPAY = """---
title: Pennine Rail Delay Repay
published: 2026-05-17
---
# Delay Repay

If you arrive late at your destination, you can claim compensation whatever the cause of
the delay.

| Delay | Single ticket | Return ticket |
|---|---|---|
| 15 to 29 minutes | 25% of the fare | 12.5% of the fare |
| 30 to 59 minutes | 50% of the fare | 25% of the fare |
| 60 to 119 minutes | 100% of the fare | 50% of the fare |
| 120 minutes or more | 100% of the fare | 100% of the fare |
"""


def test_the_row_whose_range_holds_the_delay_answers(tmp_path: Path) -> None:
    db = knowledge_base(
        tmp_path, {"delay-repay.md": (DELAY_REPAY, ["delay-repay", "--kind", "official"])}
    )
    question = "How much do I get back if my single train was 40 minutes late?"
    out = ask(db, question, "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("50% of the fare: Delay 30 to 59 minutes"), out["answer"]
