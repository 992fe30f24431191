"""A yes-or-no answer through the CLI (issue 41, asking a knowledge base of my own): "Can
I take a Spokeway bike on the train?" quoted the help centre's second sentence without
the "No." it opens with, and named the terms' "You must be at least 16 years old to
hire a Spokeway bike." as a source that disagrees, though it says nothing of trains."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import ask, knowledge_base

TERMS = """---
title: Spokeway terms of use (2026)
published: 2026-03-01
---
# Spokeway terms of use

## Who can ride

You must be at least 16 years old to hire a Spokeway bike. E-bikes may only be hired by
riders aged 18 or over.

## Returning a bike

End every ride at a Spokeway dock or inside a marked parking zone shown in the app.
"""

HELP_CENTRE = """---
title: Spokeway help centre
published: 2026-04-01
---
# Spokeway help centre

## Can I take a bike on the train?

No. Spokeway bikes must stay inside the service area, which ends at the city boundary.
Taking a bike outside the service area ends your hire and a £20 recovery fee applies.

## How many bikes can I hire at once?

One account can hire up to two bikes at the same time.
"""


def test_a_yes_no_answer_opens_as_its_passage_does_and_names_no_false_disagreement(
    tmp_path: Path,
) -> None:
    db = knowledge_base(tmp_path, {
        "terms.md": (TERMS, ["terms", "--kind", "official"]),
        "faq.md": (HELP_CENTRE, ["faq", "--kind", "verified_kb"]),
    })  # fmt: skip
    out = ask(db, "Can I take a Spokeway bike on the train?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("No. Spokeway bikes must stay inside"), out["answer"]
    assert not any("disagree" in note for note in out["notes"]), out["notes"]
