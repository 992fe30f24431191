"""A garage's customer pages of my own, asked through the CLI (issue 41): "What's in an
interim service?" was answered "An interim service is for cars that cover high mileage,
between full services.", what it is for, beside "It includes an oil and filter change and
40 safety checks".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

SERVICES = """---
title: What our services include
published: 2026-10-20
---
# What our services include

## Interim service

An interim service is for cars that cover high mileage, between full services.
It includes an oil and filter change and 40 safety checks.
We recommend one every 6 months or 6,000 miles.

## Full service

A full service includes everything in the interim service plus a new air filter,
brake fluid check and 80 checks in all.
We recommend one every 12 months or 12,000 miles, whichever comes first.
"""


@pytest.fixture(scope="module")
def garage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("garage"),
        {"services.md": (SERVICES, ["services", "--kind", "official"])},
    )


def test_what_a_service_holds_is_answered_by_what_it_includes(garage: Path) -> None:
    out = ask(garage, "What's in an interim service?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "oil and filter change" in out["answer"], out["answer"]
