"""The human-review queue (J6): answers a person must check before anyone relies on them.

An answer whose recommended action is ``human_review`` (or that a high-stakes policy
suppressed) is queued here with its J1 assessment and the audit event of the ask that
produced it. A reviewer resolves each item as ``correct`` or ``incorrect`` (an incorrect one
optionally with the right answer, ``correction``: what the knowledge base should have
said, a gold answer for the next evaluation); the verdict is written to the row and to
the audit log (an event of kind ``review``) in one transaction, so the log never
records a verdict the queue lacks, or the reverse.
Resolved items are never reopened: their verdicts are labels for calibration
(:meth:`ReviewQueue.labels`), pairing the score given at the time with what was true.
"""

from __future__ import annotations

import builtins
import math
from datetime import UTC, datetime
from typing import Any

from assay.audit import AuditLog
from assay.errors import ConflictError, InvalidInputError, NotFoundError, did_you_mean
from assay.events import ReviewRecord
from assay.hashing import canonical_json
from assay.store.records import ReviewItem
from assay.store.repositories import Database
from assay.types import check_encodable

__all__ = ["STATUSES", "VERDICTS", "ReviewItem", "ReviewQueue"]

VERDICTS = ("correct", "incorrect")
STATUSES = ("pending", "resolved", "all")


class ReviewQueue:
    """Reads and writes the ``review_queue`` table; verdicts are audited (J6)."""

    def __init__(self, db: Database, audit: AuditLog) -> None:
        self._db = db
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
    ) -> ReviewItem:
        """Queue one answer for review; ``assessment`` is its J1 object.

        Inside the caller's unit of work when one is open: the ask that produced the
        answer writes its audit event in the same one.
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
        with self._db.unit_of_work():
            item_id = self._db.review.add(row)
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
        return self._db.review.newest(None if status == "all" else status, limit)

    def counts(self) -> dict[str, int]:
        """How many items are ``pending`` and ``resolved``, and ``all`` of them."""
        found = self._db.review.counts()
        counts = {status: int(found.get(status, 0)) for status in ("pending", "resolved")}
        return counts | {"all": sum(counts.values())}

    def get(self, item_id: int) -> ReviewItem:
        """The item with this id; :class:`NotFoundError` says how to find the right one."""
        found = self._db.review.get(item_id) if isinstance(item_id, int) else None
        if found is None:
            raise NotFoundError(
                f"review item {item_id!r} not found; list ids with `assay review list --status all`"
            )
        return found

    def resolve(
        self,
        item_id: int,
        verdict: str,
        note: str | None = None,
        now: datetime | None = None,
        *,
        correction: str | None = None,
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
        if correction is not None:
            if not isinstance(correction, str) or not correction.strip():
                raise InvalidInputError("correction", correction, "give the right answer as text")
            if verdict != "incorrect":
                raise InvalidInputError(
                    "correction", correction, "give the right answer only with verdict incorrect",
                    problem="was given for an answer marked correct",
                )  # fmt: skip
            correction = correction.strip()
        check_encodable("note", note)
        check_encodable("correction", correction)
        resolved_at = _iso(now)
        with self._db.unit_of_work():  # the write lock: no other reviewer can race us
            item = self.get(item_id)
            if item.status != "pending":
                raise ConflictError(
                    f"review item {item_id} was already resolved as {item.verdict!r} at "
                    f"{item.resolved_at}; verdicts are calibration labels and are kept"
                )
            verdict_record = ReviewRecord(
                review_item=item.id,
                event_id=item.event_id,
                verdict=verdict,
                note=note,
                confidence_score=item.confidence_score,
                correction=correction,
            )
            event = self._audit.append(
                verdict_record,
                query=item.query,
                policy_name=item.policy_name,
                policy_version=item.policy_version,
                now=now,
            )
            self._db.review.resolve(
                item.id, verdict=verdict, note=note, resolved_at=resolved_at,
                event_id=event.event_id, correction=correction,
            )  # fmt: skip
        return self.get(item_id)

    def labels(self) -> builtins.list[tuple[float, bool, str]]:
        """``(confidence_score, verdict == "correct", event_id)`` of every resolved item.

        Oldest first; these are the labels calibration fits the score against.
        """
        return self._db.review.labels()


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
