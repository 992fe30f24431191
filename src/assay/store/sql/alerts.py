"""The drift alerts that monitoring opens and closes: the ``monitor_alerts`` table.

Shared by the backends; what monitoring reads from the audit log is each backend's own
(:mod:`assay.store.sqlite.monitor`, :mod:`assay.store.postgres.monitor`), because it pulls
numbers out of JSON payloads.
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


class SQLAlerts:
    """The alert half of :class:`~assay.store.repositories.MonitorRepository`."""

    def __init__(self, conn: Session) -> None:
        self._conn = conn

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
