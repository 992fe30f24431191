"""Two versions of a travel policy through the CLI: registered with ``--supersedes``,
ingested, asked about with the real MiniLM embedder. The old version never drafts an
answer that the new one speaks to, still answers what only it covers (marked as
superseded), and the audit log verifies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import AS_OF, run_cli
from tests.e2e.conftest import ask, copy_db

OLD, NEW = "travel-policy-2024", "travel-policy-2026"
ALLOWANCE = "What is the daily meal allowance for business travel?"
POLICY_2024 = """# Travel policy 2024

## Meal allowance

Employees travelling on company business receive a daily meal allowance of 40 euros for
each full day away from home.

## Booking flights

Flights must be booked through the travel desk at least 14 days before departure.
"""
POLICY_2026 = """# Travel policy 2026

## Meal allowance

Employees travelling on company business receive a daily meal allowance of 55 euros for
each full day away from home.

## Hotels

Hotel rooms are booked through the travel desk; the company pays for a standard room.
"""


@pytest.fixture(scope="module")
def travel_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both versions registered (2026 superseding 2024) and ingested through the CLI."""
    folder = tmp_path_factory.mktemp("travel")
    db = folder / "assay.db"
    added = run_cli("sources", "add", OLD, "--kind", "official", "--owner", "Acme", db=db)
    assert added.exit_code == 0, added.output
    newer = run_cli(
        "sources", "add", NEW, "--kind", "official", "--owner", "Acme", "--supersedes", OLD, db=db
    )
    assert newer.exit_code == 0, newer.output
    assert f"supersedes {OLD}" in newer.stdout
    for source, text, published in [
        (OLD, POLICY_2024, "2024-01-15"),
        (NEW, POLICY_2026, "2026-01-15"),
    ]:
        path = folder / f"{source}.md"
        path.write_text(text, encoding="utf-8")
        ingested = run_cli("ingest", str(path), "--source", source, "--published", published, db=db)
        assert ingested.exit_code == 0, ingested.output
    return db


def by_source(items: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    return [e for e in items if e["source_id"] == source]


def test_superseded_source_never_reaches_context(travel_db: Path) -> None:
    out = ask(travel_db, ALLOWANCE)
    assert out["status"] == "answered"
    assert "55 euros" in out["answer"] and "40 euros" not in out["answer"]
    assert {s["source_id"] for s in out["sources"] if s["cited"]} == {NEW}
    assert by_source(out["admitted"], OLD) == []
    (old,) = [e for e in by_source(out["excluded"], OLD) if "40 euros" in e["text"]]
    assert old["reason"] == "source_superseded"
    assert old["detail"] == f"superseded by {NEW}"
    verified = run_cli("audit", "verify", db=travel_db)
    assert verified.exit_code == 0, verified.output


def test_superseded_source_answers_what_its_successor_does_not_cover(travel_db: Path) -> None:
    """The 2026 policy says nothing about booking flights: the 2024 rule is still the
    best evidence there is, admitted and marked as superseded in its basis."""
    out = ask(travel_db, "How many days before departure must flights be booked?")
    (old,) = by_source(out["admitted"], OLD)
    assert "14 days" in old["text"] and old["basis"]["superseded_by"] == [NEW]
    assert by_source(out["admitted"], NEW) == []
    human = run_cli(
        "ask", "How many days before departure must flights be booked?",
        "--as-of", AS_OF.isoformat(), db=travel_db,
    )  # fmt: skip
    assert f"superseded by {NEW}" in human.stdout


def test_a_decision_as_of_before_the_new_version_uses_the_old_one(travel_db: Path) -> None:
    out = ask(travel_db, ALLOWANCE, "--as-of", "2025-06-01")
    assert "40 euros" in out["answer"]
    assert {e["reason"] for e in by_source(out["excluded"], NEW)} == {"dated_after_as_of"}
    assert run_cli("audit", "verify", db=travel_db).exit_code == 0


def test_sources_list_show_and_clear_name_the_supersession(travel_db: Path) -> None:
    listed = json.loads(run_cli("sources", "list", "--json", db=travel_db).stdout)
    links = {s["id"]: (s["supersedes"], s["superseded_by"]) for s in listed}
    assert links == {OLD: (None, [NEW]), NEW: (OLD, [])}
    table = run_cli("sources", "list", db=travel_db).stdout
    assert f"superseded by {NEW}" in table and f"supersedes {OLD}" in table
    shown = run_cli("sources", "show", OLD, db=travel_db).stdout
    assert f"superseded_by: {NEW}" in shown
    cycle = run_cli("sources", "update", OLD, "--supersedes", NEW, db=travel_db)
    assert cycle.exit_code == 2 and "would make a cycle" in cycle.stderr
    both = run_cli("sources", "update", NEW, "--supersedes", OLD, "--no-supersedes", db=travel_db)
    assert both.exit_code == 2 and "not both" in both.output


def test_clearing_the_link_brings_the_old_version_back(travel_db: Path, tmp_path: Path) -> None:
    db = copy_db(travel_db, tmp_path / "copy.db")
    cleared = run_cli("sources", "update", NEW, "--no-supersedes", "--note", "both in force", db=db)
    assert cleared.exit_code == 0, cleared.output
    shown = json.loads(run_cli("sources", "show", NEW, "--json", db=db).stdout)
    assert shown["supersedes"] is None
    assert [h["changed"].get("supersedes", "-") for h in shown["history"]] == [OLD, None]
    human = run_cli("sources", "show", NEW, db=db).stdout
    assert "update (supersedes=none): both in force" in human
    out = ask(db, ALLOWANCE)
    assert by_source(out["admitted"], OLD) != []
