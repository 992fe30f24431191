"""Drift alerts (J9): the rows of the ``monitor_alerts`` table.

An alert is one (policy, metric) whose drift verdict (:mod:`assay.monitor.drift`) was
positive, open until a later check finds the drift gone; :mod:`assay.monitor.checker`
opens and closes them. ``tightened_by`` is the delta the policy was tightened by while
the alert is open (:mod:`assay.monitor.tighten`), ``None`` when it was not.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Alert", "get_alert", "list_alerts", "open_alert"]

_COLUMNS = (
    "id, policy_name, metric, opened_at, closed_at, baseline, current, statistic, p_value,"
    " detail, tightened_by"
)


@dataclass(frozen=True, slots=True)
class Alert:
    """One row of ``monitor_alerts``: what drifted, how far, and whether it is still open."""

    id: int
    policy_name: str
    metric: str
    opened_at: str
    closed_at: str | None
    baseline: float
    current: float
    statistic: float
    p_value: float | None
    detail: Mapping[str, Any] = field(default_factory=dict)
    tightened_by: float | None = None

    @property
    def is_open(self) -> bool:
        """Not closed yet."""
        return self.closed_at is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (an infinite statistic as ``"inf"``/``"-inf"``)."""
        statistic: float | str = self.statistic
        if not math.isfinite(self.statistic):
            statistic = "inf" if self.statistic > 0 else "-inf"
        return {
            "id": self.id,
            "policy_name": self.policy_name,
            "metric": self.metric,
            "open": self.is_open,
            "opened_at": self.opened_at,
            "closed_at": self.closed_at,
            "baseline": self.baseline,
            "current": self.current,
            "statistic": statistic,
            "p_value": self.p_value,
            "detail": dict(self.detail),
            "tightened_by": self.tightened_by,
        }


def list_alerts(
    conn: sqlite3.Connection, *, include_closed: bool = False, policy: str | None = None
) -> list[Alert]:
    """Alerts newest first: the open ones, or all with ``include_closed``."""
    where, args = [], []
    if not include_closed:
        where.append("closed_at IS NULL")
    if policy is not None:
        where.append("policy_name = ?")
        args.append(policy)
    sql = f"SELECT {_COLUMNS} FROM monitor_alerts"
    sql += (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC"
    return [_alert(r) for r in conn.execute(sql, args)]


def get_alert(conn: sqlite3.Connection, alert_id: int) -> Alert | None:
    """The alert with this id, or ``None``."""
    row = conn.execute(f"SELECT {_COLUMNS} FROM monitor_alerts WHERE id = ?", (alert_id,))
    found = row.fetchone()
    return None if found is None else _alert(found)


def open_alert(conn: sqlite3.Connection, policy_name: str, metric: str) -> Alert | None:
    """The open alert of (``policy_name``, ``metric``), or ``None``."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM monitor_alerts WHERE closed_at IS NULL AND policy_name = ?"
        " AND metric = ? ORDER BY id DESC LIMIT 1",
        (policy_name, metric),
    ).fetchone()
    return None if row is None else _alert(row)


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
