"""A question that names a year by its distance from today ("last year"): the answerer
and the judge read it as the year it is on the day asked (issue 41, found in the
held-out ordinary suite: "How much did Arkwell sell in Q2 of last year?" quoted 2026's
row)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

RESULTS = """---
title: Brindle Foods quarterly results
published: 2026-10-20
---
# Brindle Foods quarterly results

## Revenue by quarter

Revenue in the second quarter of 2025 was €31.2 million.

Revenue in the second quarter of 2026 was €35.8 million, up 14.7%.
"""


@pytest.fixture(scope="module")
def results_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("results"), {
        "results.md": (RESULTS, ["brindle-results", "--kind", "official"]),
    })  # fmt: skip


@pytest.mark.parametrize(
    ("when", "figure"), [("of last year", "€31.2 million"), ("this year", "€35.8 million")]
)
def test_g_last_year_is_the_year_before_the_day_asked(
    results_db: Path, when: str, figure: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked on 2026-11-29, "last year" is 2025. Judged by support alone (no correctness
    model), so that which sentence is quoted is what the test sees."""
    monkeypatch.setenv("ASSAY_CORRECTNESS_MODEL", "none")
    out = ask(results_db, f"What was revenue in the second quarter {when}?",
              "--policy", "informational")  # fmt: skip
    assert out["status"] == "answered", out["answer"]
    assert figure in out["answer"], out["answer"]
