"""A pet insurer's cover summary of my own, asked through the CLI (issue 41): "Can I
insure my 12 year old dog?" was published as "We insure cats and dogs from 8 weeks old",
beside the sentence of the same passage that answers it."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import ask, knowledge_base

AGES = (
    "We insure cats and dogs from 8 weeks old. A new policy can be taken out until your "
    "pet is 10 years old; existing policies renew at any age."
)
SUMMARY = f"""---
title: Bramble Pet Insurance cover summary
published: 2026-02-01
---
# Cover summary

## Claims

Send us your claim within 6 months of the treatment date.

## Ages

{AGES}
"""


def test_the_sentence_that_bounds_the_askers_age_is_quoted(tmp_path: Path) -> None:
    db = knowledge_base(tmp_path, {"summary.md": (SUMMARY, ["summary", "--kind", "official"])})
    response = ask(db, "Can I insure my 12 year old dog?")
    drafted = " ".join(claim["claim"] for claim in response["judge"]["claims"])
    assert "until your pet is 10 years old" in drafted, response["answer"]
    assert "from 8 weeks old" not in drafted
