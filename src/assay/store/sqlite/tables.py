"""Whole-table reads and writes of an SQLite database (for ``assay db copy``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.store.sql.tables import SQLTables


class SQLiteTables(SQLTables):
    """Vectors are little-endian float32 blobs here."""

    def vector_out(self, stored: Any) -> np.ndarray:
        return np.frombuffer(stored, dtype="<f4").astype(np.float32)

    def vector_in(self, vector: np.ndarray) -> Any:
        return np.asarray(vector, dtype="<f4").tobytes()

    def finish(self, embedder: str | None, dimensions: int | None) -> None:
        super().finish(embedder, dimensions)
        self._conn.execute(  # the in-memory vector matrix of open stores reloads
            "UPDATE kb_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"
        )
