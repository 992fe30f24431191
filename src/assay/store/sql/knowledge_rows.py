"""What both knowledge-base backends write and read alike: the check of a file's batch, a
document's row, its chunks' rows (a chunk repeated within a document stored once), and the
records read back. Each backend adds only how it stores and searches vectors and text."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from typing import Any

import numpy as np

from assay.access import Access
from assay.documents import Chunk
from assay.errors import InvalidInputError, NotFoundError
from assay.store.base import DocumentBatch, StoredDocument, Vectors
from assay.store.sql.session import Session

INSERT_DOCUMENT = (
    "INSERT INTO kb_documents (id, source_id, file, uri, title, content_hash, published,"
    " verified, chunk_count, embedder, ingested_at, access) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
)
INSERT_CHUNK = (
    "INSERT INTO kb_chunks (id, document_id, source_id, ordinal, text, title, location, uri,"
    " published, verified, metadata, access_set, embedding)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,{vector})"
)
CHUNK_COLUMNS = (
    "id, document_id, source_id, ordinal, text, title, location, uri, published, verified, metadata"
)


def check_batch(batch: Sequence[DocumentBatch]) -> None:
    """One vector per chunk in every document of the batch."""
    for document, chunks, vectors in batch:
        if len(chunks) != len(vectors):
            raise InvalidInputError(
                f"vectors of {document.uri}", len(vectors),
                f"give one vector per chunk ({len(chunks)})",
            )  # fmt: skip


def last_of_each(batch: Sequence[DocumentBatch]) -> list[DocumentBatch]:
    """The batch with a document given twice kept once, as given last (a file that
    repeats a record's id: the later record wins, as it would written one by one)."""
    return list({item[0].id: item for item in batch}.values())


def document_row(file: str, document: StoredDocument, chunk_count: int) -> tuple[Any, ...]:
    """The values of :data:`INSERT_DOCUMENT`, stamped with the time of ingestion."""
    return (
        document.id, document.source_id, file, document.uri, document.title,
        document.content_hash, iso(document.published), iso(document.verified), chunk_count,
        document.embedder, datetime.now(UTC).isoformat(timespec="seconds"),
        labels_json(document.access),
    )  # fmt: skip


def chunk_rows(
    document: StoredDocument,
    chunks: Sequence[Chunk],
    vectors: Vectors,
    stored_vector: Callable[[Any], Any],
    access_set: int = 0,
) -> list[tuple[Any, ...]]:
    """The values of :data:`INSERT_CHUNK` for each distinct chunk, its vector as the
    backend stores it (``stored_vector``), its labels as the id of their set."""
    rows, seen = [], set()
    for chunk, vector in zip(chunks, vectors, strict=True):
        if chunk.id in seen:
            continue
        seen.add(chunk.id)
        rows.append((
            chunk.id, document.id, chunk.source_id, chunk.ordinal, chunk.text, chunk.title,
            chunk.location, chunk.uri, iso(chunk.published), iso(chunk.verified),
            json.dumps(chunk.metadata, sort_keys=True), access_set, stored_vector(vector),
        ))  # fmt: skip
    return rows


def in_pages(ids: Sequence[str], size: int = 500) -> list[list[str]]:
    """``ids`` in lists short enough for one statement's parameters."""
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]


def require_all(ids: Sequence[str], rows: dict[str, Any]) -> dict[str, Any]:
    """``rows`` (by chunk id), after checking that every one of ``ids`` is among them."""
    missing = [i for i in ids if i not in rows]
    if missing:
        raise NotFoundError(f"chunk {missing[0]!r} is not in the knowledge base")
    return rows


def query_vector(vector: Vectors, dimensions: int) -> Vectors:
    """``vector`` as one float32 row, checked against the store's ``dimensions``."""
    query = np.asarray(vector, dtype=np.float32).reshape(-1)
    if query.shape[0] != dimensions:
        raise InvalidInputError(
            "query vector", f"{query.shape[0]} dimensions",
            f"use the store's embedder ({dimensions} dimensions)",
        )  # fmt: skip
    return query


