"""A changelog asked which version did something (issue 41, found in the held-out
ordinary suite): the version is the heading the entry stands under, never named in the
entry itself. The answer must state it and the judge must find it supported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

CHANGELOG = """---
title: Tallyfold changelog
published: 2026-11-20
---
# Tallyfold changelog

All notable changes to Tallyfold are listed here.

## 3.2.0 — 2026-11-20

### Added

- `tally merge` joins two ledgers into one, keeping both histories.

### Changed

- Python 3.10 or newer is now required.

## 3.1.0 — 2026-08-04

### Added

- `tally diff` compares two ledgers and prints the differing entries.
- Budgets can now roll over unspent amounts to the next month.

## 3.0.0 — 2026-03-15

### Changed

- Ledgers are stored in SQLite instead of flat files. Run `tally migrate` once after upgrading.
"""


@pytest.fixture(scope="module")
def changelog_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("changelog"), {
        "CHANGELOG.md": (CHANGELOG, ["tallyfold-changelog", "--kind", "official"]),
    })  # fmt: skip


@pytest.mark.parametrize(
    ("question", "version"),
    [
        ("Which version added the diff command?", "3.1.0"),
        ("Which release introduced tally merge?", "3.2.0"),
    ],
)
def test_g_the_version_asked_for_comes_from_the_heading_and_is_supported(
    changelog_db: Path, question: str, version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Judged by its support alone (no correctness model), so that what the answerer
    states and what the judge makes of it are what is tested: before, the answer quoted
    the entry without its version, and a version stated first was graded contradicted
    (the passage's text lacks it; its heading has it)."""
    monkeypatch.setenv("ASSAY_CORRECTNESS_MODEL", "none")
    out = ask(changelog_db, question, "--policy", "informational")
    assert f"{version}: - `tally" in out["answer"], out["answer"]  # hedged or not
    assert out["status"] == "answered", out["answer"]
    assert out["assessment"]["unsupported_claims"] == []
    assert {s["source_id"] for s in out["sources"] if s["cited"]} == {"tallyfold-changelog"}
