"""``assay db copy``: a whole assay database from one backend to another, in one unit of
work on the target, which must be empty.

Everything crosses: source kinds, sources and their history, the knowledge base with its
vectors, the audit log row for row, the review queue, calibration maps, API keys and
dashboard sessions, and drift alerts. (Policies are files, not rows: copy
``policy_dirs`` along.) The audit log's rows keep their bytes, so the copy verifies with
the same head hash as the original; :func:`copy_database` checks that before it returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.errors import InvalidInputError, StorageError
from assay.store.repositories import Database
from assay.store.sql.tables import TABLES

_BATCH = 500


@dataclass(frozen=True, slots=True)
class CopyReport:
    """Rows copied per table, and the audit head both databases share."""

    rows: dict[str, int]
    audit_head: tuple[int, str] | None


def copy_database(source: Database, target: Database, *, target_name: str = "--to") -> CopyReport:
    """Copy every row of ``source`` into the empty ``target``; all of it lands, or none."""
    busy = {t: n for t in ("sources", "kb_documents", "audit_events", "api_keys",
                           "review_queue", "calibration_maps")
            if (n := target.tables.count(t))}  # fmt: skip
    if busy:
        name, n = next(iter(busy.items()))
        raise InvalidInputError(
            target_name, f"{name}: {n} row(s)",
            "copy into an empty database (`assay db migrate` on a new one makes it)",
            problem="is not empty",
        )  # fmt: skip
    counts: dict[str, int] = {}
    dimensions: int | None = None
    with source.knowledge.snapshot(), target.unit_of_work():
        for table in TABLES:
            batch: list[dict[str, object]] = []
            counts[table.name] = 0
            for row in source.tables.read(table):
                if dimensions is None and "embedding" in row:
                    dimensions = len(row["embedding"])
                batch.append(row)
                if len(batch) == _BATCH:
                    target.tables.write(table, batch)
                    counts[table.name] += len(batch)
                    batch = []
            target.tables.write(table, batch)
            counts[table.name] += len(batch)
        target.tables.finish(source.knowledge.embedder(), dimensions)
        head = source.audit.head()
        if target.audit.head() != head:
            raise StorageError(
                f"the copy's audit head is not the original's ({head}); nothing was copied"
            )
    return CopyReport(rows=counts, audit_head=head)
