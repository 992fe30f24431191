"""What monitoring keeps and reads that both backends do alike: the drift alerts (the
``monitor_alerts`` table), which policies have events, and the filter of a window.

The numbers of a window's events are each backend's own to read
(:mod:`assay.store.sqlite.monitor`, :mod:`assay.store.postgres.monitor`): they come out
of JSON payloads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from assay.store.records import Alert
from assay.store.sql.session import Row, Session

_ALERT_COLUMNS = (
    "id, policy_name, metric, opened_at, closed_at, baseline, current, statistic, p_value,"
    " detail, tightened_by"
)


def window_filter(
    *, policy: str | None, since: str | None, before_seq: int | None, untightened: bool
) -> tuple[str, list[str | int]]:
    """The WHERE clause (and its parameters) of a window of ``ask``/``score`` events."""
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
    return " AND ".join(where), args


class SQLMonitor:
    """The backend-independent part of :class:`~assay.store.repositories.MonitorRepository`."""

    def __init__(self, conn: Session) -> None:
        self._conn = conn

    def policies_with_events(self) -> list[str]:
        rows = self._conn.execute(
            "SELECT DISTINCT policy_name FROM audit_events WHERE kind IN ('ask', 'score')"
            " ORDER BY policy_name"
        )
        return [str(r["policy_name"]) for r in rows]

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
        inserted = self._conn.execute(
            "INSERT INTO monitor_alerts (policy_name, metric, opened_at, baseline, current,"
            " statistic, p_value, detail, tightened_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING id",
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
        ).fetchone()
        return int(inserted["id"])

    def close_alert(self, alert_id: int, closed_at: str, detail: Mapping[str, Any]) -> None:
        self._conn.execute(
            "UPDATE monitor_alerts SET closed_at = ?, detail = ?"
            " WHERE id = ? AND closed_at IS NULL",
            (closed_at, json.dumps(dict(detail)), alert_id),
        )

    def open_delta(self, policy_name: str) -> float:
        row = self._conn.execute(
            "SELECT MAX(tightened_by) AS delta FROM monitor_alerts WHERE closed_at IS NULL"
            " AND policy_name = ? AND tightened_by > 0",
            (policy_name,),
        ).fetchone()
        return float(row["delta"]) if row and row["delta"] is not None else 0.0


def _alert(row: Row) -> Alert:
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
