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


MANUAL = """---
title: Vantro AF55 user manual
published: 2026-04-01
---
# Vantro AF55 user manual

## Error codes

If the display shows a code, write it down before you call us: the code and the serial
number on the base help our engineers find the fault quickly. A code clears itself once
the fault is put right; if the same code comes back, stop using the fryer.

- E1: the temperature sensor has failed. Unplug the fryer and contact Vantro support.
- E2: the fryer has overheated. Unplug it and let it cool for 30 minutes before using it again.
- E3: the drawer is not fully closed. Push it in until it clicks.
"""
BOARD = json.dumps({
    "id": "q2", "title": "E2 code", "published": "2026-06-19",
    "text": "E2 just means the drawer is open, give it a shove.",
})  # fmt: skip


def test_a_post_alone_is_kept_for_review_while_the_manual_names_what_was_asked(
    tmp_path: Path,
) -> None:
    """An air fryer's owner documents of my own: "What does E2 mean?" was published from
    the owners' board ("E2 just means the drawer is open": it echoes "mean"), while the
    manual's error code list, which names E2, read below the similarity floor. (Its E2
    entry is read alone since the session that left other codes' entries out of a meaning
    question's reading; here the section's opening paragraph keeps it below the floor.)"""
    db = knowledge_base(tmp_path, {
        "manual.md": (MANUAL, ["manual", "--kind", "official"]),
        "board.jsonl": (BOARD + "\n", ["board", "--kind", "unverified"]),
    })  # fmt: skip
    out = ask(db, "What does E2 mean?", "--policy", "informational")
    assert out["status"] == "abstained_judge", out["answer"]
    assert "rests on board (unverified) alone, while manual (official) also names" in out["answer"]
    verified = run_cli("audit", "verify", db=db)  # the replay holds the same rule
    assert verified.exit_code == 0, verified.output


def test_rows_that_published_a_post_before_the_rule_still_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row written before a passage kept out for its similarity counted as a source in
    force (the post published) still verifies; so does one written after."""
    import assay.flow.respond

    db = knowledge_base(tmp_path, {
        "manual.md": (MANUAL, ["manual", "--kind", "official"]),
        "board.jsonl": (BOARD + "\n", ["board", "--kind", "unverified"]),
    })  # fmt: skip
    with monkeypatch.context() as before:
        before.setattr(assay.flow.respond, "_passed_over", lambda result, cited: [])
        out = ask(db, "What does E2 mean?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert ask(db, "What does E2 mean?", "--policy", "informational")["status"] != "answered"
    verified = run_cli("audit", "verify", db=db)
    assert verified.exit_code == 0, verified.output
