"""Drift alerts (J9), as the store keeps them.

An alert is one (policy, metric) whose drift verdict (:mod:`assay.monitor.drift`) was
positive, open until a later check finds the drift gone; :mod:`assay.monitor.checker`
opens and closes them. ``tightened_by`` is the delta the policy was tightened by while
the alert is open (:mod:`assay.monitor.tighten`), ``None`` when it was not.
"""

from __future__ import annotations

from assay.store.records import Alert
from assay.store.repositories import MonitorRepository

__all__ = ["Alert", "get_alert", "list_alerts", "open_alert"]


def list_alerts(
    repo: MonitorRepository, *, include_closed: bool = False, policy: str | None = None
) -> list[Alert]:
    """Alerts newest first: the open ones, or all with ``include_closed``."""
    return repo.alerts(include_closed=include_closed, policy=policy)


def get_alert(repo: MonitorRepository, alert_id: int) -> Alert | None:
    """The alert with this id, or ``None``."""
    return repo.alert(alert_id)


def open_alert(repo: MonitorRepository, policy_name: str, metric: str) -> Alert | None:
    """The open alert of (``policy_name``, ``metric``), or ``None``."""
    return repo.open_alert(policy_name, metric)
