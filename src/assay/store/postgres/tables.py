"""Whole-table reads and writes of a PostgreSQL database (for ``assay db copy``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.store.postgres.connection import PostgresSession
from assay.store.postgres.knowledge import PostgresStore, literal_vector, vector_literal
from assay.store.sql.tables import SQLTables

# identity columns written with explicit values by a copy: their sequences move past them
_IDENTITIES = (
    ("source_history", "id"),
    ("kb_chunks", "seq"),
    ("kb_access_sets", "id"),
    ("review_queue", "id"),
    ("calibration_maps", "id"),
    ("monitor_alerts", "id"),
)


class PostgresTables(SQLTables):
    """Vectors are pgvector values here (read as their text form ``[x,y,...]``)."""

    def __init__(self, session: PostgresSession, store: PostgresStore) -> None:
        super().__init__(session)
        self._store = store

    def placeholder(self, column: str) -> str:
        return "?::vector" if column == "embedding" else "?"

    def vector_out(self, stored: Any) -> np.ndarray:
        return literal_vector(stored)

    def vector_in(self, vector: np.ndarray) -> Any:
        return vector_literal(vector)

    def finish(self, embedder: str | None, dimensions: int | None) -> None:
        """Bind the vector column and build its HNSW index once the rows are in (faster
        than indexing row by row), and move each identity past the ids copied."""
        if embedder is not None and dimensions is not None:
            self._store.bind(embedder, dimensions)
        else:
            super().finish(embedder, dimensions)
        for table, column in _IDENTITIES:
            self._conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'),"
                f" COALESCE(MAX({column}), 0) + 1, false) FROM {table}"
            )
        self._conn.execute("ANALYZE")  # the planner's estimates (a label filter's) from now
