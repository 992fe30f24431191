"""Append-only, hash-chained audit log of retrieval events (E8, J8, B2).

Every event is one row. Its ``row_hash`` is the sha256 of the canonical JSON of all
its other columns, ``prev_hash`` (the previous row's ``row_hash``) included, so each
row seals everything before it:

    row_hash(n) = sha256(canonical_json({seq, event_id, created_at, kind, query,
                                         query_hash, policy_name, policy_version,
                                         payload, prev_hash = row_hash(n-1)[, actor]}))

``actor`` (the API key that caused the event) is hashed only when it is set, so rows
written before the column existed, and rows from the local command line, keep their
hashes.

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
import json
import re
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from assay.audit.report import GENESIS_HASH, VerifyReport
from assay.audit.seal import AuditKey, Checkpoint, Keyring
from assay.db import transaction
from assay.errors import InvalidInputError, NotFoundError, StorageError
from assay.hashing import canonical_json, sha256_hex

_EVENT_ID_PREFIX = re.compile(r"[0-9a-f]{6,32}")


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
    payload: dict[str, Any]
    prev_hash: str
    row_hash: str
    actor: str | None = None
    seal: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, as exported."""
        return asdict(self)


def _row_hash(columns: dict[str, Any]) -> str:
    """The hash of a row's columns: all but its own hash and its seal (which seals it);
    ``actor`` only when set."""
    unhashed = {"row_hash", "seal"} | ({"actor"} if columns.get("actor") is None else set())
    return sha256_hex(canonical_json({k: v for k, v in columns.items() if k not in unhashed}))


_COLUMNS = (
    "seq, event_id, created_at, kind, query, query_hash, policy_name, policy_version,"
    " payload, prev_hash, row_hash, actor, seal"
)