def embedder_mismatch(bound: str, name: str) -> InvalidInputError:
    """The error for a write embedded by ``name`` into a knowledge base of ``bound``."""
    return InvalidInputError(
        "embedder", name,
        f"this knowledge base was embedded with {bound!r}: set ASSAY_EMBEDDER to the "
        "embedder that made it (minilm, hashing) or start a new database",
        problem="does not match the knowledge base",
    )  # fmt: skip


def stored_document(row: Any) -> StoredDocument:
    """A ``kb_documents`` row as the record."""
    return StoredDocument(
        id=row["id"], source_id=row["source_id"], uri=row["uri"], title=row["title"],
        content_hash=row["content_hash"], published=parse_date(row["published"]),
        verified=parse_date(row["verified"]), chunk_count=row["chunk_count"],
        embedder=row["embedder"], ingested_at=row["ingested_at"],
        access=tuple(json.loads(row["access"])),
    )  # fmt: skip


def chunk(row: Any) -> Chunk:
    """A ``kb_chunks`` row (its :data:`CHUNK_COLUMNS`) as the record."""
    return Chunk(
        id=row["id"], document_id=row["document_id"], source_id=row["source_id"],
        ordinal=row["ordinal"], text=row["text"], title=row["title"],
        location=row["location"], uri=row["uri"], published=parse_date(row["published"]),
        verified=parse_date(row["verified"]), metadata=json.loads(row["metadata"]),
    )  # fmt: skip


def iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


def parse_date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def documents_query(
    *,
    file: str | None = None,
    source_id: str | None = None,
    content_hash: str | None = None,
    limit: int | None = None,
) -> tuple[str, list[Any]]:
    """The ``kb_documents`` query (both backends) for a file's documents, a source's (of
    one content hash), or all of them, by uri, at most ``limit``."""
    filters = (("file = ?", file), ("source_id = ?", source_id), ("content_hash = ?", content_hash))
    clauses = [(c, v) for c, v in filters if v]
    sql = "SELECT * FROM kb_documents"
    if clauses:
        sql += " WHERE " + " AND ".join(c for c, _ in clauses)
    sql += " ORDER BY uri" + ("" if limit is None else f" LIMIT {int(limit)}")
    return sql, [v for _, v in clauses]


# -- access labels (:mod:`assay.access`) ----------------------------------------------------
# A document's labels are stored on its row as a sorted JSON list; each chunk stores the
# id of its document's label set in ``kb_access_sets`` (0: no labels), so that a search
# filters on a small integer and a caller's grants become a short list of set ids.


def labels_json(labels: Sequence[str] | frozenset[str]) -> str:
    """Labels as stored: a sorted JSON list (``[]``: readable by every key)."""
    return json.dumps(sorted(labels))


def access_set_id(db: Session, labels: Sequence[str] | frozenset[str]) -> int:
    """The id of this label set (added on first use), inside the caller's transaction."""
    if not labels:
        return 0
    text = labels_json(labels)
    db.execute(
        "INSERT INTO kb_access_sets (labels) VALUES (?) ON CONFLICT (labels) DO NOTHING", (text,)
    )
    row = db.execute("SELECT id FROM kb_access_sets WHERE labels = ?", (text,)).fetchone()
    assert row is not None
    return int(row["id"])


def readable_sets(db: Session, access: Access | None) -> list[int] | None:
    """The label sets ``access`` may read (0 among them: unlabelled chunks), or ``None``
    when it may read every chunk stored (no filter needed)."""
    if access is None or access.everything:
        return None
    rows = db.execute("SELECT id, labels FROM kb_access_sets").fetchall()
    allowed = [int(r["id"]) for r in rows if access.may_read(json.loads(r["labels"]))]
    return None if len(allowed) == len(rows) else [0, *allowed]


def relabel_rows(db: Session, document_id: str, labels: Sequence[str] | frozenset[str]) -> bool:
    """Give a stored document and its chunks new labels; False if it is not stored."""
    found = db.execute(
        "UPDATE kb_documents SET access = ? WHERE id = ?", (labels_json(labels), document_id)
    )
    if not found.rowcount:
        return False
    db.execute(
        "UPDATE kb_chunks SET access_set = ? WHERE document_id = ?",
        (access_set_id(db, labels), document_id),
    )
    return True
