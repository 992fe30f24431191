"""One protocol per aggregate that assay persists, and the database that holds them all.

Services above the store (:mod:`assay.sources`, :mod:`assay.audit`, :mod:`assay.review`,
:mod:`assay.keys`, :mod:`assay.calibration.store`, :mod:`assay.monitor`) validate what
they are given, decide, and then read and write through these protocols; they never see
SQL. A backend (:mod:`assay.store.sqlite` today) implements every protocol on one
connection and a unit of work: :meth:`Database.unit_of_work` is one write transaction,
and a unit of work opened inside another joins it, so a verdict and its audit event, or
a key and its audit event, land together or not at all.

Rows go in and out as the records of :mod:`assay.store.records`; an insert takes the
columns its service built (canonical JSON already serialised, hashes already computed),
so that every backend stores the same bytes and the audit chain verifies on any of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

from assay.store.base import Store
from assay.store.records import (
    Alert,
    ApiKey,
    AuditEvent,
    AuditFilter,
    AuditRow,
    ReviewItem,
    Source,
    SourceChange,
    SourceKind,
    StoredMap,
)
from assay.store.sql.tables import SQLTables

__all__ = [
    "AuditRepository",
    "CalibrationRepository",
    "Database",
    "KeyRepository",
    "MonitorRepository",
    "ReviewRepository",
    "SourceRepository",
]


class SourceRepository(Protocol):
    """Source kinds, sources and every source's history."""

    def kinds(self) -> dict[str, SourceKind]:
        """Every kind by name, sorted by name."""
        ...

    def add_kind(self, kind: SourceKind, created_at: str) -> None:
        """Store a new kind (the caller checked that the name is free)."""
        ...

    def find(self, source_id: str) -> Source | None:
        """The source with this id, if any."""
        ...

    def all(self) -> list[Source]:
        """Every source, by id."""
        ...

    def write(self, source: Source, *, insert: bool) -> None:
        """Insert a new source, or replace the stored state of an existing one."""
        ...

    def log(self, change: SourceChange) -> None:
        """Append one entry to a source's history."""
        ...

    def history(self, source_id: str) -> list[SourceChange]:
        """A source's history, oldest first."""
        ...

    def supersessions(self, *, for_update: bool = False) -> dict[str, str]:
        """Every supersession link, the newer source's id -> the id it supersedes.

        ``for_update``: inside a unit of work, about to add a link: no other writer, in
        any process, may change a link until this unit of work ends (so two links that
        close a cycle between them cannot both be checked and written).
        """
        ...


class AuditRepository(Protocol):
    """The rows of the hash-chained audit log: appended, never changed."""

    def head(self, *, for_append: bool = False) -> tuple[int, str] | None:
        """``(seq, row_hash)`` of the last row; ``None`` while the log is empty.

        ``for_append``: inside a unit of work, about to append after it: no other writer,
        in any process, may append until this unit of work ends.
        """
        ...

    def insert(self, columns: AuditRow) -> None:
        """Store one complete row (``seq``, hashes and seal computed by the caller)."""
        ...

    def by_prefix(self, prefix: str, limit: int) -> list[AuditEvent]:
        """Up to ``limit`` events whose id starts with ``prefix``."""
        ...

    def newest(
        self, where: AuditFilter, *, limit: int | None, before_seq: int | None
    ) -> list[AuditEvent]:
        """Matching events newest first, older than ``before_seq`` when it is set."""
        ...

    def oldest(
        self, where: AuditFilter, *, after_seq: int = 0, limit: int | None = None
    ) -> Iterator[AuditEvent]:
        """Matching events after ``after_seq``, oldest first, streamed."""
        ...

    def first_sealed(self, up_to_seq: int) -> int | None:
        """The first sealed row at or before ``up_to_seq``, if any."""
        ...

    def last_sealed_by(self, key_id: str) -> int | None:
        """The newest row sealed with the key of this id (hex), if any."""
        ...

    def hash_at(self, seq: int) -> str | None:
        """The ``row_hash`` of row ``seq``; ``None`` when there is no such row."""
        ...

    def raw_rows(self) -> Iterator[AuditRow]:
        """Every row oldest first, text columns as the bytes stored (for verification)."""
        ...


class ReviewRepository(Protocol):
    """The human-review queue."""

    def add(self, row: Mapping[str, Any]) -> int:
        """Queue one pending item (columns as the service built them); its id."""
        ...

    def get(self, item_id: int) -> ReviewItem | None:
        """The item with this id, if any."""
        ...

    def newest(self, status: str | None, limit: int) -> list[ReviewItem]:
        """Items of ``status`` (``None``: any) newest first."""
        ...

    def counts(self) -> dict[str, int]:
        """How many items there are of each status that has any."""
        ...

    def resolve(
        self,
        item_id: int,
        *,
        verdict: str,
        note: str | None,
        resolved_at: str,
        event_id: str,
        correction: str | None = None,
    ) -> None:
        """Record a verdict (and the right answer, if given) on a pending item."""
        ...

    def labels(self) -> list[tuple[float, bool, str]]:
        """``(confidence_score, correct, event_id)`` of every resolved item, oldest first."""
        ...


