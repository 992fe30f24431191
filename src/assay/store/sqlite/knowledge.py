"""The embedded store: chunks, BM25 postings and float32 vectors in the assay SQLite file.

Vectors are kept as little-endian float32 blobs and searched exactly: a query is one
matrix-vector product over all of them (100k x 384 takes about 4 ms), on a matrix
memory-mapped from a file beside the database (:mod:`assay.store.sqlite.vectors`). Every
write sets a new random generation token, so the matrix catches up only after the
knowledge base changed -- also when another process changed it.
Lexical search is BM25 over the postings of :mod:`assay.store.sql.lexicon`, the same on
both backends. The SQL of the knowledge base lives here, in that module and in
``schema.py``.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assay.access import Access
from assay.documents import Chunk
from assay.store.base import DocumentBatch, Hit, StoredDocument, StoreStats, Vectors
from assay.store.sql.knowledge_rows import (
    CHUNK_COLUMNS,
    INSERT_CHUNK,
    INSERT_DOCUMENT,
    access_set_id,
    check_batch,
    chunk,
    chunk_rows,
    document_row,
    documents_query,
    embedder_mismatch,
    in_pages,
    last_of_each,
    query_vector,
    readable_sets,
    relabel_rows,
    require_all,
    stored_document,
)
from assay.store.sql.lexicon import Lexicon
from assay.store.sqlite.connection import transaction
from assay.store.sqlite.vectors import VectorFiles, VectorSet


class SQLiteStore:
    """:class:`~assay.store.base.Store` on the assay database connection."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None = None) -> None:
        """``path``: the database file, beside which the vector matrix is kept."""
        self._conn = conn
        self._files = VectorFiles(path)
        self._lexicon = Lexicon(conn)
        self._index: tuple[str, VectorSet] | None = None
        self._row_sets: tuple[str, np.ndarray] | None = None  #: each row's label set
        self._label_map: tuple[str, LabelMap] | None = None

    # -- writes ----------------------------------------------------------------
    def sync_file(self, file: str, batch: Sequence[DocumentBatch], keep: Sequence[str] = ()) -> int:
        """Write one file's new and changed documents and drop the ones it no longer holds.

        All in one transaction. ``keep`` names the file's unchanged documents; any other
        stored document of ``file`` that is not in ``batch`` is deleted (a record removed
        from a JSONL file). A chunk id repeated within a document is stored once. Returns
        how many stale documents were deleted.
        """
        check_batch(batch)
        batch = last_of_each(batch)
        with transaction(self._conn):
            written = [document.id for document, _, _ in batch]
            present = set(keep) | set(written)
            stale = [
                row[0]
                for row in self._conn.execute("SELECT id FROM kb_documents WHERE file = ?", (file,))
                if row[0] not in present
            ]
            self._delete([*written, *stale])
            for document, chunks, vectors in batch:
                self._write(file, document, chunks, vectors)
            self._lexicon.index_documents(written)
            bump_generation(self._conn)
        return len(stale)

    def delete_document(self, document_id: str) -> bool:
        """Remove a document and its chunks; False if it was not stored."""
        with transaction(self._conn):
            found = self._delete([document_id]) > 0
            bump_generation(self._conn)
        return found

    def relabel(self, document_id: str, labels: frozenset[str]) -> bool:
        """Give a stored document and its chunks new access labels; False if not stored."""
        with transaction(self._conn):
            found = relabel_rows(self._conn, document_id, labels)
            if found:
                bump_generation(self._conn)  # searches read the new labels
        return found

    def _delete(self, document_ids: Sequence[str]) -> int:
        """Remove these documents with their chunks and postings; how many were stored."""
        self._lexicon.remove_documents(document_ids)
        gone = 0
        for page in in_pages(document_ids):
            marks = ",".join("?" * len(page))
            self._conn.execute(f"DELETE FROM kb_chunks WHERE document_id IN ({marks})", page)
            found = self._conn.execute(f"DELETE FROM kb_documents WHERE id IN ({marks})", page)
            gone += found.rowcount
        return gone

    def _write(
        self, file: str, document: StoredDocument, chunks: Sequence[Chunk], vectors: Vectors
    ) -> None:
        self._check_embedder(document.embedder)
        self._conn.execute(INSERT_DOCUMENT, document_row(file, document, len(chunks)))
        access_set = access_set_id(self._conn, document.access)
        self._conn.executemany(
            INSERT_CHUNK.format(vector="?"),
            chunk_rows(document, chunks, vectors, vector_blob, access_set),
        )

    def prepare_search(self) -> None:
        """Catch the vector matrix file up with the writes so far (after a bulk load, a
        read of every vector that the next search would otherwise wait for)."""
        self._vectors()

    # -- reads -----------------------------------------------------------------
    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One consistent view for several reads, even while another process writes
        (joins a transaction already open on this connection)."""
        if self._conn.in_transaction:
            yield
            return
        self._conn.execute("BEGIN")
        try:
            yield
        finally:
            self._conn.execute("COMMIT")

    def document(self, document_id: str) -> StoredDocument | None:
        """The stored document with this id, if any."""
        row = self._conn.execute(
            "SELECT * FROM kb_documents WHERE id = ?", (document_id,)
        ).fetchone()
        return None if row is None else stored_document(row)

    def documents_in(self, file: str) -> list[StoredDocument]:
        """The stored documents ingested from ``file``, by uri."""
        return [stored_document(row) for row in self._conn.execute(*documents_query(file=file))]

    def same_content(self, source_id: str, content_hash: str) -> list[StoredDocument]:
        """The stored documents of ``source_id`` with this content hash."""
        query = documents_query(source_id=source_id, content_hash=content_hash)
        return [stored_document(row) for row in self._conn.execute(*query)]

    def list_documents(
        self, *, source_id: str | None = None, limit: int | None = None
    ) -> list[StoredDocument]:
        """Stored documents by uri (``source_id``: that source's only; at most ``limit``)."""
        query = documents_query(source_id=source_id, limit=limit)
        return [stored_document(row) for row in self._conn.execute(*query)]

    def lexical_search(self, query: str, k: int, access: Access | None = None) -> list[Hit]:
        """BM25 over chunk text and title (the chunks ``access`` may read); the query's
        stopwords are ignored."""
        with self.snapshot():  # the postings and the chunks they name, read together
            readable = readable_sets(self._conn, access)
            if readable is None:
                return self._lexicon.search(query, k)
            labels = self._labels()
            return self._lexicon.search(
                query, k, lambda seqs: in_sets(labels.sets_of(seqs), readable)
            )

    def dense_search(self, vector: Vectors, k: int, access: Access | None = None) -> list[Hit]:
        """Exact cosine search over every stored vector (vectors are unit length) that
        ``access`` may read: the others score ``-inf`` before the top ``k`` are taken."""
        with self.snapshot():  # the vectors and the labels of their rows, read together
            vectors = self._vectors()
            readable = readable_sets(self._conn, access)
            if not len(vectors) or k <= 0:
                return []
            scores = vectors.scores(query_vector(vector, vectors.dimensions))
            available = len(vectors)
            if readable is not None:
                allowed = self._rows_in(vectors, readable)
                scores[~allowed] = -np.inf
                available = int(np.count_nonzero(allowed & np.isfinite(scores)))
        k = min(k, available)
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]  # by score, ties by insertion order
        return [Hit(vectors.id(i), float(scores[i])) for i in top]

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids in the order given; an unknown id is an error."""
        rows = self._rows(CHUNK_COLUMNS, ids)
        return [chunk(rows[i]) for i in ids]

    def vectors(self, ids: Sequence[str]) -> Vectors:
        """The stored vectors of these chunks, in the order given."""
        if not ids:
            return np.zeros((0, 0), dtype=np.float32)
        rows = self._rows("id, embedding", ids)
        return np.stack([blob_vector(rows[i]["embedding"]) for i in ids]).astype(np.float32)

    def stats(self) -> StoreStats:
        """Document and chunk counts, and the embedder the vectors came from."""
        docs = self._conn.execute("SELECT COUNT(*) FROM kb_documents").fetchone()[0]
        chunks = self._conn.execute("SELECT COUNT(*) FROM kb_chunks").fetchone()[0]
        return StoreStats(documents=docs, chunks=chunks, embedder=self.embedder())

    def embedder(self) -> str | None:
        """The embedder this knowledge base was built with; None while it is empty."""
        return self._meta("embedder")

    # -- internals ---------------------------------------------------------------
    def _rows(self, columns: str, ids: Sequence[str]) -> dict[str, sqlite3.Row]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = {
            r["id"]: r
            for r in self._conn.execute(
                f"SELECT {columns} FROM kb_chunks WHERE id IN ({marks})", list(ids)
            )
        }
        return require_all(ids, rows)

    def _vectors(self) -> VectorSet:
        if self._index is None or self._index[0] != (self._meta("generation") or "0"):
            with self.snapshot():  # the generation and the rows it names, read together
                generation = self._meta("generation") or "0"
                self._index = (generation, self._files.load(self._conn, generation))
        return self._index[1]

    def _rows_in(self, vectors: VectorSet, readable: Sequence[int]) -> np.ndarray:
        """Which rows of ``vectors`` are in the ``readable`` label sets (each row's set
        looked up once per generation of the knowledge base)."""
        assert self._index is not None
        generation = self._index[0]
        if self._row_sets is None or self._row_sets[0] != generation:
            self._row_sets = (generation, self._labels().sets_of(vectors.seqs()))
        return in_sets(self._row_sets[1], readable)

    def _labels(self) -> LabelMap:
        """Every labelled chunk's label set at the current generation (read inside the
        caller's snapshot, once per generation)."""
        generation = self._meta("generation") or "0"
        if self._label_map is None or self._label_map[0] != generation:
            labelled = self._conn.execute(
                "SELECT seq, access_set FROM kb_chunks WHERE access_set != 0 ORDER BY seq"
            ).fetchall()
            self._label_map = (
                generation,
                LabelMap(
                    np.array([r[0] for r in labelled], dtype=np.int64),
                    np.array([r[1] for r in labelled], dtype=np.int64),
                ),
            )
        return self._label_map[1]

    def _meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM kb_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _check_embedder(self, name: str) -> None:
        bound = self._meta("embedder")
        if bound is None:
            self._conn.execute("INSERT INTO kb_meta VALUES ('embedder', ?)", (name,))
        elif bound != name:
            raise embedder_mismatch(bound, name)


