"""The knowledge base's vectors as one memory-mapped matrix beside the database, kept
current by reading only what changed.

Exact dense search multiplies every stored vector by the query. Read from the database,
a million 384-dimension vectors take many seconds and several copies of 1.5 GB; mapped
from a file, they take milliseconds and one copy that the page cache shares between
processes. The folder ``<database>-vectors/`` holds a *base*: the ids, ``seq`` numbers
and vectors of every chunk at one generation of the knowledge base (a random token that
every write changes, in the same transaction), each file written whole under a
temporary name and renamed into place.

The base is a cache of the database, never the truth. For every generation the database
records the last chunk ``seq`` and the last deletion (``kb_generations``; a trigger logs
every deleted chunk in ``kb_chunk_deletions``). A store whose generation has moved past
the base's reads only the difference -- the rows added since, the rows deleted since --
and searches the base less its deleted rows plus the added ones. Once the difference
reaches :data:`REWRITE_FRACTION` of the base, a new base is written from the mapped one
and the difference, without reading every vector from the database again. A base whose
generation the database does not know (a database restored from a backup, a folder
copied from elsewhere) is never used: the matrix is then read whole from the database.
A database without a folder of its own (``:memory:``) keeps its matrix in memory.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from assay.store.base import Vectors

REWRITE_FRACTION = 0.1
_PARTS = ("ids", "seqs", "matrix")
_ROWS_PER_READ = 20_000
_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class VectorSet:
    """Every stored vector at one generation: the base's rows less those deleted since
    (``dead``, row indices), then the rows added since (``added``)."""

    base_ids: Sequence[str]
    base: Vectors
    dead: np.ndarray = field(default_factory=lambda: _EMPTY)
    added_ids: Sequence[str] = ()
    added: Vectors = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    base_seqs: np.ndarray = field(default_factory=lambda: _EMPTY)
    added_seqs: np.ndarray = field(default_factory=lambda: _EMPTY)

    def __len__(self) -> int:
        return len(self.base_ids) - len(self.dead) + len(self.added_ids)

    @property
    def dimensions(self) -> int:
        """The vectors' length (0 while there are none)."""
        return int(self.base.shape[1] if len(self.base_ids) else self.added.shape[-1])

    def scores(self, query: Vectors) -> np.ndarray:
        """``query`` times every row: the base's (deleted ones ``-inf``), then the added."""
        parts = []
        if len(self.base_ids):
            base = self.base @ query
            base[self.dead] = -np.inf
            parts.append(base)
        if len(self.added_ids):
            parts.append(self.added @ query)
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)

    def seqs(self) -> np.ndarray:
        """The chunk ``seq`` of every row of :meth:`scores` (a deleted row keeps its own)."""
        return np.concatenate([np.asarray(self.base_seqs), np.asarray(self.added_seqs)])

    def id(self, index: int) -> str:
        """The chunk id of row ``index`` of :meth:`scores`."""
        if index < len(self.base_ids):
            return self.base_ids[index]
        return self.added_ids[index - len(self.base_ids)]


@dataclass(frozen=True)
class _Base:
    generation: str
    ids: Sequence[str]
    seqs: np.ndarray
    matrix: Vectors
    last_seq: int
    last_deletion: int


class VectorFiles:
    """The ``<database>-vectors/`` folder: ``<generation>.{ids,seqs,matrix}.npy``."""

    def __init__(self, database: Path | None) -> None:
        self.folder = None if database is None else database.with_name(database.name + "-vectors")

    def load(self, conn: sqlite3.Connection, generation: str) -> VectorSet:
        """The vectors of the knowledge base at ``generation`` (read inside a snapshot)."""
        base = self._base(conn) if self.folder is not None else None
        if base is None:
            every = _Query(conn)
            written = self._written(generation, every.shape, every.fill)
            if written is not None:
                return written
            ids, seqs, matrix = every.fill(np.empty(every.shape, dtype=np.float32))
            return VectorSet(ids, matrix, base_seqs=seqs)
        if base.generation == generation:
            return VectorSet(base.ids, base.matrix, base_seqs=base.seqs)
        deleted = np.array([r[0] for r in conn.execute(
            "SELECT seq FROM kb_chunk_deletions WHERE id > ?", (base.last_deletion,)
        )], dtype=np.int64)  # fmt: skip
        where = np.minimum(np.searchsorted(base.seqs, deleted), max(len(base.seqs) - 1, 0))
        dead = np.unique(where[base.seqs[where] == deleted])
        changed = _Query(conn, base.last_seq, base.last_deletion)
        dims = base.matrix.shape[1]
        added_ids, added_seqs, added = changed.fill(np.empty((changed.shape[0], dims), "<f4"))
        since = VectorSet(base.ids, base.matrix, dead, added_ids, added, base.seqs, added_seqs)
        if len(added_ids) + len(dead) < REWRITE_FRACTION * len(base.ids):
            return since
        keep = np.setdiff1d(np.arange(len(base.ids)), dead)
        seqs = np.concatenate([base.seqs[keep], added_seqs])
        order = np.argsort(seqs, kind="stable")  # a freed seq may be taken again
        ids = [base.ids[keep[i]] if i < len(keep) else added_ids[i - len(keep)] for i in order]

        def merge(out: np.ndarray) -> tuple[Sequence[str], np.ndarray, Vectors]:
            for start in range(0, len(order), _ROWS_PER_READ):  # a slice at a time
                picks = order[start : start + _ROWS_PER_READ]
                old = picks < len(keep)
                out[start : start + len(picks)][old] = base.matrix[keep[picks[old]]]
                out[start : start + len(picks)][~old] = added[picks[~old] - len(keep)]
            return ids, seqs[order], out

        return self._written(generation, (len(order), dims), merge) or since

    def _base(self, conn: sqlite3.Connection) -> _Base | None:
        """The newest base in the folder that this database knows, mapped."""
        assert self.folder is not None
        tokens = [p.name.removesuffix(".matrix.npy") for p in self.folder.glob("*.matrix.npy")]
        if not tokens:
            return None
        marks = ",".join("?" * len(tokens))
        known = conn.execute(
            "SELECT generation, last_seq, last_deletion FROM kb_generations"
            f" WHERE generation IN ({marks}) ORDER BY last_deletion DESC, last_seq DESC",
            tokens,
        ).fetchall()
        for generation, last_seq, last_deletion in known:
            found = self._mapped(generation)
            if found is not None:
                return _Base(generation, *found, last_seq, last_deletion)
        return None

    def _written(self, generation: str, shape: tuple[int, int], fill: Fill) -> VectorSet | None:
        """Write the base of ``generation`` -- ``fill`` puts the rows into the mapped
        matrix file and returns the ids and seqs -- and map it; None where none can be
        written (no folder, a read-only one, no rows)."""
        if self.folder is None or not shape[0]:
            return None
        try:
            self._write(generation, shape, fill)
        except OSError:  # a read-only folder: search from memory
            return None
        found = self._mapped(generation)
        return None if found is None else VectorSet(found[0], found[2], base_seqs=found[1])

    def _mapped(self, generation: str) -> tuple[Sequence[str], np.ndarray, Vectors] | None:
        """The ids, seqs and matrix of the base of ``generation``, mapped; None if absent
        or damaged."""
        try:
            ids, seqs, matrix = (np.load(path, mmap_mode="r") for path in self._paths(generation))
        except (OSError, ValueError):
            return None
        if not len(ids) == len(seqs) == len(matrix):
            return None
        return _Ids(ids), seqs, matrix

    def _paths(self, generation: str) -> tuple[Path, Path, Path]:
        assert self.folder is not None
        safe = "".join(c for c in generation if c.isalnum())[:64] or "0"
        ids, seqs, matrix = (self.folder / f"{safe}.{kind}.npy" for kind in _PARTS)
        return ids, seqs, matrix

    def _write(self, generation: str, shape: tuple[int, int], fill: Fill) -> None:
        """Each file under a temporary name, renamed into place once whole; then the
        earlier bases go."""
        assert self.folder is not None
        self.folder.mkdir(mode=0o700, exist_ok=True)
        parts: list[Path] = []
        try:
            parts.append(_part(self.folder))
            matrix = np.lib.format.open_memmap(parts[-1], "w+", dtype="<f4", shape=shape)
            ids, seqs, _ = fill(matrix)
            matrix.flush()
            del matrix
            for array in (np.asarray(ids, dtype="S"), np.asarray(seqs, dtype=np.int64)):
                parts.append(_part(self.folder))
                np.save(parts[-1], array, allow_pickle=False)
            paths = self._paths(generation)
            for part, path in zip(parts, (paths[2], paths[0], paths[1]), strict=True):
                part.replace(path)
        finally:
            for part in parts:
                part.unlink(missing_ok=True)
        for stale in self.folder.glob("*.npy"):  # earlier bases
            if stale not in paths:
                stale.unlink(missing_ok=True)


Fill = Callable[[np.ndarray], tuple[Sequence[str], np.ndarray, Vectors]]


def _part(folder: Path) -> Path:
    """A new temporary file in ``folder`` named ``*.part.npy`` (numpy keeps the name)."""
    handle, name = tempfile.mkstemp(dir=folder, suffix=".part.npy")
    os.close(handle)
    return Path(name)


class _Ids(Sequence[str]):
    """Chunk ids read from a memory-mapped byte-string array, one at a time."""

    def __init__(self, raw: np.ndarray) -> None:
        self._raw = raw

    def __len__(self) -> int:
        return len(self._raw)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return bytes(self._raw[index]).decode()


class _Query:
    """Chunk rows in ``seq`` order: every chunk, or (``after_seq``) those added after that
    seq or in a place freed by a deletion after ``after_deletion``."""

    def __init__(
        self, conn: sqlite3.Connection, after_seq: int | None = None, after_deletion: int = 0
    ) -> None:
        self._conn = conn
        self._rows = "SELECT seq, id, embedding FROM kb_chunks"
        self._params: tuple[int, ...] = ()
        if after_seq is not None:
            self._rows = (
                f"{self._rows} WHERE seq > ? UNION ALL {self._rows} WHERE seq <= ?"
                " AND seq IN (SELECT seq FROM kb_chunk_deletions WHERE id > ?)"
            )
            self._params = (after_seq, after_seq, after_deletion)
        total, dims = conn.execute(
            f"SELECT COUNT(*), MAX(length(embedding)) / 4 FROM ({self._rows})", self._params
        ).fetchone()
        self.shape = (int(total or 0), int(dims or 0))

    def fill(self, out: np.ndarray) -> tuple[list[str], np.ndarray, Vectors]:
        """Stream the rows' vectors into ``out`` (of :attr:`shape`); their ids and seqs."""
        cursor = self._conn.cursor()
        cursor.row_factory = None  # plain tuples: a million rows go faster
        cursor.execute(f"SELECT * FROM ({self._rows}) ORDER BY seq", self._params)
        ids: list[str] = []
        seqs: list[int] = []
        while page := cursor.fetchmany(_ROWS_PER_READ):
            start = len(ids)
            block = np.frombuffer(b"".join(r[2] for r in page), dtype="<f4")
            out[start : start + len(page)] = block.reshape(len(page), -1)
            ids.extend(r[1] for r in page)
            seqs.extend(r[0] for r in page)
        return ids, np.asarray(seqs, dtype=np.int64), out
