"""A broadband provider's router guide of my own, asked through the CLI (issue 41): "How
do I factory reset the router?" was published as "A factory reset deletes your own Wi-Fi
name and password.", the sentence before the steps that answer it."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import ask, knowledge_base

GUIDE = """---
title: Meridian Hub 3 router guide
published: 2026-03-02
---
# Meridian Hub 3

## Restarting and resetting

To restart the hub, switch it off at the back, wait 30 seconds and switch it on again.

A factory reset deletes your own Wi-Fi name and password. Push a paperclip into the pinhole
on the back and hold it for 15 seconds, until the light flashes white.

## Wi-Fi details

Your hub's Wi-Fi name and password are printed on the card that slides out of the bottom of
the hub.
"""


def test_asked_how_to_reset_the_steps_are_drafted(tmp_path: Path) -> None:
    db = knowledge_base(tmp_path, {"guide.md": (GUIDE, ["router-guide", "--kind", "official"])})
    response = ask(db, "How do I factory reset the router?", "--policy", "informational")
    drafted = " ".join(claim["claim"] for claim in response["judge"]["claims"])
    assert "Push a paperclip into the pinhole" in drafted, response["answer"]
    assert "A factory reset deletes" not in response["answer"]
