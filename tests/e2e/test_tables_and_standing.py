"""A leisure centre's knowledge base, built through the CLI (issue 41): a price list
with tables that supersedes last year's, membership terms, and forum posts. Found in
this issue's closing check: a tier's price led with its "Includes" cell, the joining fee
named the freeze fee and the guests' "free of charge" as disagreements, and a forum post
answered for the price list without saying so."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask
from tests.e2e.test_reliable_source_leads import knowledge_base

PRICES = """---
title: "Millbrook Leisure Centre: Prices 2026"
published: 2026-01-01
---
# Millbrook Leisure Centre: Prices 2026

## Memberships

| Plan | Monthly price | Includes |
|---|---|---|
| Bronze | £24 | Swimming only |
| Silver | £36 | Swimming and gym |
| Gold | £49 | Swimming, gym, classes and sauna |

A joining fee of £15 applies to Silver and Gold. Bronze has no joining fee.
"""
OLD_PRICES = """---
title: "Millbrook Leisure Centre: Prices 2025"
published: 2025-01-01
---
# Millbrook Leisure Centre: Prices 2025

## Memberships

| Plan | Monthly price | Includes |
|---|---|---|
| Silver | £33 | Swimming and gym |

A joining fee of £20 applies to all plans.
"""
TERMS = """---
title: "Millbrook Leisure Centre: Membership Terms"
published: 2026-01-01
---
# Millbrook Leisure Centre: Membership Terms

## Freezing your membership

Silver and Gold members may freeze their membership for between 1 and 3 months in any
12-month period, for a fee of £5 a month while frozen.

## Guests

Gold members may bring one guest per visit, up to four times a month, free of charge.
"""
POST = """---
title: "Sauna at Millbrook"
published: 2026-06-01
---
The sauna is included with Silver too, I use it every week on my Silver plan.
"""


@pytest.fixture(scope="module")
def centre_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("centre"), {
        "prices-2025.md": (OLD_PRICES, ["prices-2025", "--kind", "official"]),
        "prices-2026.md": (PRICES, ["prices-2026", "--kind", "official",
                                    "--supersedes", "prices-2025"]),
        "terms.md": (TERMS, ["terms", "--kind", "official"]),
        "forum.md": (POST, ["forum", "--kind", "unverified"]),
    })  # fmt: skip


def cited(out: dict) -> set[str]:  # type: ignore[type-arg]
    return {s["source_id"] for s in out["sources"] if s["cited"]}


def test_a_tiers_price_leads_with_the_price(centre_db: Path) -> None:
    out = ask(centre_db, "What does the Silver plan cost per month?", "--policy", "informational")
    assert out["answer"].startswith("£36: "), out["answer"]
    assert cited(out) == {"prices-2026"}


def test_the_freeze_fee_is_no_disagreement_with_the_joining_fee(centre_db: Path) -> None:
    out = ask(centre_db, "What is the joining fee for the Gold plan?", "--policy", "informational")
    assert "£15" in out["answer"] and "Sources disagree" not in out["answer"], out["answer"]
    assert "£20" not in out["answer"]  # the superseded price list never speaks


def test_an_answer_never_rests_silently_on_a_forum_post(centre_db: Path) -> None:
    """The price list's Silver row does not say "sauna"; whichever source the answer
    cites, a reader is told when it is the post's word alone."""
    out = ask(centre_db, "Is the sauna included in the Silver plan?", "--policy", "informational")
    if out["status"] == "answered" and cited(out) == {"forum"}:
        assert (
            "It rests on forum (unverified) alone, not on prices-2026 (official)" in (out["answer"])
        )
