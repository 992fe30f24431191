"""Supersession in the source registry and the audit log, on each backend (SQLite and
PostgreSQL, through the ``engine`` fixture): links stored, validated and recorded in the
history; the gate's supersession verdicts stored in the audit row and replayed."""

from __future__ import annotations

import json
import sqlite3
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from assay import Assay, Candidate, InvalidInputError
from assay.audit.log import _row_hash
from assay.audit.replay import replay_problems
from assay.errors import UnknownSourceError
from assay.events import SCHEMA_VERSION, ScoreRecord
from assay.hashing import canonical_json
from assay.sources import SourceRegistry, changed_fields
from assay.store import open_database
from assay.store.sqlite.migrations import MIGRATIONS
from tests.conftest import AS_OF
from tests.rawdb import RawDatabase

OLD, NEW = "travel-policy-2024", "travel-policy-2026"


@pytest.fixture
def versions(engine: Assay) -> Assay:
    """The engine with two versions of a travel policy, the new one superseding the old."""
    engine.sources.add(OLD, "official", owner="Acme")
    engine.sources.add(NEW, "official", owner="Acme", supersedes=OLD, note="2026 revision")
    return engine


def test_supersedes_round_trip(versions: Assay) -> None:
    registry = versions.sources
    assert registry.get(NEW).supersedes == OLD
    assert registry.get(OLD).supersedes is None
    assert registry.supersessions() == {NEW: OLD}
    assert registry.superseded_by(OLD) == (NEW,) and registry.superseded_by(NEW) == ()
    registry.add("travel-policy-2025", "official")
    moved = registry.update(NEW, supersedes="travel-policy-2025", note="inserted 2025")
    registry.update("travel-policy-2025", supersedes=OLD)
    assert moved.version == 2 and moved.as_dict()["supersedes"] == "travel-policy-2025"
    assert registry.superseded_by(OLD) == ("travel-policy-2025", NEW)
    cleared = registry.update(NEW, supersedes=None)
    assert cleared.supersedes is None and registry.superseded_by("travel-policy-2025") == ()
    history = registry.history(NEW)
    assert [h.snapshot["supersedes"] for h in history] == [OLD, "travel-policy-2025", None]
    changes = [
        changed_fields(before.snapshot if before else None, h.snapshot)
        for before, h in zip([None, *history], history, strict=False)
    ]
    assert changes[0]["supersedes"] == OLD
    assert changes[1:] == [{"supersedes": "travel-policy-2025"}, {"supersedes": None}]


def test_an_unknown_source_cannot_be_superseded(versions: Assay) -> None:
    with pytest.raises(InvalidInputError) as raised:
        versions.sources.add("travel-policy-2027", "official", supersedes="travel-policy-2062")
    message = str(raised.value)
    assert "supersedes='travel-policy-2062' is not in the source registry" in message
    assert "did you mean 'travel-policy-2026'?" in message and "assay sources add" in message
    with pytest.raises(UnknownSourceError):  # nothing was written
        versions.sources.get("travel-policy-2027")


def test_a_source_cannot_supersede_itself(versions: Assay) -> None:
    with pytest.raises(InvalidInputError, match=f"supersedes='{NEW}' is the source itself"):
        versions.sources.update(NEW, supersedes=NEW)
    with pytest.raises(InvalidInputError, match="is the source itself"):
        versions.sources.add("x", "official", supersedes="x")
    assert versions.sources.get(NEW).version == 1


def test_supersession_cannot_close_a_cycle(versions: Assay) -> None:
    with pytest.raises(InvalidInputError) as direct:
        versions.sources.update(OLD, supersedes=NEW)
    assert str(direct.value).startswith(f"supersedes='{NEW}' would make a cycle; ")
    assert f"{NEW} already supersedes {OLD} ({NEW} -> {OLD})" in str(direct.value)
    assert "--no-supersedes" in str(direct.value)
    versions.sources.add("travel-policy-2027", "official", supersedes=NEW)
    with pytest.raises(InvalidInputError, match=f"travel-policy-2027 -> {NEW} -> {OLD}"):
        versions.sources.update(OLD, supersedes="travel-policy-2027")
    assert versions.sources.get(OLD).supersedes is None and versions.sources.get(OLD).version == 1


def test_a_source_may_be_superseded_by_each_part_of_a_split(versions: Assay) -> None:
    versions.sources.add("travel-hotels-2026", "official", supersedes=OLD)
    assert versions.sources.superseded_by(OLD) == ("travel-hotels-2026", NEW)


