"""Append-only, hash-chained audit log of retrieval events (E8, J8, B2).

Every event is one row. Its ``row_hash`` is the sha256 of the canonical JSON of all
its other columns, ``prev_hash`` (the previous row's ``row_hash``) included, so each
row seals everything before it:

    row_hash(n) = sha256(canonical_json({seq, event_id, created_at, kind, query,
                                         query_hash, policy_name, policy_version,
                                         payload, prev_hash = row_hash(n-1)
                                         [, actor][, schema_version]}))

``actor`` (the API key that caused the event) and ``schema_version`` (of the payload's
record, :mod:`assay.events`) are hashed only when they are set, so rows written
before those columns existed, and rows from the local command line, keep their hashes.
The payload is the JSON of the event's typed record; :meth:`AuditEvent.record` reads it
back as that record.

The first row links to :data:`GENESIS_HASH`. Triggers forbid UPDATE and DELETE, so
assay itself can only append. Someone who edits the file directly breaks the chain,
and :meth:`AuditLog.verify` names every row where it breaks: an edited row no
longer matches its hash, a deleted row leaves a gap in ``seq``, and a reordered row
no longer links to its predecessor. With an audit key every row is also sealed (its
``seal`` column, outside the hash), so a row appended or rehashed by someone without
the key is named too; checkpoints kept elsewhere catch rows removed from the *end*
(see :mod:`assay.audit.seal`).
"""

from __future__ import annotations

import builtins
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from assay.audit.anchor import AppendMark, ServiceAnchor
from assay.audit.report import GENESIS_HASH, VerifyReport
from assay.audit.seal import (
    AuditKey,
    Checkpoint,
    Keyring,
    newest_checkpoint,
)
from assay.audit.verify import ChainWalk, RowCheck
from assay.errors import UNSET, InvalidInputError, NotFoundError, StorageError
from assay.events import SCHEMA_VERSION, AuditRecord
from assay.hashing import canonical_json, sha256_hex
from assay.store.records import AuditEvent, AuditFilter, AuditRow
from assay.store.repositories import Database

__all__ = ["AuditEvent", "AuditLog", "iso_moment"]

_EVENT_ID_PREFIX = re.compile(r"[0-9a-f]{6,32}")


def _row_hash(columns: AuditRow) -> str:
    """The hash of a row's columns: all but its own hash and its seal (which seals it);
    ``actor`` and ``schema_version`` only when set."""
    unset = {name for name in ("actor", "schema_version") if columns.get(name) is None}
    unhashed = {"row_hash", "seal"} | unset
    return sha256_hex(canonical_json({k: v for k, v in columns.items() if k not in unhashed}))


#: the largest sequence number SQLite and PostgreSQL (BIGINT) store
MAX_SEQ = 2**63 - 1
#: the most events one listing returns (a larger limit overflowed the database's integer)
MAX_LIST = 1_000_000


