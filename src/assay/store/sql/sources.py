"""The source registry's rows: ``source_kinds``, ``sources`` and ``source_history``."""

from __future__ import annotations

import json
from datetime import date

from assay.store.records import Source, SourceChange, SourceKind
from assay.store.sql.session import Row, Session


class SQLSourceRepository:
    """:class:`~assay.store.repositories.SourceRepository` on one session."""

    def __init__(self, conn: Session) -> None:
        self._conn = conn

    def kinds(self) -> dict[str, SourceKind]:
        rows = self._conn.execute("SELECT * FROM source_kinds ORDER BY name")
        return {
            r["name"]: SourceKind(
                r["name"], r["reliability"], r["review_interval_days"], bool(r["builtin"])
            )
            for r in rows
        }

    def add_kind(self, kind: SourceKind, created_at: str) -> None:
        self._conn.execute(
            "INSERT INTO source_kinds VALUES (?, ?, ?, ?, ?)",
            (kind.name, kind.reliability, kind.review_interval_days, int(kind.builtin), created_at),
        )

    def find(self, source_id: str) -> Source | None:
        row = self._conn.execute("SELECT * FROM sources WHERE id=?", (source_id,)).fetchone()
        return _source(row) if row else None

    def all(self) -> list[Source]:
        return [_source(r) for r in self._conn.execute("SELECT * FROM sources ORDER BY id")]

    def write(self, source: Source, *, insert: bool) -> None:
        values = _values(source)
        if insert:
            cols = ", ".join(values)
            marks = ", ".join(f":{k}" for k in values)
            self._conn.execute(f"INSERT INTO sources ({cols}) VALUES ({marks})", values)
        else:
            sets = ", ".join(f"{k}=:{k}" for k in values if k != "id")
            self._conn.execute(f"UPDATE sources SET {sets} WHERE id=:id", values)

    def log(self, change: SourceChange) -> None:
        self._conn.execute(
            "INSERT INTO source_history (source_id, version, action, changed_at, actor, note,"
            " snapshot) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                change.source_id,
                change.version,
                change.action,
                change.changed_at,
                change.actor,
                change.note,
                json.dumps(change.snapshot),
            ),
        )

    def supersessions(self, *, for_update: bool = False) -> dict[str, str]:
        # for_update: SQLite's unit of work already holds the database's write lock
        rows = self._conn.execute(
            "SELECT id, supersedes FROM sources WHERE supersedes IS NOT NULL ORDER BY id"
        )
        return {r["id"]: r["supersedes"] for r in rows}

    def history(self, source_id: str) -> list[SourceChange]:
        rows = self._conn.execute(
            "SELECT * FROM source_history WHERE source_id=? ORDER BY version", (source_id,)
        )
        return [
            SourceChange(
                r["source_id"],
                r["version"],
                r["action"],
                r["changed_at"],
                r["actor"],
                r["note"],
                json.loads(r["snapshot"]),
            )
            for r in rows
        ]


def _values(s: Source) -> dict[str, object]:
    return {
        "id": s.id,
        "kind": s.kind,
        "reliability": s.reliability,
        "name": s.name,
        "owner": s.owner,
        "jurisdiction": s.jurisdiction,
        "court_level": s.court_level,
        "overruled": int(s.overruled),
        "retired": int(s.retired),
        "review_interval_days": s.review_interval_days,
        "reviewed_at": s.reviewed_at.isoformat() if s.reviewed_at else None,
        "metadata": json.dumps(s.metadata, sort_keys=True),
        "supersedes": s.supersedes,
        "version": s.version,
        "created_at": s.created_at,
        "updated_at": s.updated_at,
    }


def _source(row: Row) -> Source:
    return Source(
        id=row["id"],
        kind=row["kind"],
        reliability=row["reliability"],
        review_interval_days=row["review_interval_days"],
        name=row["name"],
        owner=row["owner"],
        jurisdiction=row["jurisdiction"],
        court_level=row["court_level"],
        overruled=bool(row["overruled"]),
        retired=bool(row["retired"]),
        reviewed_at=date.fromisoformat(row["reviewed_at"]) if row["reviewed_at"] else None,
        metadata=json.loads(row["metadata"]),
        supersedes=row["supersedes"],
        version=row["version"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )
