"""The knowledge base's vectors as one memory-mapped matrix in a folder beside the database.

Exact dense search multiplies every stored vector by the query. Read from the database,
a million 384-dimension vectors take many seconds and several copies of 1.5 GB; mapped
from a file, they take milliseconds and one copy that the page cache shares between
processes. The file is a cache of the database, never the truth: it is named after the
knowledge base's generation (a random token every write changes, in the same
transaction), written whole under a temporary name and renamed into place, and rebuilt
from the database whenever the generation it was made for is no longer the current one.
A database without a folder of its own (``:memory:``) keeps its matrix in memory.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from assay.store.base import Vectors

Matrix = tuple[Sequence[str], Vectors]
_ROWS_PER_READ = 20_000


class VectorFiles:
    """The ``<database>-vectors/`` folder: ``<generation>.ids.npy`` and ``.matrix.npy``."""

    def __init__(self, database: Path | None) -> None:
        self.folder = None if database is None else database.with_name(database.name + "-vectors")

    def load(self, conn: sqlite3.Connection, generation: str) -> Matrix:
        """The ids (in insertion order) and vectors of the knowledge base at ``generation``."""
        if self.folder is not None:
            found = self._mapped(generation)
            if found is not None:
                return found
        ids, matrix = _read(conn)
        if self.folder is None or not ids:
            return ids, matrix
        try:
            self._write(generation, ids, matrix)
        except OSError:  # a read-only folder: search from memory
            return ids, matrix
        return self._mapped(generation) or (ids, matrix)

    def _paths(self, generation: str) -> tuple[Path, Path]:
        assert self.folder is not None
        safe = "".join(c for c in generation if c.isalnum())[:64] or "0"
        return self.folder / f"{safe}.ids.npy", self.folder / f"{safe}.matrix.npy"

    def _mapped(self, generation: str) -> Matrix | None:
        ids_path, matrix_path = self._paths(generation)
        try:
            ids = np.load(ids_path, mmap_mode="r")
            matrix = np.load(matrix_path, mmap_mode="r")
        except (OSError, ValueError):
            return None
        if len(ids) != len(matrix):
            return None
        return _Ids(ids), matrix

    def _write(self, generation: str, ids: Sequence[str], matrix: Vectors) -> None:
        assert self.folder is not None
        self.folder.mkdir(mode=0o700, exist_ok=True)
        ids_path, matrix_path = self._paths(generation)
        for path, array in ((ids_path, np.asarray(ids, dtype="S")), (matrix_path, matrix)):
            handle, tmp = tempfile.mkstemp(dir=self.folder, suffix=".part")
            try:
                with os.fdopen(handle, "wb") as out:
                    np.save(out, array)
                Path(tmp).replace(path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        keep = {ids_path.name, matrix_path.name}
        for stale in self.folder.glob("*.npy"):  # earlier generations
            if stale.name not in keep:
                stale.unlink(missing_ok=True)


class _Ids(Sequence[str]):
    """Chunk ids read from a memory-mapped byte-string array, one at a time."""

    def __init__(self, raw: np.ndarray) -> None:
        self._raw = raw

    def __len__(self) -> int:
        return len(self._raw)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return bytes(self._raw[index]).decode()


def _read(conn: sqlite3.Connection) -> Matrix:
    """Every chunk's id and vector from the database, in insertion order, streamed into
    one preallocated matrix (no copy of the whole set on the way)."""
    total, dims = conn.execute(
        "SELECT COUNT(*), MAX(length(embedding)) / 4 FROM kb_chunks"
    ).fetchone()
    if not total:
        return [], np.zeros((0, 0), dtype=np.float32)
    matrix = np.empty((int(total), int(dims)), dtype=np.float32)
    ids: list[str] = []
    cursor = conn.execute("SELECT id, embedding FROM kb_chunks ORDER BY seq")
    while rows := cursor.fetchmany(_ROWS_PER_READ):
        start = len(ids)
        block = b"".join(r[1] for r in rows)
        matrix[start : start + len(rows)] = np.frombuffer(block, dtype="<f4").reshape(len(rows), -1)
        ids.extend(r[0] for r in rows)
    return ids, matrix
