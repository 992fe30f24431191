"""Whole-table reads and writes of an SQLite database (for ``assay db copy``)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from assay.store.sql.tables import SQLTables
from assay.store.sqlite.knowledge import blob_vector, bump_generation, vector_blob

if TYPE_CHECKING:
    import numpy as np


class SQLiteTables(SQLTables):
    """Vectors are little-endian float32 blobs here."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._raw = conn

    def vector_out(self, stored: Any) -> np.ndarray:
        return blob_vector(stored)

    def vector_in(self, vector: np.ndarray) -> Any:
        return vector_blob(vector)

    def finish(self, embedder: str | None, dimensions: int | None) -> None:
        super().finish(embedder, dimensions)
        bump_generation(self._raw)  # open stores rebuild their vector matrix