def _both(engine: Assay, as_of: date = AS_OF) -> list[dict[str, Any]]:
    """Score an item of each version for one question; the items as ``score --json``."""
    candidates = [
        Candidate("old", "The daily meal allowance is 40 euros.", 0.9, source_id=OLD,
                  published="2024-01-15"),
        Candidate("new", "The daily meal allowance is 55 euros.", 0.9, source_id=NEW,
                  published="2026-01-15"),
    ]  # fmt: skip
    result = engine.score("daily meal allowance?", candidates, as_of=as_of)
    return [e.as_dict() for e in result.evidence]


def test_supersession_is_stored_in_the_audit_row_and_replays(versions: Assay) -> None:
    old, new = _both(versions)
    assert (old["admitted"], old["reason"], old["detail"]) == (
        False,
        "source_superseded",
        f"superseded by {NEW}",
    )
    assert new["admitted"] is True
    (event,) = versions.audit.list()
    record = event.record()
    assert isinstance(record, ScoreRecord)
    stored = {e.id: e for e in record.evidence}
    assert stored["old"].basis.superseded_by == [NEW]
    assert stored["old"].reason == "source_superseded"
    assert versions.audit.verify().ok
    # replayed as of a day before the new version was published: the old one is used
    old_then, _ = _both(versions, as_of=AS_OF.replace(year=2025))
    assert old_then["admitted"] is True
    assert versions.audit.verify().ok


def test_a_forged_supersession_is_named_by_the_replay(versions: Assay) -> None:
    _both(versions)
    (event,) = versions.audit.list()
    payload = event.payload
    assert replay_problems("score", payload) == []

    def forged(change: dict[str, object]) -> list[str]:
        copy = json.loads(json.dumps(payload))
        copy["evidence"][0].update(change)
        return replay_problems("score", copy)

    assert forged({"admitted": True, "reason": None, "detail": None}) == [
        "item 'old': gate verdict admitted recomputes as source_superseded"
    ]
    assert forged({"detail": "superseded by nobody"}) == [
        f"item 'old': 'superseded by nobody' recomputes as 'superseded by {NEW}'"
    ]
    unlinked = json.loads(json.dumps(payload))
    unlinked["evidence"][0]["basis"]["superseded_by"] = []
    assert replay_problems("score", unlinked) == [
        "item 'old': gate verdict source_superseded recomputes as admitted"
    ]


def test_rows_written_before_supersession_still_verify(
    versions: Assay, db_path: Path | str
) -> None:
    """A row whose items' bases have no ``superseded_by`` (written by an earlier release,
    with the schema version) reads, replays and verifies."""
    versions.score("q", [Candidate("c", "Charge between 0 and 45 degrees.", 0.8, source_id=OLD)],
                   as_of=AS_OF)  # fmt: skip
    raw = RawDatabase(db_path)
    (row,) = raw.execute("SELECT * FROM audit_events ORDER BY seq")
    payload = json.loads(row["payload"])
    for item in payload["evidence"]:
        del item["basis"]["superseded_by"]
    assert replay_problems("score", payload) == []
    older = {k: row[k] for k in ("event_id", "created_at", "kind", "query", "query_hash",
                                 "policy_name", "policy_version")}  # fmt: skip
    older |= {"seq": 2, "event_id": "0" * 32, "payload": canonical_json(payload),
              "prev_hash": row["row_hash"], "schema_version": SCHEMA_VERSION}  # fmt: skip
    older["row_hash"] = _row_hash(older)
    raw.execute(
        "INSERT INTO audit_events (seq, event_id, created_at, kind, query, query_hash,"
        " policy_name, policy_version, payload, prev_hash, row_hash, schema_version) VALUES"
        " (:seq, :event_id, :created_at, :kind, :query, :query_hash, :policy_name,"
        " :policy_version, :payload, :prev_hash, :row_hash, :schema_version)",
        older,
    )
    raw.close()
    report = versions.audit.verify()
    assert report.ok, report.problems
    record = versions.audit.get("0" * 32).record()
    assert isinstance(record, ScoreRecord) and record.evidence[0].basis.superseded_by == []


def test_m014_adds_supersedes_to_a_registry_written_before_it(tmp_path: Path) -> None:
    """An SQLite file from before m014 keeps its sources, each superseding nothing."""
    old = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    old.execute("CREATE TABLE _assay_migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    for name, migrate in MIGRATIONS[: [n for n, _ in MIGRATIONS].index("m014_source_supersedes")]:
        migrate(old)
        old.execute("INSERT INTO _assay_migrations VALUES (?, 'then')", (name,))
    old.execute(
        "INSERT INTO sources (id, kind, reliability, review_interval_days, version, created_at,"
        " updated_at) VALUES ('src', 'official', 1.0, 365, 1, 'then', 'then')"
    )
    old.close()
    registry = SourceRegistry(open_database(tmp_path / "old.db"))
    assert registry.get("src").supersedes is None
    registry.add("src-2", "official", supersedes="src")
    assert registry.superseded_by("src") == ("src-2",)
