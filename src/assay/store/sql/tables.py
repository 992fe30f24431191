"""Every table of an assay database read and written whole, for copying a database from
one backend to another (``assay db copy``).

Rows go across as they are stored -- ids, sequence numbers, hashes and the exact text of
every audit row -- so that the copy's audit chain verifies with the same head hash. The
one column stored differently by each backend, a chunk's vector, crosses as a float32
array; each backend converts it (:class:`SQLTables` subclasses in the backends).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.store.sql.session import Session

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, slots=True)
class Table:
    """A table to copy: its name, the columns both backends share, and its key (one
    column, or several separated by commas)."""

    name: str
    columns: tuple[str, ...]
    key: str


def _columns(text: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in text.split(","))


# In the order a copy writes them (every reference points backwards).
TABLES = (
    Table("source_kinds", _columns(
        "name, reliability, review_interval_days, builtin, created_at"), "name"),
    Table("sources", _columns(
        "id, kind, reliability, name, owner, jurisdiction, court_level, overruled, retired,"
        " review_interval_days, reviewed_at, metadata, supersedes, version, created_at,"
        " updated_at"), "id"),
    Table("source_history", _columns(
        "id, source_id, version, action, changed_at, actor, note, snapshot"), "id"),
    Table("kb_access_sets", _columns("id, labels"), "id"),
    Table("kb_documents", _columns(
        "id, source_id, file, uri, title, content_hash, published, verified, chunk_count,"
        " embedder, ingested_at, access"), "id"),
    Table("kb_chunks", _columns(
        "seq, id, document_id, source_id, ordinal, text, title, location, uri, published,"
        " verified, metadata, access_set, embedding"), "seq"),
    Table("kb_lexicon_blocks", _columns("block, chunks, terms"), "block"),
    Table("kb_postings", _columns("term, block, postings"), "term, block"),
    Table("audit_events", _columns(
        "seq, event_id, created_at, kind, query, query_hash, policy_name, policy_version,"
        " payload, prev_hash, row_hash, actor, seal, schema_version"), "seq"),
    Table("review_queue", _columns(
        "id, event_id, created_at, query, answer, reason, confidence_score, assessment,"
        " policy_name, policy_version, status, verdict, note, resolved_at, resolution_event_id,"
        " correction"),
        "id"),
    Table("calibration_maps", _columns(
        "id, target, model_key, version, method, params, n_labels, metrics, labels_sha256,"
        " created_at"), "id"),
    Table("api_keys", _columns(
        "id, name, roles, secret_sha256, created_at, revoked_at, min_severity, grants"),
        "id"),
    Table("dashboard_sessions", _columns(
        "id_sha256, key_id, created_at, expires_at, closed_at"), "id_sha256"),
    Table("monitor_alerts", _columns(
        "id, policy_name, metric, opened_at, closed_at, baseline, current, statistic, p_value,"
        " detail, tightened_by"), "id"),
)  # fmt: skip

PAGE = 1000
_ROWS_PER_INSERT = 200  # at most 16 columns: 3,200 parameters a statement


class SQLTables:
    """Whole-table reads and writes on one session; backends convert the vector column
    (:meth:`vector_out`, :meth:`vector_in`) and finish a copy their own way."""

    def __init__(self, conn: Session) -> None:
        self._conn = conn

    def count(self, table: str) -> int:
        """How many rows ``table`` holds."""
        if table not in {t.name for t in TABLES}:
            raise ValueError(f"not a copied table: {table}")
        return int(self._conn.execute(f"SELECT COUNT(*) AS n FROM {table}").fetchone()["n"])

    def read(self, table: Table) -> Iterator[dict[str, Any]]:
        """Every row of ``table`` in key order, a page at a time (vectors as arrays)."""
        after: tuple[Any, ...] = ()
        columns = ", ".join(table.columns)
        keys = _columns(table.key)
        following = f" WHERE ({table.key}) > ({', '.join('?' * len(keys))})"
        while True:
            page = self._conn.execute(
                f"SELECT {columns} FROM {table.name}{following if after else ''}"
                f" ORDER BY {table.key} LIMIT {PAGE}",
                after,
            ).fetchall()
            for row in page:
                values = dict(row)
                if "embedding" in values:
                    values["embedding"] = self.vector_out(values["embedding"])
                yield values
            if len(page) < PAGE:
                return
            after = tuple(page[-1][key] for key in keys)

    def write(self, table: Table, rows: Sequence[dict[str, Any]]) -> None:
        """Insert ``rows`` as they are (inside the caller's unit of work), many to a
        statement; a row whose key is already there is skipped (the built-in source kinds
        of a fresh database)."""
        marks = "(" + ", ".join(self.placeholder(c) for c in table.columns) + ")"
        for start in range(0, len(rows), _ROWS_PER_INSERT):
            page = rows[start : start + _ROWS_PER_INSERT]
            values: list[Any] = []
            for row in page:
                values += [
                    self.vector_in(row[c]) if c == "embedding" else row[c] for c in table.columns
                ]
            self._conn.execute(
                f"INSERT INTO {table.name} ({', '.join(table.columns)})"
                f" VALUES {', '.join([marks] * len(page))}"
                f" ON CONFLICT ({table.key}) DO NOTHING",
                values,
            )

    def placeholder(self, column: str) -> str:
        """The parameter marker of ``column`` in an INSERT."""
        return "?"

    def vector_out(self, stored: Any) -> np.ndarray:
        """A stored vector as a float32 array."""
        raise NotImplementedError

    def vector_in(self, vector: np.ndarray) -> Any:
        """A float32 array as this backend stores it."""
        raise NotImplementedError

    def finish(self, embedder: str | None, dimensions: int | None) -> None:
        """After a copy: bind the knowledge base to ``embedder`` (when it holds vectors)."""
        if embedder is not None:
            self._conn.execute(
                "INSERT INTO kb_meta (key, value) VALUES ('embedder', ?)", (embedder,)
            )
