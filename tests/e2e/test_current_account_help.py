"""A building society's current account terms of my own, asked through the CLI (issue
41): "How do I close my account?" quoted "Move your Direct Debits first; ...": the
sentence that answers, "To close your account, send us a secure message in the app or
visit any branch.", opens with its purpose and was not read as an instruction. An
instruction for another purpose still is not one ("To restart the hub, ..." for "How do
I factory reset the router?", tests/e2e/test_broadband_router_guide.py)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import ask, knowledge_base

TERMS = """---
title: Northgate current account terms
published: 2026-09-01
---
# Current account terms

## Cash limits

You can withdraw up to £500 a day from cash machines. You can pay in up to £2,000 in cash
a day at any Post Office counter with your debit card.

## Closing your account

To close your account, send us a secure message in the app or visit any branch. Move your
Direct Debits first; we will send any money left to an account you name.
"""


def test_an_instruction_for_the_asked_purpose_answers_how_do_i(tmp_path: Path) -> None:
    db = knowledge_base(tmp_path, {"terms.md": (TERMS, ["account-terms", "--kind", "official"])})
    out = ask(db, "How do I close my account?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("To close your account, send us a secure message"), out[
        "answer"
    ]
