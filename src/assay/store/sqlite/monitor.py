"""What monitoring reads from ``audit_events`` and keeps in ``monitor_alerts``.

The numbers of each ``ask``/``score`` event are pulled out of its payload by SQLite
(``json_extract``) and streamed, so a window over a log of 100k events never builds the
events' full payloads in Python; :mod:`assay.monitor.events` turns each row into an
``EventRow``. The JSON paths below are the audit payload's fields as the engine writes them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from typing import Any

from assay.store.records import Alert

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
_ALERT_COLUMNS = (
    "id, policy_name, metric, opened_at, closed_at, baseline, current, statistic, p_value,"
    " detail, tightened_by"
)


class SQLiteMonitorRepository:
    """:class:`~assay.store.repositories.MonitorRepository` on one SQLite connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

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
        return [str(r[0]) for r in rows]

    def review_verdicts(self, after_seq: int) -> Iterator[tuple[Any, Any]]:
        rows = self._conn.execute(
            f"SELECT {_VERDICTS} FROM audit_events WHERE kind = 'review' AND seq > ? ORDER BY seq",
            (int(after_seq),),
        )
        yield from rows

    # -- drift alerts -----------------------------------------------------------
    def alerts(self, *, include_closed: bool, policy: str | None) -> list[Alert]:
        where, args = [], []
        if not include_closed:
            where.append("closed_at IS NULL")
        if policy is not None:
            where.append("policy_name = ?")
            args.append(policy)
        sql = f"SELECT {_ALERT_COLUMNS} FROM monitor_alerts"
        sql += (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC"
        return [_alert(r) for r in self._conn.execute(sql, args)]

    def alert(self, alert_id: int) -> Alert | None:
        found = self._conn.execute(
            f"SELECT {_ALERT_COLUMNS} FROM monitor_alerts WHERE id = ?", (alert_id,)
        ).fetchone()
        return None if found is None else _alert(found)

    def open_alert(self, policy_name: str, metric: str) -> Alert | None:
        row = self._conn.execute(
            f"SELECT {_ALERT_COLUMNS} FROM monitor_alerts WHERE closed_at IS NULL"
            " AND policy_name = ? AND metric = ? ORDER BY id DESC LIMIT 1",
            (policy_name, metric),
        ).fetchone()
        return None if row is None else _alert(row)

    def add_alert(self, alert: Alert) -> int:
        cursor = self._conn.execute(
            "INSERT INTO monitor_alerts (policy_name, metric, opened_at, baseline, current,"
            " statistic, p_value, detail, tightened_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                alert.policy_name,
                alert.metric,
                alert.opened_at,
                alert.baseline,
                alert.current,
                alert.statistic,
                alert.p_value,
                json.dumps(dict(alert.detail)),
                alert.tightened_by,
            ),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def close_alert(self, alert_id: int, closed_at: str, detail: Mapping[str, Any]) -> None:
        self._conn.execute(
            "UPDATE monitor_alerts SET closed_at = ?, detail = ?"
            " WHERE id = ? AND closed_at IS NULL",
            (closed_at, json.dumps(dict(detail)), alert_id),
        )

    def open_delta(self, policy_name: str) -> float:
        row = self._conn.execute(
            "SELECT MAX(tightened_by) FROM monitor_alerts WHERE closed_at IS NULL"
            " AND policy_name = ? AND tightened_by > 0",
            (policy_name,),
        ).fetchone()
        return float(row[0]) if row and row[0] is not None else 0.0


def _alert(row: sqlite3.Row) -> Alert:
    try:
        detail = json.loads(row["detail"])
    except (TypeError, json.JSONDecodeError):
        detail = None
    return Alert(
        id=int(row["id"]),
        policy_name=str(row["policy_name"]),
        metric=str(row["metric"]),
        opened_at=str(row["opened_at"]),
        closed_at=None if row["closed_at"] is None else str(row["closed_at"]),
        baseline=float(row["baseline"]),
        current=float(row["current"]),
        statistic=float(row["statistic"]),
        p_value=None if row["p_value"] is None else float(row["p_value"]),
        detail=detail if isinstance(detail, dict) else {"unreadable_detail": row["detail"]},
        tightened_by=None if row["tightened_by"] is None else float(row["tightened_by"]),
    )
