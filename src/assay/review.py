"""The human-review queue (J6): answers a person must check before anyone relies on them.

An answer whose recommended action is ``human_review`` (or that a high-stakes policy
suppressed) is queued here with its J1 assessment and the audit event of the ask that
produced it. A reviewer resolves each item as ``correct`` or ``incorrect``; the verdict
is written to the row and to the audit log (an event of kind ``review``) in one
transaction, so the log never records a verdict the queue lacks, or the reverse.
Resolved items are never reopened: their verdicts are labels for calibration
(:meth:`ReviewQueue.labels`), pairing the score given at the time with what was true.
"""

from __future__ import annotations

import builtins
import json
import math
import sqlite3
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from assay.audit import AuditLog
from assay.db import transaction
from assay.errors import (
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StorageError,
    did_you_mean,
)
from assay.hashing import canonical_json

VERDICTS = ("correct", "incorrect")
STATUSES = ("pending", "resolved", "all")

_COLUMNS = (
    "id, event_id, created_at, query, answer, reason, confidence_score, assessment,"
    " policy_name, policy_version, status, verdict, note, resolved_at, resolution_event_id"
)


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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as the CLI prints it."""
        return asdict(self)


class ReviewQueue:
    """Reads and writes the ``review_queue`` table; verdicts are audited (J6)."""

    def __init__(self, conn: sqlite3.Connection, audit: AuditLog) -> None:
        self._conn = conn
        self._audit = audit

    def add(
        self,
        *,
        event_id: str,
        query: str,
        answer: str,
        reason: str,
        assessment: dict[str, Any],
        policy_name: str,
        policy_version: str,
        now: datetime | None = None,
        join_transaction: bool = False,
    ) -> ReviewItem:
        """Queue one answer for review; ``assessment`` is its J1 object.

        With ``join_transaction`` the row is written inside the caller's open transaction
        (the ask that produced the answer writes its audit event in the same one).
        """
        if not isinstance(event_id, str) or not event_id.strip():
            raise InvalidInputError(
                "event_id", event_id, "give the audit event id of the ask that gave the answer"
            )
        for name, value in (("query", query), ("answer", answer), ("reason", reason)):
            if not isinstance(value, str):
                raise InvalidInputError(name, value, "give it as text")
        score = _confidence_score(assessment)
        row = {
            "event_id": event_id,
            "created_at": _iso(now),
            "query": query,
            "answer": answer,
            "reason": reason,
            "confidence_score": score,
            "assessment": canonical_json(assessment),
            "policy_name": policy_name,
            "policy_version": policy_version,
        }
        insert = (
            "INSERT INTO review_queue (event_id, created_at, query, answer, reason,"
            " confidence_score, assessment, policy_name, policy_version, status) VALUES"
            " (:event_id, :created_at, :query, :answer, :reason, :confidence_score,"
            " :assessment, :policy_name, :policy_version, 'pending')"
        )
        if join_transaction:
            if not self._conn.in_transaction:
                raise StorageError(
                    "review queue add asked to join a transaction, but none is open; "
                    "wrap the call in assay.db.transaction"
                )
            item_id = self._conn.execute(insert, row).lastrowid
        else:
            with transaction(self._conn):
                item_id = self._conn.execute(insert, row).lastrowid
        assert item_id is not None
        return self.get(item_id)

    def list(self, status: str = "pending", limit: int = 50) -> builtins.list[ReviewItem]:
        """Items newest first: ``pending`` (the work to do), ``resolved`` or ``all``."""
        if status not in STATUSES:
            raise InvalidInputError(
                "status",
                status,
                f"{did_you_mean(status, STATUSES)}use one of: pending, resolved, all",
            )
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 < limit <= 1_000_000:
            raise InvalidInputError("limit", limit, "give a number of items from 1 to 1000000")
        where, args = ("", []) if status == "all" else (" WHERE status = ?", [status])
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM review_queue{where} ORDER BY id DESC LIMIT {int(limit)}",
            args,
        )
        return [_item(dict(r)) for r in rows]

    def counts(self) -> dict[str, int]:
        """How many items are ``pending`` and ``resolved``, and ``all`` of them."""
        found = dict(
            self._conn.execute("SELECT status, COUNT(*) FROM review_queue GROUP BY status")
        )
        counts = {status: int(found.get(status, 0)) for status in ("pending", "resolved")}
        return counts | {"all": sum(counts.values())}

    def get(self, item_id: int) -> ReviewItem:
        """The item with this id; :class:`NotFoundError` says how to find the right one."""
        in_range = isinstance(item_id, int) and -(2**63) <= item_id < 2**63  # SQLite INTEGER
        row = (
            in_range
            and self._conn.execute(
                f"SELECT {_COLUMNS} FROM review_queue WHERE id = ?", (item_id,)
            ).fetchone()
        )
        if not row:
            raise NotFoundError(
                f"review item {item_id!r} not found; list ids with `assay review list --status all`"
            )
        return _item(dict(row))

    def resolve(
        self, item_id: int, verdict: str, note: str | None = None, now: datetime | None = None
    ) -> ReviewItem:
        """Record the reviewer's verdict and audit it, both in one transaction.

        A resolved item is refused (:class:`ConflictError`): a label, once given, is
        part of the calibration record and is not silently overwritten.
        """
        if verdict not in VERDICTS:
            raise InvalidInputError(
                "verdict", verdict, f"{did_you_mean(verdict, VERDICTS)}use correct or incorrect"
            )
        if note is not None and not isinstance(note, str):
            raise InvalidInputError("note", note, "give the note as text")
        resolved_at = _iso(now)
        with transaction(self._conn):  # the write lock: no other reviewer can race us
            item = self.get(item_id)
            if item.status != "pending":
                raise ConflictError(
                    f"review item {item_id} was already resolved as {item.verdict!r} at "
                    f"{item.resolved_at}; verdicts are calibration labels and are kept"
                )
            event = self._audit.append(
                kind="review",
                query=item.query,
                policy_name=item.policy_name,
                policy_version=item.policy_version,
                payload={
                    "review_item": item.id,
                    "event_id": item.event_id,
                    "verdict": verdict,
                    "note": note,
                    "confidence_score": item.confidence_score,
                },
                now=now,
                join_transaction=True,
            )
            self._conn.execute(
                "UPDATE review_queue SET status = 'resolved', verdict = ?, note = ?,"
                " resolved_at = ?, resolution_event_id = ? WHERE id = ? AND status = 'pending'",
                (verdict, note, resolved_at, event.event_id, item.id),
            )
        return self.get(item_id)

    def labels(self) -> builtins.list[tuple[float, bool, str]]:
        """``(confidence_score, verdict == "correct", event_id)`` of every resolved item.

        Oldest first; these are the labels calibration fits the score against.
        """
        rows = self._conn.execute(
            "SELECT confidence_score, verdict, event_id FROM review_queue"
            " WHERE status = 'resolved' ORDER BY id"
        )
        return [(float(r[0]), r[1] == "correct", str(r[2])) for r in rows]


def _confidence_score(assessment: Any) -> float:
    """The assessment's ``confidence_score``, checked to be a number in [0, 1]."""
    if not isinstance(assessment, dict):
        raise InvalidInputError(
            "assessment", assessment, "give the J1 assessment as a JSON object (a dict)"
        )
    score = assessment.get("confidence_score")
    if (
        isinstance(score, bool)
        or not isinstance(score, int | float)
        or not math.isfinite(score)
        or not 0.0 <= score <= 1.0
    ):
        raise InvalidInputError(
            "assessment.confidence_score",
            score,
            "the assessment must hold a numeric confidence_score between 0 and 1",
        )
    return float(score)


def _iso(now: datetime | None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds")


def _item(row: dict[str, Any]) -> ReviewItem:
    try:
        assessment = json.loads(row["assessment"])
    except json.JSONDecodeError:
        assessment = None
    if not isinstance(assessment, dict):  # a damaged row is shown as it is, not refused
        assessment = {"unreadable_assessment": row["assessment"]}
    return ReviewItem(**(row | {"assessment": assessment}))
