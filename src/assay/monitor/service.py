"""``Monitor``: monitoring of one assay database, bound to its connection and settings.

The object the engine holds (``Assay.monitor``) and the CLI, server and dashboard call::

    with Assay("assay.db") as engine:
        report = engine.monitor.report(policy="financial", window=500)
        chart = engine.monitor.timeline(since="2026-11-01")
        result = engine.monitor.check()          # opens / closes drift alerts
        for alert in engine.monitor.alerts():    # the open ones
            print(alert.policy_name, alert.metric, alert.current)

Window sizes and tightening come from :class:`assay.settings.Settings`
(``monitor_window``, ``monitor_baseline``, ``auto_tighten``); every method takes
overrides.
"""

from __future__ import annotations

from datetime import datetime

from assay.audit import AuditLog
from assay.errors import NotFoundError
from assay.monitor.alerts import Alert, get_alert, list_alerts
from assay.monitor.checker import CheckResult, check
from assay.monitor.drift import Drift, DriftRules, evaluate_policy
from assay.monitor.events import policies_with_events
from assay.monitor.report import MonitorReport, build_report
from assay.monitor.tighten import effective_policy
from assay.monitor.timeline import Timeline, build_timeline
from assay.policy import Policy, PolicyBook
from assay.settings import Settings
from assay.store.repositories import Database

__all__ = ["Monitor"]


class Monitor:
    """Rolling statistics, drift alerts and automatic tightening (R10, J9, E12).

    ``policies`` is the book the engine serves from; it names the untightened policy
    whose thresholds a ``policy`` audit event records (loaded from ``settings`` when
    not given). The connection is the caller's: one per thread, as for the engine.
    """

    def __init__(
        self,
        db: Database,
        audit: AuditLog,
        settings: Settings,
        policies: PolicyBook | None = None,
    ) -> None:
        self._db = db
        self._audit = audit
        self.settings = settings
        self._policies = policies

    def rules(self, *, window: int | None = None, baseline: int | None = None) -> DriftRules:
        """The drift rules in force: the settings' window sizes unless overridden."""
        return DriftRules(
            window=self.settings.monitor_window if window is None else window,
            baseline=self.settings.monitor_baseline if baseline is None else baseline,
        )

    def report(
        self, *, policy: str | None = None, window: int | None = None, since: str | None = None
    ) -> MonitorReport:
        """Statistics of the last ``window`` events (default 1000; with ``since`` and no
        ``window``: every event since then) of ``policy`` (``None``: all policies)."""
        return build_report(self._db.monitor, policy=policy, window=window, since=since)

    def timeline(
        self, *, policy: str | None = None, window: int | None = None, since: str | None = None
    ) -> Timeline:
        """Only the chart of :meth:`report`: events per hour (per day past three days)."""
        return build_timeline(self._db.monitor, policy=policy, window=window, since=since)

    def drift(
        self,
        policy: str | None = None,
        *,
        window: int | None = None,
        baseline: int | None = None,
    ) -> list[Drift]:
        """The current drift verdicts, read-only (no alert is opened or closed): of
        ``policy``, or of every policy with events."""
        rules = self.rules(window=window, baseline=baseline)
        names = [policy] if policy is not None else policies_with_events(self._db.monitor)
        return [d for name in names for d in evaluate_policy(self._db.monitor, name, rules)]

    def alerts(self, *, include_closed: bool = False, policy: str | None = None) -> list[Alert]:
        """Alerts newest first: the open ones, or all of them with ``include_closed``."""
        return list_alerts(self._db.monitor, include_closed=include_closed, policy=policy)

    def alert(self, alert_id: int) -> Alert:
        """The alert with this id, open or closed."""
        found = get_alert(self._db.monitor, alert_id)
        if found is None:
            raise NotFoundError(
                f"alert {alert_id!r} not found; list ids with `assay monitor alerts --all`"
            )
        return found

    def check(
        self,
        *,
        window: int | None = None,
        baseline: int | None = None,
        auto_tighten: float | None = None,
        now: datetime | None = None,
    ) -> CheckResult:
        """Evaluate drift for every policy and open or close alerts to match (audited);
        with ``auto_tighten`` (default: the setting) > 0, tighten while they are open."""
        delta = self.settings.auto_tighten if auto_tighten is None else auto_tighten
        return check(
            self._db,
            self._audit,
            rules=self.rules(window=window, baseline=baseline),
            auto_tighten=delta,
            base_policy=self._base_policy,
            now=now,
        )

    def effective(self, policy: Policy) -> Policy:
        """``policy`` as requests are served by it now: tightened while an alert with
        ``tightened_by`` is open for its name (:func:`effective_policy`)."""
        return effective_policy(self._db.monitor, policy)

    def _base_policy(self, name: str) -> Policy | None:
        if self._policies is None:
            self._policies = PolicyBook.load(
                self.settings.policy_dirs, severity_policies=self.settings.severity_policies
            )
        return self._policies.get(name) if name in self._policies.names() else None
