"""The ``audit_events`` table: appends under the write lock, reads by filter and page.

The chain itself (hashes, seals, what a row must hold) is :mod:`assay.audit.log`'s; this
module only stores and reads rows. Each backend adds ``raw_rows``, which hands the
verifier every row exactly as stored, text columns as bytes, so that a row whose bytes
were edited is checked as it is, not as a decoder repaired it; and ``head(for_append=True)``
where its unit of work alone does not keep two appends from reading the same head.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from assay.events import JsonObject
from assay.store.records import AuditEvent, AuditFilter, AuditRow
from assay.store.sql.session import Session

COLUMNS = (
    "seq, event_id, created_at, kind, query, query_hash, policy_name, policy_version,"
    " payload, prev_hash, row_hash, actor, seal, schema_version"
)


class SQLAuditRepository:
    """The backend-independent part of :class:`~assay.store.repositories.AuditRepository`."""

    def __init__(self, conn: Session) -> None:
        self._conn = conn

    def head(self, *, for_append: bool = False) -> tuple[int, str] | None:
        row = self._conn.execute(
            "SELECT seq, row_hash FROM audit_events ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return (int(row["seq"]), str(row["row_hash"])) if row else None

    def insert(self, columns: AuditRow) -> None:
        self._conn.execute(
            f"INSERT INTO audit_events ({COLUMNS}) VALUES"
            " (:seq, :event_id, :created_at, :kind, :query, :query_hash, :policy_name,"
            " :policy_version, :payload, :prev_hash, :row_hash, :actor, :seal, :schema_version)",
            dict(columns),
        )

    def by_prefix(self, prefix: str, limit: int) -> list[AuditEvent]:
        rows = self._conn.execute(
            f"SELECT {COLUMNS} FROM audit_events WHERE event_id LIKE ? || '%' LIMIT {int(limit)}",
            (prefix,),
        )
        return [_event(dict(r)) for r in rows]

    def newest(
        self, where: AuditFilter, *, limit: int | None, before_seq: int | None
    ) -> list[AuditEvent]:
        clause, args = _where(where, before_seq=before_seq)
        sql = f"SELECT {COLUMNS} FROM audit_events{clause} ORDER BY seq DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_event(dict(r)) for r in self._conn.execute(sql, args)]

    def oldest(
        self, where: AuditFilter, *, after_seq: int = 0, limit: int | None = None
    ) -> Iterator[AuditEvent]:
        clause, args = _where(where, after_seq=after_seq)
        sql = f"SELECT {COLUMNS} FROM audit_events{clause} ORDER BY seq"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        for row in self._conn.execute(sql, args):
            yield _event(dict(row))

    def hash_at(self, seq: int) -> str | None:
        row = self._conn.execute(
            "SELECT row_hash FROM audit_events WHERE seq = ?", (min(int(seq), 2**63 - 1),)
        ).fetchone()
        return None if row is None else str(row["row_hash"])

    def first_sealed(self, up_to_seq: int) -> int | None:
        row = self._conn.execute(
            "SELECT MIN(seq) AS first FROM audit_events WHERE seal IS NOT NULL AND seq <= ?",
            (up_to_seq,),
        ).fetchone()
        return None if row["first"] is None else int(row["first"])

    def last_sealed_by(self, key_id: str) -> int | None:
        row = self._conn.execute(
            "SELECT MAX(seq) AS last FROM audit_events WHERE seal LIKE ?",
            (f"hmac-sha256:{key_id}:%",),
        ).fetchone()
        return None if row["last"] is None else int(row["last"])


def _where(
    where: AuditFilter, *, before_seq: int | None = None, after_seq: int | None = None
) -> tuple[str, list[Any]]:
    clauses = {
        "policy_name = ?": where.policy,
        "kind = ?": where.kind,
        "created_at >= ?": where.since,
        "created_at < ?": where.until,
        "actor = ?": where.actor,
        "seq < ?": before_seq,
        "seq > ?": after_seq,
    }
    parts = [clause for clause, value in clauses.items() if value is not None]
    args = [value for value in clauses.values() if value is not None]
    return (" WHERE " + " AND ".join(parts) if parts else ""), args


def _payload(text: str) -> JsonObject:
    """The stored payload; a damaged one is shown as it is rather than refused: not
    JSON, not an object, numbers of thousands of digits, nesting past the parser's
    depth, or escapes of lone surrogates (which no output could encode)."""
    try:
        value = json.loads(text)
        if "\\ud" in text.lower():  # an escaped surrogate: a lone one survives loads
            json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError):  # JSONDecodeError and the digit limit included
        return {"unreadable_payload": text}
    return value if isinstance(value, dict) else {"unreadable_payload": text}


def _event(columns: dict[str, Any]) -> AuditEvent:  # a sqlite3.Row as a dict
    return AuditEvent(**(columns | {"payload": _payload(columns["payload"])}))
