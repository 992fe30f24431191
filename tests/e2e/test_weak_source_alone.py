"""An answer that rests on a chat message alone is not published while the policy is
found too (issue 41, asking a knowledge base of my own): "Can I use SMS codes for MFA?"
was answered from the staff chat's "Pretty sure SMS codes are fine for MFA" (its words
echo the question), with only a note that the official policy, which forbids
text-message codes, was found too and is more reliable. A yes-or-no question is now
drafted from the policy, the chat named as disagreeing; a chat's claim the policy does
not answer ("Passwords still expire every 90 days") is kept for review."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.e2e.conftest import ask, knowledge_base

POLICY = """---
title: Orrin Labs information security policy
published: 2026-02-01
---
# Orrin Labs information security policy

## Passwords

Passwords must be at least 14 characters long. Never reuse a password from another
service.

## Multi-factor authentication

Multi-factor authentication is required for email, the VPN and every system that holds
customer data. Use the authenticator app; text-message codes are not allowed.

## Laptops

Laptops must use full-disk encryption and lock after 5 minutes without use.
"""

CHAT = "\n".join(json.dumps(message) for message in [
    {"id": "c1", "title": "#it-help", "published": "2026-03-10",
     "text": "Pretty sure SMS codes are fine for MFA, that's what I use."},
    {"id": "c2", "title": "#it-help", "published": "2026-04-22",
     "text": "Passwords still expire every 90 days, mine just did."},
])  # fmt: skip


@pytest.fixture(scope="module")
def policy_and_chat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("security"), {
        "policy.md": (POLICY, ["policy", "--kind", "official"]),
        "chat.jsonl": (CHAT + "\n", ["chat", "--kind", "unverified"]),
    })  # fmt: skip


def test_an_answer_resting_on_a_chat_message_alone_is_kept_for_review(
    policy_and_chat: Path,
) -> None:
    out = ask(policy_and_chat, "How often do passwords expire?", "--policy", "informational")
    assert out["status"] == "abstained_judge", out["answer"]  # the chat is not published
    assert "rests on chat (unverified) alone, not on policy (official)" in out["answer"]
    assert out["assessment"]["recommended_action"] == "human_review"
    assert out["review_id"] is not None
    verified = run_cli("audit", "verify", db=policy_and_chat)  # the replay holds the same rule
    assert verified.exit_code == 0, verified.output


def test_a_yes_or_no_question_is_drafted_from_the_policy_not_the_chat(
    policy_and_chat: Path,
) -> None:
    out = ask(policy_and_chat, "Can I use SMS codes for MFA?", "--policy", "informational")
    assert out["status"] != "answered" or "text-message codes are not allowed" in out["answer"]
    assert (
        "Pretty sure SMS codes are fine for MFA" not in out["answer"].split("Sources disagree")[0]
    )
    assert 'chat (unverified) states "Pretty sure SMS codes are fine for MFA' in out["answer"]
