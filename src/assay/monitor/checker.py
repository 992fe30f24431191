"""Opening and closing drift alerts (J9, E12): :func:`check`.

:func:`check` evaluates every policy with events (:mod:`assay.monitor.drift`), opens
an alert when drift is found and none is open for that (policy, metric), and closes
the open one when a later check no longer finds drift in the same direction (a fall
that has turned into a rise is over; the rise opens its own alert at the next check);
"too few events" changes nothing. Every open and close appends an audit event of kind
``alert``, and with ``auto_tighten``, for a fall in evidence strength only
(:func:`tightens`), an event of kind ``policy`` (``tighten`` on open, ``relax`` on
close, with the thresholds before and after), in the same transaction as the table
write: both land or neither does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from assay.audit import AuditLog
from assay.events import AlertRecord, PolicyChangeRecord
from assay.monitor.alerts import Alert, get_alert, open_alert
from assay.monitor.drift import Drift, DriftRules, evaluate_policy
from assay.monitor.events import policies_with_events
from assay.monitor.tighten import check_delta, open_delta, thresholds_of, tightened
from assay.policy import Policy
from assay.store.repositories import Database

__all__ = ["CheckResult", "check"]


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What one :func:`check` did: the alerts it opened and closed, and every verdict."""

    opened: tuple[Alert, ...] = ()
    closed: tuple[Alert, ...] = ()
    drift: tuple[Drift, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the ``assay monitor check --json`` output)."""
        return {
            "opened": [a.to_dict() for a in self.opened],
            "closed": [a.to_dict() for a in self.closed],
            "drift": [d.to_dict() for d in self.drift],
        }


def check(
    db: Database,
    audit: AuditLog,
    *,
    rules: DriftRules | None = None,
    auto_tighten: float = 0.0,
    base_policy: Callable[[str], Policy | None] = lambda name: None,
    now: datetime | None = None,
) -> CheckResult:
    """Evaluate drift for every policy with events; open and close alerts to match.

    ``auto_tighten`` > 0 tightens a policy while an alert of it is open
    (:mod:`assay.monitor.tighten`); ``base_policy`` finds a policy by name (the
    configured one, untightened) so that the ``policy`` events can record the
    thresholds before and after; ``None`` records the versions only.
    """
    rules = rules or DriftRules()
    delta = check_delta(auto_tighten) if auto_tighten else 0.0
    stamp = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds")
    opened: list[Alert] = []
    closed: list[Alert] = []
    verdicts: list[Drift] = []
    repo = db.monitor
    for name in policies_with_events(repo):
        for drift in evaluate_policy(repo, name, rules):
            verdicts.append(drift)
            if drift.drifted is None:
                continue
            writer = _Writer(db, audit, drift, base_policy(name), stamp, now)
            with db.unit_of_work():  # re-read under the write lock: checks may race
                current = open_alert(repo, name, drift.metric)
                if drift.drifted and current is None:
                    opened.append(writer.open(delta if tightens(drift) else 0.0))
                elif current is not None and not _continues(current, drift):
                    closed.append(writer.close(current))
    return CheckResult(tuple(opened), tuple(closed), tuple(verdicts))


def tightens(drift: Drift) -> bool:
    """Whether an alert on ``drift`` tightens its policy (with auto_tighten on): only a
    fall in evidence strength does. A rise is no risk, and the abstention rate is
    itself decided by the thresholds, so raising them on it would feed back."""
    return drift.metric == "mean_score" and drift.detail.get("direction") == "down"


def _continues(alert: Alert, drift: Drift) -> bool:
    """Whether ``drift`` is still the drift ``alert`` was opened for (same direction)."""
    return bool(drift.drifted) and drift.detail.get("direction") == alert.detail.get("direction")


class _Writer:
    """Writes one alert change and its audit events (inside the caller's transaction)."""

    def __init__(
        self,
        db: Database,
        audit: AuditLog,
        drift: Drift,
        base: Policy | None,
        stamp: str,
        now: datetime | None,
    ) -> None:
        self.repo, self.audit, self.drift, self.base = db.monitor, audit, drift, base
        self.stamp, self.now = stamp, now
        seen = drift.detail.get("policy_version")
        self.version = base.version if base is not None else str(seen or "")

    def open(self, delta: float) -> Alert:
        d = self.drift
        before = open_delta(self.repo, d.policy_name)
        new = Alert(
            id=0,  # the store numbers it
            policy_name=d.policy_name,
            metric=d.metric,
            opened_at=self.stamp,
            closed_at=None,
            baseline=d.baseline or 0.0,
            current=d.current or 0.0,
            statistic=d.statistic or 0.0,
            p_value=d.p_value,
            detail=d.to_dict()["detail"] | {"reason": d.reason},
            tightened_by=delta or None,
        )
        alert = get_alert(self.repo, self.repo.add_alert(new))
        assert alert is not None
        self._event(AlertRecord(action="open", alert=alert.to_dict(), reason=d.reason))
        if delta:
            self._policy_event("tighten", alert, before, max(before, delta))
        return alert

    def close(self, alert: Alert) -> Alert:
        before = open_delta(self.repo, alert.policy_name)
        detail = dict(alert.detail) | {"closed_by": self.drift.to_dict()}
        self.repo.close_alert(alert.id, self.stamp, detail)
        after = open_delta(self.repo, alert.policy_name)
        closed = get_alert(self.repo, alert.id)
        assert closed is not None
        reason = self.drift.reason
        self._event(AlertRecord(action="close", alert=closed.to_dict(), reason=reason))
        if alert.tightened_by:
            self._policy_event("relax", closed, before, after)
        return closed

    def _policy_event(self, action: str, alert: Alert, before: float, after: float) -> None:
        self._event(
            PolicyChangeRecord(
                action=action,
                alert_id=alert.id,
                metric=alert.metric,
                delta=alert.tightened_by,
                tightened_by_before=before,
                tightened_by_after=after,
                before=self._thresholds(before),
                after=self._thresholds(after),
            )
        )

    def _thresholds(self, delta: float) -> dict[str, Any] | None:
        if self.base is None:
            return None
        return thresholds_of(tightened(self.base, delta) if delta > 0 else self.base)

    def _event(self, record: AlertRecord | PolicyChangeRecord) -> None:
        self.audit.append(
            record,
            query="",
            policy_name=self.drift.policy_name,
            policy_version=self.version,
            now=self.now,
        )
