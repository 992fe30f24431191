"""An answer that rests on a chat message alone is not published while the policy is
found too (issue 41, asking a knowledge base of my own): "Can I use SMS codes for MFA?"
was answered from the staff chat's "Pretty sure SMS codes are fine for MFA" (its words
echo the question), with only a note that the official policy, which forbids
text-message codes, was found too and is more reliable."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli
from tests.e2e.conftest import ask, knowledge_base

POLICY = """---
title: Orrin Labs information security policy
published: 2026-02-01
---
# Orrin Labs information security policy

## Multi-factor authentication

Multi-factor authentication is required for email, the VPN and every system that holds
customer data. Use the authenticator app; text-message codes are not allowed.

## Laptops

Laptops must use full-disk encryption and lock after 5 minutes without use.
"""

CHAT = json.dumps({
    "id": "c1", "title": "#it-help", "published": "2026-03-10",
    "text": "Pretty sure SMS codes are fine for MFA, that's what I use.",
})  # fmt: skip


def test_an_answer_resting_on_a_chat_message_alone_is_kept_for_review(tmp_path: Path) -> None:
    db = knowledge_base(tmp_path, {
        "policy.md": (POLICY, ["policy", "--kind", "official"]),
        "chat.jsonl": (CHAT + "\n", ["chat", "--kind", "unverified"]),
    })  # fmt: skip
    out = ask(db, "Can I use SMS codes for MFA?", "--policy", "informational")
    assert out["status"] == "abstained_judge", out["answer"]  # the chat is not published
    assert "rests on chat (unverified) alone, not on policy (official)" in out["answer"]
    assert out["assessment"]["recommended_action"] == "human_review"
    assert out["review_id"] is not None
    verified = run_cli("audit", "verify", db=db)  # the replay holds the same rule
    assert verified.exit_code == 0, verified.output
