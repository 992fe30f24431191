"""The records that the repositories keep, one frozen dataclass per stored row kind.

They sit below every backend (:mod:`assay.store.sqlite`, and any other) and every
service that validates what goes into them (:mod:`assay.sources`, :mod:`assay.review`,
:mod:`assay.keys`, :mod:`assay.audit`, :mod:`assay.calibration`, :mod:`assay.monitor`),
so that a backend returns the same types whichever database holds the rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from datetime import date, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from assay.access import EVERYTHING, Access
from assay.events import AuditRecord, parse_record

if TYPE_CHECKING:  # a stored map is applied, never built, here: the backends build it
    from assay.calibration.maps import ScoreMap


@dataclass(frozen=True, slots=True)
class SourceKind:
    """A class of sources with its default reliability and review interval."""

    name: str
    reliability: float
    review_interval_days: int
    builtin: bool


@dataclass(frozen=True, slots=True)
class Source:
    """One registered source of evidence.

    ``supersedes`` names the source this one replaces (a new version of a policy names
    the old one); the gate keeps the older source's items out of a context that the newer
    one's items reach (:mod:`assay.scoring.gate`).
    """

    id: str
    kind: str
    reliability: float
    review_interval_days: int
    name: str | None = None
    owner: str | None = None
    jurisdiction: str | None = None
    court_level: str | None = None
    overruled: bool = False
    retired: bool = False
    reviewed_at: date | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    supersedes: str | None = None
    version: int = 1
    created_at: str = ""
    updated_at: str = ""

    def review_due(self) -> date | None:
        """The date the next review is due: one review interval after the last review,
        or after registration for a source never reviewed (registering it is the first
        look at it, so a new source is not overdue on its first day); ``None`` when
        neither date is known."""
        start = self.reviewed_at
        if start is None and self.created_at:
            start = date.fromisoformat(self.created_at[:10])
        if start is None:
            return None
        return start + timedelta(days=self.review_interval_days)

    def review_overdue(self, as_of: date) -> bool:
        """True when the review interval has passed (or no date says when it started)."""
        due = self.review_due()
        return due is None or as_of > due

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (dates as ISO strings)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["reviewed_at"] = self.reviewed_at.isoformat() if self.reviewed_at else None
        due = self.review_due()
        out["review_due"] = due.isoformat() if due else None
        return out


@dataclass(frozen=True, slots=True)
class SourceChange:
    """One entry of a source's history: what was done, when, and the state after it."""

    source_id: str
    version: int
    action: str
    changed_at: str
    actor: str | None
    note: str | None
    snapshot: dict[str, Any]


AuditColumn = str | int | bytes | None  #: one column of an audit row (bytes: as stored)
AuditRow = dict[str, AuditColumn]  #: an audit row's columns by name


@dataclass(frozen=True, slots=True)
class AuditEvent:
    """One stored retrieval event."""

    seq: int
    event_id: str
    created_at: str
    kind: str
    query: str
    query_hash: str
    policy_name: str
    policy_version: str
    payload: dict[str, JsonValue]
    prev_hash: str
    row_hash: str
    actor: str | None = None
    seal: str | None = None
    schema_version: int | None = None

    def record(self) -> AuditRecord:
        """The payload as its kind's typed record, validated (:class:`ValueError` names
        the first field of a damaged or hand-written payload that does not match)."""
        return parse_record(self.kind, self.payload)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, as exported (``schema_version`` when the row has one)."""
        out = asdict(self)
        if self.schema_version is None:
            del out["schema_version"]
        return out


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """One queued answer, with the reviewer's verdict once it is resolved."""

    id: int
    event_id: str
    created_at: str
    query: str
    answer: str
    reason: str
    confidence_score: float
    assessment: dict[str, Any]
    policy_name: str
    policy_version: str
    status: str
    verdict: str | None
    note: str | None
    resolved_at: str | None
    resolution_event_id: str | None
    #: the right answer, as the reviewer wrote it when the answer was wrong
    correction: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as the CLI prints it."""
        return asdict(self)


class Role(StrEnum):
    """What a key may do; ``admin`` may do everything."""

    READER = "reader"
    CURATOR = "curator"
    AUDITOR = "auditor"
    ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key (never its secret)."""

    id: str
    name: str
    roles: frozenset[Role]
    created_at: str
    revoked_at: str | None = None
    #: the mildest severity this key may ask under (``None``: any); see :mod:`assay.keys`
    min_severity: str | None = None
    #: the access labels it may read besides unlabelled documents (:mod:`assay.access`)
    grants: frozenset[str] = frozenset()

    @property
    def access(self) -> Access:
        """What this key may read: every document with the auditor or admin role, else
        unlabelled documents and those holding one of its grants."""
        if Role.AUDITOR in self.roles or Role.ADMIN in self.roles:
            return EVERYTHING
        return Access(self.grants)

    @property
    def active(self) -> bool:
        """False once revoked."""
        return self.revoked_at is None

    def allows(self, role: Role) -> bool:
        """Whether this key may act in ``role``."""
        return role in self.roles or Role.ADMIN in self.roles

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "id": self.id,
            "name": self.name,
            "roles": sorted(r.value for r in self.roles),
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
            "active": self.active,
            "min_severity": self.min_severity,
            "grants": sorted(self.grants),
        }


@dataclass(frozen=True, slots=True)
class StoredMap:
    """One stored version of a calibration map, with what it was fitted on."""

    id: int
    target: str
    model_key: str
    version: int
    method: str
    map: ScoreMap
    n_labels: int
    metrics: dict[str, Any]
    labels_sha256: str
    created_at: str

    def apply(self, score: float) -> float:
        """The calibrated probability of a raw score."""
        return self.map(score)

    def ref(self) -> dict[str, Any]:
        """What an audit row records to name this map (and a replay to find it again)."""
        return {
            "id": self.id,
            "target": self.target,
            "model_key": self.model_key,
            "version": self.version,
            "method": self.method,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, the map as its parameters (as the CLI would print it)."""
        return {
            **self.ref(),
            "params": self.map.to_dict(),
            "n_labels": self.n_labels,
            "metrics": self.metrics,
            "labels_sha256": self.labels_sha256,
            "created_at": self.created_at,
        }


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


@dataclass(frozen=True, slots=True)
class AuditFilter:
    """Which audit events to read: each field set narrows the selection (``since`` and
    ``until`` as the UTC ISO text ``created_at`` is compared with)."""

    policy: str | None = None
    kind: str | None = None
    since: str | None = None
    until: str | None = None
    actor: str | None = None
