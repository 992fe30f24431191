"""The ``review_queue`` table: queued answers and the verdicts given on them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from assay.store.records import ReviewItem
from assay.store.sql.session import Session

_COLUMNS = (
    "id, event_id, created_at, query, answer, reason, confidence_score, assessment,"
    " policy_name, policy_version, status, verdict, note, resolved_at, resolution_event_id,"
    " correction"
)


class SQLReviewRepository:
    """:class:`~assay.store.repositories.ReviewRepository` on one session."""

    def __init__(self, conn: Session) -> None:
        self._conn = conn

    def add(self, row: Mapping[str, Any]) -> int:
        inserted = self._conn.execute(
            "INSERT INTO review_queue (event_id, created_at, query, answer, reason,"
            " confidence_score, assessment, policy_name, policy_version, status) VALUES"
            " (:event_id, :created_at, :query, :answer, :reason, :confidence_score,"
            " :assessment, :policy_name, :policy_version, 'pending') RETURNING id",
            dict(row),
        ).fetchone()
        return int(inserted["id"])

    def get(self, item_id: int) -> ReviewItem | None:
        if not -(2**63) <= item_id < 2**63:  # a 64-bit integer column
            return None
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM review_queue WHERE id = ?", (item_id,)
        ).fetchone()
        return None if row is None else _item(dict(row))

    def newest(self, status: str | None, limit: int) -> list[ReviewItem]:
        where, args = ("", []) if status is None else (" WHERE status = ?", [status])
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM review_queue{where} ORDER BY id DESC LIMIT {int(limit)}",
            args,
        )
        return [_item(dict(r)) for r in rows]

    def counts(self) -> dict[str, int]:
        rows = self._conn.execute(
            "SELECT status, COUNT(*) AS n FROM review_queue GROUP BY status"
        ).fetchall()
        return {str(r["status"]): int(r["n"]) for r in rows}

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
        self._conn.execute(
            "UPDATE review_queue SET status = 'resolved', verdict = ?, note = ?, correction = ?,"
            " resolved_at = ?, resolution_event_id = ? WHERE id = ? AND status = 'pending'",
            (verdict, note, correction, resolved_at, event_id, item_id),
        )

    def labels(self) -> list[tuple[float, bool, str]]:
        rows = self._conn.execute(
            "SELECT confidence_score, verdict, event_id FROM review_queue"
            " WHERE status = 'resolved' ORDER BY id"
        )
        return [
            (float(r["confidence_score"]), r["verdict"] == "correct", str(r["event_id"]))
            for r in rows
        ]


def _item(row: dict[str, Any]) -> ReviewItem:
    try:
        assessment = json.loads(row["assessment"])
    except json.JSONDecodeError:
        assessment = None
    if not isinstance(assessment, dict):  # a damaged row is shown as it is, not refused
        assessment = {"unreadable_assessment": row["assessment"]}
    return ReviewItem(**(row | {"assessment": assessment}))
