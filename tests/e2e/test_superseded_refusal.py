"""A refusal caused by supersession names it (issue 41, asking a knowledge base of my
own): "How much did support cost in 2024?" of a 2024 user guide that the 2026 guide
supersedes was refused as "too weak", and the refusal asked for documents that cover the
question, which the knowledge base holds: only a superseded source states it."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import ask, knowledge_base

GUIDE_2024 = """---
title: Tallyfold user guide (2024)
published: 2024-02-01
---
# Tallyfold user guide

## Support

Paid support costs €9 per user per month.
"""

GUIDE_2026 = """---
title: Tallyfold user guide (2026)
published: 2026-11-01
---
# Tallyfold user guide

## Installing

Tallyfold needs Python 3.10 or newer.

## Support

Paid support costs €12 per user per month and answers within one business day.
"""


def test_a_refusal_names_the_superseded_source_that_holds_the_question(tmp_path: Path) -> None:
    db = knowledge_base(tmp_path, {
        "guide-2024.md": (GUIDE_2024, ["guide-2024", "--kind", "official"]),
        "guide-2026.md": (GUIDE_2026, ["guide-2026", "--kind", "official",
                                       "--supersedes", "guide-2024"]),
    })  # fmt: skip
    out = ask(db, "How much did support cost in 2024?", "--policy", "informational")
    assert "€9" not in out["answer"], out["answer"]  # a superseded source never answers
    assert out["status"] != "answered", out["answer"]
    assert "of guide-2024 were kept out: guide-2026 supersedes it" in out["answer"]
    assert "assay sources update guide-2026 --no-supersedes" in out["answer"]