class AuditLog:
    """Reads and appends the ``audit_events`` table of an assay database."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        actor: str | None = None,
        key: AuditKey | None = None,
        retired_keys: Sequence[AuditKey] = (),
    ) -> None:
        """``actor`` is written into every event this log appends (an API key id); ``key``
        seals every appended row; it and ``retired_keys`` check seals in :meth:`verify`."""
        self._conn = conn
        self.actor = actor
        self.keys = Keyring(key, tuple(retired_keys))

    def append(
        self,
        *,
        kind: str,
        query: str,
        policy_name: str,
        policy_version: str,
        payload: dict[str, Any],
        now: datetime | None = None,
        join_transaction: bool = False,
    ) -> AuditEvent:
        """Append one event, chained to the current head, in a single transaction.

        With ``join_transaction`` the event is written inside the caller's open write
        transaction (:func:`assay.db.transaction`, which does not nest) instead of its
        own, so it lands or rolls back together with the caller's other changes.
        """
        created_at = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds")
        columns: dict[str, Any] = {
            "event_id": uuid.uuid4().hex,
            "created_at": created_at,
            "kind": kind,
            "query": query,
            "query_hash": sha256_hex(query),
            "policy_name": policy_name,
            "policy_version": policy_version,
            "payload": canonical_json(payload),
            "actor": self.actor,
        }
        if join_transaction:
            if not self._conn.in_transaction:
                raise StorageError(
                    "audit append asked to join a transaction, but none is open; "
                    "wrap the call in assay.db.transaction"
                )
            self._insert(columns)
        else:
            with transaction(self._conn):
                self._insert(columns)
        return _event(columns)

    def _insert(self, columns: dict[str, Any]) -> None:
        """Chain ``columns`` to the current head and insert the row (under the write lock)."""
        last = self._conn.execute(
            "SELECT seq, row_hash FROM audit_events ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        columns["seq"] = (last["seq"] if last else 0) + 1
        columns["prev_hash"] = last["row_hash"] if last else GENESIS_HASH
        columns["row_hash"] = _row_hash(columns)
        key = self.keys.current
        columns["seal"] = key.seal(columns["row_hash"]) if key else None
        self._conn.execute(
            f"INSERT INTO audit_events ({_COLUMNS}) VALUES"
            " (:seq, :event_id, :created_at, :kind, :query, :query_hash, :policy_name,"
            " :policy_version, :payload, :prev_hash, :row_hash, :actor, :seal)",
            columns,
        )

    def get(self, event_id: str) -> AuditEvent:
        """The event with this id (a unique prefix of at least 6 characters works too)."""
        if not _EVENT_ID_PREFIX.fullmatch(event_id):
            raise InvalidInputError(
                "event_id",
                event_id,
                "give the full hex id or a prefix of at least 6 of its characters",
            )
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM audit_events WHERE event_id LIKE ? || '%' LIMIT 2",
            (event_id,),
        ).fetchall()
        if not rows:
            raise NotFoundError(
                f"audit event {event_id!r} not found; list ids with `assay audit list`"
            )
        if len(rows) > 1:
            raise InvalidInputError(
                "event_id", event_id, "give more characters of the id", problem="is ambiguous"
            )
        return _event(dict(rows[0]))

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
        if limit is not None and not 0 < limit <= 1_000_000:
            raise InvalidInputError("limit", limit, "give a number of events from 1 to 1000000")
        where, args = _filters(policy=policy, kind=kind, since=since, until=until, actor=actor)
        if before_seq is not None:
            where += (" AND" if where else " WHERE") + f" seq < {int(before_seq)}"
        sql = f"SELECT {_COLUMNS} FROM audit_events{where} ORDER BY seq DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_event(dict(r)) for r in self._conn.execute(sql, args)]

    def iter_all(self, **filters: str | None) -> Iterator[AuditEvent]:
        """Every event oldest first (optionally filtered), streamed for export."""
        where, args = _filters(**filters)
        cursor = self._conn.execute(
            f"SELECT {_COLUMNS} FROM audit_events{where} ORDER BY seq", args
        )
        for row in cursor:
            yield _event(dict(row))

    def page(
        self, *, after_seq: int = 0, limit: int = 500, **filters: str | None
    ) -> builtins.list[AuditEvent]:
        """Up to ``limit`` events after sequence number ``after_seq``, oldest first: an
        export in pages, each read on whatever connection the caller holds."""
        where, args = _filters(**filters)
        where += (" AND" if where else " WHERE") + f" seq > {int(after_seq)}"
        sql = f"SELECT {_COLUMNS} FROM audit_events{where} ORDER BY seq LIMIT {int(limit)}"
        return [_event(dict(r)) for r in self._conn.execute(sql, args)]

    def head(self) -> tuple[int, str]:
        """The number of events and the hash of the last one (to anchor elsewhere)."""
        row = self._conn.execute(
            "SELECT seq, row_hash FROM audit_events ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return (row["seq"], row["row_hash"]) if row else (0, GENESIS_HASH)

    def checkpoint(self, now: datetime | None = None) -> Checkpoint:
        """The head as a checkpoint to keep elsewhere, sealed when there is a key."""
        seq, digest = self.head()
        first = self._conn.execute(
            "SELECT MIN(seq) FROM audit_events WHERE seal IS NOT NULL AND seq <= ?", (seq,)
        ).fetchone()[0]
        return Checkpoint.make(seq, digest, self.keys.current, sealed_since=first, now=now)

    def verify(
        self,
        *,
        expected_head: str | None = None,
        checkpoints: Sequence[Checkpoint] = (),
        replay: bool = True,
    ) -> VerifyReport:
        """Walk the chain from the first row; report every row that breaks it.

        With ``replay`` (the default) each scoring event's composites, labels and gate
        verdicts are also recomputed from the row alone (see :mod:`assay.audit.replay`).
        ``checkpoints`` (from :meth:`checkpoint`, kept elsewhere) and ``expected_head``
        (a head hash recorded earlier) must still be in the chain: rows cut from the
        end or rewritten below them are reported. Never raises on what a row holds.
        """
        from assay.audit.verify import ChainWalk, raw_rows  # the replay needs the scoring stack

        walk = ChainWalk(
            _row_hash,
            keys=self.keys,
            expected_head=expected_head,
            checkpoints=checkpoints,
            replay=replay,
        )
        return walk.run(raw_rows(self._conn, _COLUMNS))


def _filters(**filters: str | None) -> tuple[str, list[str]]:
    clauses = {
        "policy": "policy_name = ?",
        "kind": "kind = ?",
        "since": "created_at >= ?",
        "until": "created_at < ?",
        "actor": "actor = ?",
    }
    unknown = set(filters) - set(clauses)
    if unknown:
        raise InvalidInputError("filter", sorted(unknown)[0], f"use one of {', '.join(clauses)}")
    parts, args = [], []
    for name, value in filters.items():
        if value is not None and name in ("since", "until"):
            value = iso_moment(name, value)
        if value is not None:
            parts.append(clauses[name])
            args.append(value)
    return (" WHERE " + " AND ".join(parts) if parts else ""), args


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


def _payload(text: str) -> dict[str, Any]:
    """The stored payload; a damaged one is shown as it is rather than refused."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"unreadable_payload": text}
    return value if isinstance(value, dict) else {"unreadable_payload": text}


def _event(columns: dict[str, Any]) -> AuditEvent:
    return AuditEvent(**(columns | {"payload": _payload(columns["payload"])}))