@dataclass(frozen=True)
class LabelMap:
    """The label set (``kb_chunks.access_set``) of every labelled chunk: their seqs,
    ascending, and their sets; a chunk not in it has no labels (set 0)."""

    seqs: np.ndarray
    sets: np.ndarray

    def sets_of(self, seqs: np.ndarray) -> np.ndarray:
        """The label set of each of these chunk seqs."""
        seqs = np.asarray(seqs, dtype=np.int64)
        if not len(self.seqs):
            return np.zeros(len(seqs), dtype=np.int64)
        at = np.minimum(np.searchsorted(self.seqs, seqs), len(self.seqs) - 1)
        return np.where(self.seqs[at] == seqs, self.sets[at], 0)


def in_sets(sets: np.ndarray, readable: Sequence[int]) -> np.ndarray:
    """Which entries of ``sets`` are among the ``readable`` label sets."""
    lookup = np.zeros(max(int(sets.max(initial=0)), *readable) + 1, dtype=bool)
    lookup[list(readable)] = True
    found: np.ndarray = lookup[sets]
    return found


def vector_blob(vector: Any) -> bytes:
    """A vector as stored here: little-endian float32 bytes."""
    return np.asarray(vector, dtype="<f4").tobytes()


def blob_vector(blob: bytes) -> Vectors:
    """A stored vector back as a float32 array."""
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def bump_generation(conn: sqlite3.Connection) -> None:
    """Mark the knowledge base changed: a new random token, never one used before (a
    database restored from a backup must not meet the vector file of its successor),
    recorded with the last chunk and the last deletion it includes."""
    token = uuid.uuid4().hex
    conn.execute("UPDATE kb_meta SET value = ? WHERE key = 'generation'", (token,))
    conn.execute(NEW_GENERATION, (token,))


NEW_GENERATION = (
    "INSERT INTO kb_generations (generation, last_seq, last_deletion) SELECT ?,"
    " (SELECT COALESCE(MAX(seq), 0) FROM kb_chunks),"
    " (SELECT COALESCE(MAX(id), 0) FROM kb_chunk_deletions)"
)
