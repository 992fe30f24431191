"""What monitoring reads from ``audit_events`` (the alerts are :mod:`assay.store.sql.alerts`).

The numbers of each ``ask``/``score`` event are pulled out of its payload by SQLite
(``json_extract``) and streamed, so a window over a log of 100k events never builds the
events' full payloads in Python; :mod:`assay.monitor.events` turns each row into an
``EventRow``. The JSON paths below are the audit payload's fields as the engine writes them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from typing import Any

from assay.store.sql.alerts import SQLAlerts

_FIELDS = (
    "seq, event_id, created_at, kind, policy_name, policy_version,"
    " CASE kind WHEN 'ask' THEN COALESCE(json_extract(payload, '$.calibration.set.value'),"
    "  json_extract(payload, '$.signals.composite'))"
    " ELSE (SELECT MAX(json_extract(e.value, '$.confidence'))"
    "  FROM json_each(payload, '$.evidence') AS e WHERE json_extract(e.value, '$.admitted'))"
    " END AS score,"
    " (SELECT MAX(json_extract(e.value, '$.confidence'))"
    "  FROM json_each(payload, '$.evidence') AS e) AS strength,"
    " json_extract(payload, '$.counts.admitted') AS admitted,"
    " json_extract(payload, '$.status') AS status,"
    " json_extract(payload, '$.route.decision') AS decision,"
    " json_extract(payload, '$.assessment.recommended_action') AS action,"
    " json_array_length(payload, '$.fallbacks') AS fallbacks,"
    " json_extract(payload, '$.policy.labels.high') AS high,"
    " json_extract(payload, '$.policy.labels.medium') AS medium"
)
_ITEMS = (
    ", (SELECT json_group_array(json_array("
    "  COALESCE(json_extract(e.value, '$.source_id'), json_extract(e.value, '$.source_kind')),"
    "  json_extract(e.value, '$.confidence'), json_extract(e.value, '$.admitted')))"
    "  FROM json_each(payload, '$.evidence') AS e) AS items"
)
_VERDICTS = "json_extract(payload, '$.event_id'), json_extract(payload, '$.verdict')"


class SQLiteMonitorRepository(SQLAlerts):
    """:class:`~assay.store.repositories.MonitorRepository` on one SQLite connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)

    # -- the audit log, read for monitoring -----------------------------------
    def window(
        self,
        *,
        policy: str | None,
        window: int | None,
        since: str | None,
        before_seq: int | None,
        items: bool,
        untightened: bool,
    ) -> Iterator[Mapping[str, Any]]:
        where: list[str] = ["kind IN ('ask', 'score')"]
        args: list[str | int] = []
        if policy is not None:
            where.append("policy_name = ?")
            args.append(policy)
        if since is not None:
            where.append("created_at >= ?")
            args.append(since)
        if before_seq is not None:
            where.append("seq < ?")
            args.append(int(before_seq))
        if untightened:
            where.append("policy_version NOT LIKE '%+tightened%'")
        sql = f"SELECT {_FIELDS}{_ITEMS if items else ''} FROM audit_events WHERE "
        sql += " AND ".join(where)
        if window is None:
            sql += " ORDER BY seq"
        else:
            sql = f"SELECT * FROM ({sql} ORDER BY seq DESC LIMIT {int(window)}) ORDER BY seq"
        for row in self._conn.execute(sql, args):
            yield dict(row)

    def policies_with_events(self) -> list[str]:
        rows = self._conn.execute(
            "SELECT DISTINCT policy_name FROM audit_events WHERE kind IN ('ask', 'score')"
            " ORDER BY policy_name"
        )
        return [str(r["policy_name"]) for r in rows]

    def review_verdicts(self, after_seq: int) -> Iterator[tuple[Any, Any]]:
        rows = self._conn.execute(
            f"SELECT {_VERDICTS} FROM audit_events WHERE kind = 'review' AND seq > ? ORDER BY seq",
            (int(after_seq),),
        )
        yield from rows