class AuditLog:
    """Reads and appends the ``audit_events`` table of an assay database."""

    def __init__(
        self,
        db: Database,
        *,
        actor: str | None = None,
        key: AuditKey | None = None,
        retired_keys: Sequence[AuditKey] = (),
        replay: Callable[[], RowCheck] | None = None,
    ) -> None:
        """``actor`` is written into every event this log appends (an API key id); ``key``
        seals every appended row; it and ``retired_keys`` check seals in :meth:`verify`;
        ``replay`` makes the check that :meth:`verify` runs on each row's content."""
        self._db = db
        self.replay = replay
        self.actor = actor
        self.keys = Keyring(key, tuple(retired_keys))
        self.mark = AppendMark()
        #: set by :meth:`anchor`: a service's checkpoint file, written after every row
        self.service_anchor: ServiceAnchor | None = None

    def as_actor(self, actor: str | None) -> AuditLog:
        """This log appending as ``actor`` (same database, keys and replay check)."""
        other = AuditLog(self._db, actor=actor, replay=self.replay)
        other.share_state_of(self)
        return other

    def share_state_of(self, other: AuditLog) -> None:
        """Use ``other``'s keys, append mark and service anchor: one state for every
        thread and actor of a process (an engine's forks call this too)."""
        self.keys, self.mark, self.service_anchor = other.keys, other.mark, other.service_anchor

    def append(
        self,
        record: AuditRecord,
        *,
        query: str,
        policy_name: str,
        policy_version: str,
        now: datetime | None = None,
    ) -> AuditEvent:
        """Append one event (its kind is the record's), chained to the current head, in
        one unit of work: its own, or the caller's when one is open (then it lands or
        rolls back with the caller's other changes)."""
        if not isinstance(record, AuditRecord):
            raise InvalidInputError("record", record, "build the event's record from assay.events")
        created_at = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds")
        # JSON types already (model_dump mode="json"): what reading the row back gives
        payload = record.payload()
        columns: AuditRow = {
            "event_id": uuid.uuid4().hex,
            "created_at": created_at,
            "kind": record.kind,
            "query": query,
            "query_hash": sha256_hex(query),
            "policy_name": policy_name,
            "policy_version": policy_version,
            "payload": canonical_json(payload),
            "actor": self.actor,
            "schema_version": SCHEMA_VERSION,
        }
        with self._db.unit_of_work():  # with for_append, the head cannot move under us
            seq, prev_hash = self._db.audit.head(for_append=True) or (0, GENESIS_HASH)
            self.mark.check(seq, prev_hash, self._db.audit.hash_at)
            key = self.keys.current
            if key is None:
                self._refuse_if_sealed(seq)
            columns["seq"], columns["prev_hash"] = seq + 1, prev_hash
            row_hash = _row_hash(columns)
            seal = key.seal(row_hash) if key else None
            self._db.audit.insert(columns | {"row_hash": row_hash, "seal": seal})
            self._db.after_commit(self._committed(seq + 1, row_hash, sealed=seal is not None))
        return AuditEvent(
            seq=seq + 1, event_id=str(columns["event_id"]), created_at=created_at,
            kind=record.kind, query=query, query_hash=str(columns["query_hash"]),
            policy_name=policy_name, policy_version=policy_version,
            payload=payload, prev_hash=prev_hash,
            row_hash=row_hash, actor=self.actor, seal=seal, schema_version=SCHEMA_VERSION,
        )  # fmt: skip

    def _committed(self, seq: int, row_hash: str, *, sealed: bool) -> Callable[[], None]:
        """What to do once row ``seq`` is committed: move the mark, and write the
        service's checkpoint of it."""
        anchor = self.service_anchor
        point = (
            None
            if anchor is None
            else anchor.point(seq, row_hash, self.keys.current, sealed=sealed)
        )

        def committed() -> None:
            self.mark.advance(seq, row_hash)
            if anchor is not None and point is not None:
                anchor.write_committed(point)

        return committed

    def require_key_if_sealed(self) -> None:
        """Fail now, not at the first append, when the log is sealed and no key is set
        (a server checks this before it starts)."""
        if self.keys.current is None:
            head = self._db.audit.head()
            self._refuse_if_sealed(head[0] if head else 0)

    def _refuse_if_sealed(self, seq: int) -> None:
        """An unsealed row after a sealed one reads as a forgery and can never be
        mended (the log is append-only): refuse it, naming the setting that fixes it."""
        first = self._db.audit.first_sealed(seq) if seq else None
        if first is not None:
            raise InvalidInputError(
                "audit_key_file",
                UNSET,
                "set ASSAY_AUDIT_KEY_FILE (or audit_key_file in assay.toml) to the key that "
                "seals this log in every shell and service that writes to it",
                problem=f"is not set, but this audit log is sealed (from row {first}): an "
                "unsealed row would break it for good",
            )

    def get(self, event_id: str) -> AuditEvent:
        """The event with this id (a unique prefix of at least 6 characters works too)."""
        if not _EVENT_ID_PREFIX.fullmatch(event_id):
            raise InvalidInputError(
                "event_id",
                event_id,
                "give the full hex id or a prefix of at least 6 of its characters",
            )
        rows = self._db.audit.by_prefix(event_id, limit=2)
        if not rows:
            raise NotFoundError(
                f"audit event {event_id!r} not found; list ids with `assay audit list`"
            )
        if len(rows) > 1:
            raise InvalidInputError(
                "event_id", event_id, "give more characters of the id", problem="is ambiguous"
            )
        return rows[0]

    def list(
        self,
        *,
        limit: int | None = 50,
        policy: str | None = None,
        kind: str | None = None,
        since: str | None = None,
        until: str | None = None,
        actor: str | None = None,
        before_seq: int | None = None,
    ) -> list[AuditEvent]:
        """Events newest first, filtered by policy name, kind, ISO time range and actor.

        ``before_seq`` pages backwards: only events older than that sequence number.
        """
        if limit is not None and not 0 < limit <= MAX_LIST:
            raise InvalidInputError("limit", limit, f"give a number of events from 1 to {MAX_LIST}")
        where = _filters(policy=policy, kind=kind, since=since, until=until, actor=actor)
        # past the largest sequence number a database stores, "older than" means all of
        # them; the number as given overflowed the database's integer and failed the read
        before = None if before_seq is None else min(int(before_seq), MAX_SEQ)
        return self._db.audit.newest(where, limit=limit, before_seq=before)

    def iter_all(self, **filters: str | None) -> Iterator[AuditEvent]:
        """Every event oldest first (optionally filtered), streamed for export."""
        yield from self._db.audit.oldest(_filters(**filters))

    def page(
        self, *, after_seq: int = 0, limit: int = 500, **filters: str | None
    ) -> builtins.list[AuditEvent]:
        """Up to ``limit`` events after sequence number ``after_seq``, oldest first: an
        export in pages, each read on whatever connection the caller holds."""
        where = _filters(**filters)
        return list(self._db.audit.oldest(where, after_seq=int(after_seq), limit=int(limit)))

    def head(self) -> tuple[int, str]:
        """The number of events and the hash of the last one (to anchor elsewhere)."""
        return self._db.audit.head() or (0, GENESIS_HASH)

    def checkpoint(self, now: datetime | None = None) -> Checkpoint:
        """The head as a checkpoint to keep elsewhere, sealed when there is a key."""
        seq, digest = self.head()
        first = self._db.audit.first_sealed(seq)
        return Checkpoint.make(seq, digest, self.keys.current, sealed_since=first, now=now)

    def anchor(self, path: Path) -> Checkpoint:
        """A service's own checkpoints, at start and at shutdown: the newest in ``path``
        must still hold, and so must every row this process committed (else
        :class:`StorageError`, and the service does not start); then the head is
        appended to ``path``, and from then on a checkpoint after every row this log (or
        one sharing its state) commits (:class:`ServiceAnchor`). Catches rows cut from
        the end (or rewritten at the checkpoint) while the service was down, a crash
        included, which the running service's :class:`AppendMark` cannot see."""
        newest = self.check_anchor(path)
        self.mark.check(*self.head(), self._db.audit.hash_at)
        point = self.checkpoint()
        if self.service_anchor is None:
            written = -1 if newest is None else newest.seq
            self.service_anchor = ServiceAnchor(
                path, written=written, sealed_since=point.sealed_since
            )
        self.service_anchor.write(point)
        return point

    def check_anchor(self, path: Path) -> Checkpoint | None:
        """:meth:`anchor`'s check alone: the newest checkpoint in ``path``, if any, holds
        (it is returned)."""
        if not path.exists():
            return None
        newest = newest_checkpoint(path)
        problem = self._checkpoint_problem(newest)
        if problem:
            raise StorageError(
                f"audit log does not hold the newest checkpoint in {path} (seq "
                f"{newest.seq}, {newest.created_at}): {problem}. Run `assay audit verify "
                f"--checkpoint {path}` and restore the log before starting the service"
            )
        return newest

    def retire_key(self, path: Path) -> AuditKey:
        """Write into the key file at ``path`` the last row its key sealed, so that
        :meth:`verify` names any later seal of it as a forgery. Run it when the key is
        replaced: after every process sealing with it has stopped, before the file moves
        to ``ASSAY_AUDIT_RETIRED_KEY_FILES``."""
        key = AuditKey.load(path, setting="key file", retired=True)
        if key.sealed_through is not None:
            raise InvalidInputError(
                "key file", str(path), "name it in ASSAY_AUDIT_RETIRED_KEY_FILES as it is",
                problem=f"is already retired (it sealed rows up to seq {key.sealed_through})",
            )  # fmt: skip
        current = self.keys.current
        if current is not None and current.key_id == key.key_id:
            raise InvalidInputError(
                "key file", str(path), "make a new key (`assay audit keygen FILE`) the "
                "ASSAY_AUDIT_KEY_FILE first: the key that seals new rows cannot be retired",
                problem="is the key configured to seal new rows",
            )  # fmt: skip
        return key.retire(path, self._db.audit.last_sealed_by(key.key_id) or 0)

    def _checkpoint_problem(self, point: Checkpoint) -> str | None:
        """What a checkpoint finds wrong with the log now, reading two rows, not all."""
        if point.seal is not None and not self.keys.empty:
            problem = self.keys.seal_problem(point.digest, point.seal, point.seq)
            if problem:
                return f"the checkpoint itself: {problem}"
        elif point.seal is None and self.keys.current is not None and point.sealed_since:
            return "the checkpoint is not sealed, though the rows it covers were"
        head = self.head()[0]
        if head < point.seq:
            return f"{point.rows_after(head)} gone (cut from the end)"
        if point.seq and self._db.audit.hash_at(point.seq) != point.head:
            return f"row {point.seq} no longer has the checkpointed hash (rewritten)"
        return None

    def verify(
        self,
        *,
        expected_head: str | None = None,
        checkpoints: Sequence[Checkpoint] = (),
        replay: bool | None = None,
    ) -> VerifyReport:
        """Walk the chain from the first row; report every row that breaks it.

        ``replay`` checks each row's content too, with a fresh :attr:`replay` check (the
        engine's log has :class:`assay.audit.replay.Replay`: each row read as its record,
        each scoring event's composites, labels, gate verdicts and route recomputed from
        the row alone). By default it runs when this log has a check; ``True`` on a log
        without one is refused rather than skipped in silence.
        ``checkpoints`` (from :meth:`checkpoint`, kept elsewhere) and ``expected_head``
        (a head hash recorded earlier) must still be in the chain: rows cut from the
        end or rewritten below them are reported. Never raises on what a row holds.
        """
        if replay and self.replay is None:
            raise InvalidInputError(
                "replay", replay,
                "build the log with replay=assay.audit.replay.Replay, or pass replay=False",
                problem="has no row check to run",
            )  # fmt: skip
        check = self.replay() if replay is not False and self.replay is not None else None
        walk = ChainWalk(
            _row_hash,
            keys=self.keys,
            expected_head=expected_head,
            checkpoints=checkpoints,
            check=check,
        )
        return walk.run(self._db.audit.raw_rows())


_FILTERS = ("policy", "kind", "since", "until", "actor")


def _filters(**filters: str | None) -> AuditFilter:
    unknown = set(filters) - set(_FILTERS)
    if unknown:
        raise InvalidInputError("filter", sorted(unknown)[0], f"use one of {', '.join(_FILTERS)}")
    for name in ("since", "until"):
        value = filters.get(name)
        if value is not None:
            filters[name] = iso_moment(name, value)
    return AuditFilter(**filters)


def iso_moment(name: str, value: str) -> str:
    """An ISO date or time (option ``name``) as the UTC text ``created_at`` is compared with."""
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        if moment.tzinfo is not None:
            moment = moment.astimezone(UTC)
    except (ValueError, OverflowError, AttributeError):
        raise InvalidInputError(
            name, value, "use an ISO date or time such as 2026-11-01 or 2026-11-01T09:30:00Z"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")
