"""The knowledge base on PostgreSQL: pgvector's HNSW index for dense search, a
``tsvector`` with a GIN index for lexical search.

The vector column takes its dimension from the first document written (the embedder
fixes it), and the HNSW index (cosine) is built then, with the ``m`` and
``ef_construction`` of the settings; ``ef_search`` is set on each search, never below
``k``. Dense search is approximate: :mod:`bench.postgres` measures its recall@10 against
exact search. Lexical search is the BM25 of :mod:`assay.store.sql.lexicon`, the same
code and ranking as on SQLite; retrieval fuses both lists as it does there. Writes to
the knowledge base queue on one advisory lock, as they queue on SQLite's write lock.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from assay.access import Access
from assay.documents import Chunk
from assay.store.base import (
    DocumentBatch,
    Hit,
    StoredDocument,
    StoreStats,
    VectorIndexOptions,
    Vectors,
)
from assay.store.postgres.connection import KNOWLEDGE_WRITE_LOCK, PostgresSession
from assay.store.postgres.label_indexes import chunks_in, label_indexes, usable
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
    last_of_each,
    query_vector,
    readable_sets,
    relabel_rows,
    require_all,
    stored_document,
)
from assay.store.sql.lexicon import Lexicon


class PostgresStore:
    """:class:`~assay.store.base.Store` on one PostgreSQL session."""

    def __init__(self, session: PostgresSession, index: VectorIndexOptions) -> None:
        self._db = session
        self._index = index
        self._lexicon = Lexicon(session)

    # -- writes ----------------------------------------------------------------
    def sync_file(self, file: str, batch: Sequence[DocumentBatch], keep: Sequence[str] = ()) -> int:
        """Write a file's new and changed documents, drop those it no longer holds, in one
        transaction; returns how many stale documents were deleted."""
        check_batch(batch)
        batch = last_of_each(batch)
        with self._db.unit_of_work():
            self._db.lock(KNOWLEDGE_WRITE_LOCK)
            written = [document.id for document, _, _ in batch]
            present = set(keep) | set(written)
            stored = self._db.execute("SELECT id FROM kb_documents WHERE file = ?", (file,))
            stale = [r["id"] for r in stored.fetchall() if r["id"] not in present]
            self._delete([*written, *stale])
            for document, chunks, vectors in batch:
                self._write(file, document, chunks, vectors)
            self._lexicon.index_documents(written)
        return len(stale)

    def delete_document(self, document_id: str) -> bool:
        """Remove a document and its chunks; False if it was not stored."""
        with self._db.unit_of_work():
            self._db.lock(KNOWLEDGE_WRITE_LOCK)
            return self._delete([document_id]) > 0

    def relabel(self, document_id: str, labels: frozenset[str]) -> bool:
        """Give a stored document and its chunks new access labels; False if not stored."""
        with self._db.unit_of_work():
            self._db.lock(KNOWLEDGE_WRITE_LOCK)
            return relabel_rows(self._db, document_id, labels)

    def _delete(self, document_ids: Sequence[str]) -> int:
        """Remove these documents with their chunks (ON DELETE CASCADE) and postings; how
        many were stored."""
        self._lexicon.remove_documents(document_ids)
        gone = self._db.execute("DELETE FROM kb_documents WHERE id = ANY(?)", (list(document_ids),))
        return gone.rowcount

    def _write(
        self, file: str, document: StoredDocument, chunks: Sequence[Chunk], vectors: Vectors
    ) -> None:
        self._check_embedder(document.embedder, np.asarray(vectors).shape[-1])
        self._db.execute(INSERT_DOCUMENT, document_row(file, document, len(chunks)))
        access_set = access_set_id(self._db, document.access)
        self._db.execute_many(
            INSERT_CHUNK.format(vector="?::vector"),
            chunk_rows(document, chunks, vectors, vector_literal, access_set),
        )

    def prepare_search(self) -> None:
        """Nothing to do: the server keeps its indexes current with every write."""

    # -- reads -----------------------------------------------------------------
    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One consistent view for several reads, even while another process writes."""
        with self._db.snapshot():
            yield

    def document(self, document_id: str) -> StoredDocument | None:
        """The stored document with this id, if any."""
        row = self._db.execute("SELECT * FROM kb_documents WHERE id = ?", (document_id,)).fetchone()
        return None if row is None else stored_document(row)

    def documents_in(self, file: str) -> list[StoredDocument]:
        """The stored documents ingested from ``file``, by uri."""
        return [stored_document(row) for row in self._db.execute(*documents_query(file=file))]

    def same_content(self, source_id: str, content_hash: str) -> list[StoredDocument]:
        """The stored documents of ``source_id`` with this content hash."""
        query = documents_query(source_id=source_id, content_hash=content_hash)
        return [stored_document(row) for row in self._db.execute(*query)]

    def list_documents(
        self, *, source_id: str | None = None, limit: int | None = None
    ) -> list[StoredDocument]:
        """Stored documents by uri (``source_id``: that source's only; at most ``limit``)."""
        query = documents_query(source_id=source_id, limit=limit)
        return [stored_document(row) for row in self._db.execute(*query)]

    def lexical_search(self, query: str, k: int, access: Access | None = None) -> list[Hit]:
        """BM25 over chunk text and title (the chunks ``access`` may read); the query's
        stopwords are ignored."""
        with self._db.snapshot():  # the postings and the chunks they name, read together
            readable = readable_sets(self._db, access)
            if readable is None:
                return self._lexicon.search(query, k)
            self._db.execute(CUSTOM_PLANS)
            size = chunks_in(self._db, readable)
            if size <= EXACT_UP_TO:  # a sliver: fetch them once
                row = self._db.execute(READABLE_ALL, (readable,)).fetchone()
                every = np.sort(np.asarray((row and row["seqs"]) or [], dtype=np.int64))
                return self._lexicon.search(query, k, lambda seqs: sorted_holds(every, seqs))

            def check(seqs: np.ndarray) -> np.ndarray:  # one statement a page: an array
                rows = self._db.execute(READABLE_SEQS, ([int(s) for s in seqs], readable))
                return np.isin(seqs, [int(r["seq"]) for r in rows])

            return self._lexicon.search(query, k, check, readable_chunks=size)

    def dense_search(self, vector: Vectors, k: int, access: Access | None = None) -> list[Hit]:
        """The ``k`` nearest chunks by cosine, through the HNSW index (approximate).

        With ``access`` limited, the chunks of a granted label that has a label index
        (:mod:`~assay.store.postgres.label_indexes`) are searched in that label's own
        graph, and the rest of the readable chunks as follows; the lists are merged. A
        caller who may read at most :data:`EXACT_UP_TO` of them (the label sets' chunk
        counts tell) gets the exact nearest: at that selectivity a filtered graph walk
        visits hundreds of rows for every one that passes, and misses some. Otherwise
        the label filter is a condition of the index scan: pgvector's iterative scan walks
        on through the graph, in relaxed order (sorted after), until ``k`` rows pass it
        (``hnsw.iterative_scan``), and where the graph runs out first the readable rows
        are compared exactly. Every filtered statement is planned for the label sets it
        is given (:data:`CUSTOM_PLANS`)."""
        dims = self._dimensions()
        if dims is None or k <= 0:
            return []
        literal = vector_literal(query_vector(vector, dims))
        with self._db.unit_of_work():
            self._db.execute(f"SET LOCAL hnsw.ef_search = {max(self._index.ef_search, int(k))}")
            readable = readable_sets(self._db, access)
            if readable is None:
                rows = self._db.execute(DENSE_SEARCH, (literal, literal, int(k))).fetchall()
                return [Hit(r["id"], float(r["score"])) for r in rows]
            self._db.execute(CUSTOM_PLANS)
            indexed = usable(label_indexes(self._db), access, readable)
            params = (literal, literal, int(k))
            found = [
                self._db.execute(DENSE_SEARCH_LABEL.format(covers=ix.predicate), params).fetchall()
                for ix in indexed
            ]
            covered = {s for ix in indexed for s in ix.sets}
            rest = [s for s in readable if s not in covered]
            found.append(self._readable_nearest(literal, rest, int(k)))
        best: dict[str, float] = {}
        for row in (r for rows in found for r in rows):  # a label set two indexes cover
            best[row["id"]] = max(best.get(row["id"], -2.0), float(row["score"]))
        ranked = sorted(best.items(), key=lambda item: -item[1])[: int(k)]
        return [Hit(chunk_id, score) for chunk_id, score in ranked]

    def _readable_nearest(self, literal: str, readable: list[int], k: int) -> list[Any]:
        """The nearest ``k`` chunks of these label sets, exactly for a sliver, else by
        the filtered walk (exactly where the graph runs out first)."""
        size = chunks_in(self._db, readable)
        if size == 0:
            return []
        params = (literal, readable, literal, k)
        if size <= EXACT_UP_TO:  # a sliver: compare them all
            return self._db.execute(EXACT_SEARCH_READABLE, params).fetchall()
        self._db.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        self._db.execute(f"SET LOCAL hnsw.max_scan_tuples = {SCAN_TUPLES}")
        rows = self._db.execute(DENSE_SEARCH_READABLE, params).fetchall()
        if len(rows) < k:  # the graph ran out before k readable rows: read them all
            rows = self._db.execute(EXACT_SEARCH_READABLE, params).fetchall()
        return rows

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids in the order given; an unknown id is an error."""
        rows = self._rows(CHUNK_COLUMNS, ids)
        return [chunk(rows[i]) for i in ids]

    def vectors(self, ids: Sequence[str]) -> Vectors:
        """The stored vectors of these chunks, in the order given."""
        if not ids:
            return np.zeros((0, 0), dtype=np.float32)
        rows = self._rows("id, embedding::text AS embedding", ids)
        return np.stack([literal_vector(rows[i]["embedding"]) for i in ids])

    def stats(self) -> StoreStats:
        """Document and chunk counts, and the embedder the vectors came from."""
        row = self._db.execute(
            "SELECT (SELECT COUNT(*) FROM kb_documents) AS documents,"
            " (SELECT COUNT(*) FROM kb_chunks) AS chunks"
        ).fetchone()
        assert row is not None
        return StoreStats(
            documents=int(row["documents"]), chunks=int(row["chunks"]), embedder=self.embedder()
        )

    def embedder(self) -> str | None:
        """The embedder this knowledge base was built with; None while it is empty."""
        return self._meta("embedder")

    # -- internals ---------------------------------------------------------------
    def _rows(self, columns: str, ids: Sequence[str]) -> dict[str, Any]:
        if not ids:
            return {}
        found = self._db.execute(f"SELECT {columns} FROM kb_chunks WHERE id = ANY(?)", (list(ids),))
        return require_all(ids, {r["id"]: r for r in found})

    def _dimensions(self) -> int | None:
        value = self._meta("dimensions")
        return None if value is None else int(value)

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM kb_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row["value"])

    def _check_embedder(self, name: str, dimensions: int) -> None:
        bound = self._meta("embedder")
        if bound is None:
            self.bind(name, int(dimensions))
        elif bound != name:
            raise embedder_mismatch(bound, name)

    def bind(self, name: str, dimensions: int) -> None:
        """Fix the embedder, the vector dimension and the HNSW index: done by the first
        document written, or by a copy once its rows are in."""
        index = self._index
        self._db.execute("INSERT INTO kb_meta VALUES ('embedder', ?)", (name,))
        self._db.execute("INSERT INTO kb_meta VALUES ('dimensions', ?)", (str(dimensions),))
        self._db.execute(f"ALTER TABLE kb_chunks ALTER COLUMN embedding TYPE vector({dimensions})")
        self._db.execute(
            "CREATE INDEX kb_chunks_embedding ON kb_chunks USING hnsw (embedding vector_cosine_ops)"
            f" WITH (m = {int(index.m)}, ef_construction = {int(index.ef_construction)})"
        )


# ORDER BY the distance alone: any further sort key keeps the planner off the HNSW index.
DENSE_SEARCH = (
    "SELECT id, 1 - (embedding <=> ?::vector) AS score FROM kb_chunks"
    " ORDER BY embedding <=> ?::vector LIMIT ?"
)


# The same, among the rows of the readable label sets: a filter of the index scan, in
# the graph's relaxed order (no heap read to re-sort each visited row), sorted after.
DENSE_SEARCH_READABLE = (
    "WITH found AS MATERIALIZED (SELECT id, embedding <=> ?::vector AS distance"
    " FROM kb_chunks WHERE access_set = ANY(?) ORDER BY embedding <=> ?::vector LIMIT ?)"
    " SELECT id, 1 - distance AS score FROM found ORDER BY distance"
)
# The same in one label's own graph (a label index): the statement repeats the index's
# predicate verbatim, so that the planner walks that partial index with no filter left.
DENSE_SEARCH_LABEL = (
    "WITH found AS MATERIALIZED (SELECT id, embedding <=> ?::vector AS distance"
    " FROM kb_chunks WHERE {covers} ORDER BY embedding <=> ?::vector LIMIT ?)"
    " SELECT id, 1 - distance AS score FROM found ORDER BY distance"
)
# Exact: ordering by an expression the HNSW index cannot serve makes the planner find
# the readable rows through the label index and compare every one of them.
EXACT_SEARCH_READABLE = (
    "SELECT id, 1 - (embedding <=> ?::vector) AS score FROM kb_chunks"
    " WHERE access_set = ANY(?) ORDER BY (embedding <=> ?::vector) + 0, seq LIMIT ?"
)
#: how many index entries an iterative scan may visit before the exact search takes over
SCAN_TUPLES = 40_000
# Plan each filtered statement for the label sets it is given: a prepared statement's
# generic plan guesses the filter's selectivity and may scan the whole table for a sliver.
CUSTOM_PLANS = "SET LOCAL plan_cache_mode = force_custom_plan"
#: a caller who may read at most this many chunks is searched exactly
EXACT_UP_TO = 20_000
# Every chunk of the readable label sets (lexical search's check for a small grant).
READABLE_ALL = "SELECT array_agg(seq) AS seqs FROM kb_chunks WHERE access_set = ANY(?)"
# Which of these seqs are in the readable label sets (lexical search's check).
READABLE_SEQS = "SELECT seq FROM kb_chunks WHERE seq = ANY(?) AND access_set = ANY(?)"


def sorted_holds(every: np.ndarray, seqs: np.ndarray) -> np.ndarray:
    """Which of ``seqs`` the ascending array ``every`` holds (a binary search each:
    ``np.isin`` hashes all of ``every`` on every call)."""
    if not len(every):
        return np.zeros(len(seqs), dtype=bool)
    at = np.minimum(np.searchsorted(every, seqs), len(every) - 1)
    return np.asarray(every[at] == seqs)


def vector_literal(vector: Any) -> str:
    """A vector as pgvector's text form, ``[x1,x2,...]`` (float32 values, exactly)."""
    values = np.asarray(vector, dtype=np.float32).reshape(-1)
    return "[" + ",".join(repr(float(x)) for x in values) + "]"


def literal_vector(text: str) -> Vectors:
    """pgvector's text form back as a float32 array."""
    return np.asarray(json.loads(text), dtype=np.float32)