class KeyRepository(Protocol):
    """API keys (their secrets as sha256) and the dashboard sessions they open."""

    def add(self, key: ApiKey, secret_sha256: str) -> None:
        """Store a new key."""
        ...

    def all(self, *, include_revoked: bool) -> list[ApiKey]:
        """Every key (or every active one), oldest first."""
        ...

    def get(self, key_id: str) -> tuple[ApiKey, str] | None:
        """The key with this id and the sha256 of its secret, if any."""
        ...

    def revoke(self, key_id: str, revoked_at: str) -> None:
        """Mark a key revoked and close every session it opened."""
        ...

    def open_session(self, id_sha256: str, key_id: str, created_at: str, expires_at: str) -> None:
        """Store a new dashboard session."""
        ...

    def session_key(self, id_sha256: str, now: str) -> ApiKey | None:
        """The active key of an open session unexpired at ``now``, if any."""
        ...

    def close_sessions_beyond(self, key_id: str, newest: str, keep: int, closed_at: str) -> None:
        """Close the key's open sessions but ``newest`` (just opened) and the ``keep - 1``
        most recent others."""
        ...

    def close_session(self, id_sha256: str, closed_at: str) -> None:
        """Close a session (nothing if it is unknown or closed)."""
        ...


class CalibrationRepository(Protocol):
    """Versioned calibration maps: appended, never changed."""

    def add(self, row: Mapping[str, Any]) -> int:
        """Store a map as the next version of its ``(target, model_key)``; its id."""
        ...

    def latest(self, target: str, model_key: str) -> StoredMap | None:
        """The newest version for ``(target, model_key)``, if any."""
        ...

    def get(self, map_id: int) -> StoredMap | None:
        """The map with this id, if any."""
        ...

    def all(self, target: str | None) -> list[StoredMap]:
        """Every map (of ``target`` when given), oldest first."""
        ...


class MonitorRepository(Protocol):
    """What monitoring reads from the audit log, and the drift alerts it keeps."""

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
        """The compact rows of a window of ``ask``/``score`` events, oldest first (the
        fields :func:`assay.monitor.events.window_rows` reads)."""
        ...

    def policies_with_events(self) -> list[str]:
        """Names of the policies with ``ask`` or ``score`` events, sorted."""
        ...

    def review_verdicts(self, after_seq: int) -> Iterator[tuple[Any, Any]]:
        """``(event_id, verdict)`` as stored in each ``review`` event after ``after_seq``."""
        ...

    def alerts(self, *, include_closed: bool, policy: str | None) -> list[Alert]:
        """Alerts newest first."""
        ...

    def alert(self, alert_id: int) -> Alert | None:
        """The alert with this id, if any."""
        ...

    def open_alert(self, policy_name: str, metric: str) -> Alert | None:
        """The open alert of ``(policy_name, metric)``, if any."""
        ...

    def add_alert(self, alert: Alert) -> int:
        """Store a new open alert (its ``id`` is ignored); its id."""
        ...

    def close_alert(self, alert_id: int, closed_at: str, detail: Mapping[str, Any]) -> None:
        """Close an open alert, replacing its detail."""
        ...

    def open_delta(self, policy_name: str) -> float:
        """The largest ``tightened_by`` of the open alerts of ``policy_name`` (0.0: none)."""
        ...


class Database(Protocol):
    """One assay database: every repository on one connection, and its unit of work."""

    @property
    def knowledge(self) -> Store:
        """The knowledge base: chunks, vectors, lexical index."""
        ...

    @property
    def sources(self) -> SourceRepository:
        """The source registry."""
        ...

    @property
    def audit(self) -> AuditRepository:
        """The audit log's rows."""
        ...

    @property
    def review(self) -> ReviewRepository:
        """The human-review queue."""
        ...

    @property
    def keys(self) -> KeyRepository:
        """API keys and dashboard sessions."""
        ...

    @property
    def calibration(self) -> CalibrationRepository:
        """Calibration maps."""
        ...

    @property
    def monitor(self) -> MonitorRepository:
        """Monitoring reads and drift alerts."""
        ...

    @property
    def tables(self) -> SQLTables:
        """Every table read and written whole (copying a database between backends)."""
        ...

    def unit_of_work(self) -> AbstractContextManager[object]:
        """One write transaction (joining the one already open on this database)."""
        ...

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the open unit of work commits (now, when none is open);
        one that rolls back, or a nested one that fails, drops those registered in it."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...
