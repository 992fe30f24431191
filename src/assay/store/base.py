"""The store interface: everything retrieval needs, nothing about SQL.

The embedded SQLite store (:mod:`assay.store.sqlite.knowledge`) and the PostgreSQL +
pgvector store (:mod:`assay.store.postgres.knowledge`) implement the same methods, so
retrieval, ingestion and the pipeline never change with the backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Protocol, TypeAlias

from assay.documents import Chunk

if TYPE_CHECKING:
    # numpy loads with the stores, not with this interface
    import numpy as np
    from numpy.typing import NDArray

    from assay.access import Access

Vectors: TypeAlias = "NDArray[np.float32]"
DocumentBatch = tuple["StoredDocument", Sequence[Chunk], Vectors]


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a chunk id and its score (higher is better)."""

    chunk_id: str
    score: float


@dataclass(frozen=True, slots=True)
class StoredDocument:
    """What the store remembers about an ingested document."""

    id: str
    source_id: str
    uri: str
    title: str | None
    content_hash: str
    published: date | None
    verified: date | None
    chunk_count: int
    embedder: str
    ingested_at: str = ""
    #: the access labels a caller needs one of (:mod:`assay.access`); empty: any caller
    access: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """The document as JSON output gives it (dates as ISO strings)."""
        return {
            "id": self.id, "source_id": self.source_id, "uri": self.uri, "title": self.title,
            "published": self.published and self.published.isoformat(),
            "verified": self.verified and self.verified.isoformat(),
            "chunks": self.chunk_count, "ingested_at": self.ingested_at,
            "embedder": self.embedder, "content_hash": self.content_hash,
            "access": list(self.access),
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class VectorIndexOptions:
    """Parameters of an approximate (HNSW) vector index, where the backend has one:
    graph degree ``m``, and the candidate lists kept while building and searching."""

    m: int = 16
    ef_construction: int = 64
    ef_search: int = 200


@dataclass(frozen=True, slots=True)
class StoreStats:
    """Counts and the embedder the store's vectors came from."""

    documents: int
    chunks: int
    embedder: str | None


class Store(Protocol):
    """A knowledge base: chunks with text, vectors and a lexical index."""

    def sync_file(self, file: str, batch: Sequence[DocumentBatch], keep: Sequence[str] = ()) -> int:
        """Write a file's new and changed documents, drop those it no longer holds, atomically.

        ``keep`` names the file's unchanged documents; returns how many were dropped.
        """
        ...

    def delete_document(self, document_id: str) -> bool:
        """Remove a document and its chunks; False if there was none."""
        ...

    def prepare_search(self) -> None:
        """Bring what searches read up to date with the writes so far (SQLite: the
        vector matrix file), so that the next search pays nothing for them; ingestion
        calls it once after its writes."""
        ...

    def snapshot(self) -> AbstractContextManager[None]:
        """A consistent view for several reads while other processes may write."""
        ...

    def document(self, document_id: str) -> StoredDocument | None:
        """The stored document with this id, if any."""
        ...

    def documents_in(self, file: str) -> list[StoredDocument]:
        """The stored documents ingested from ``file`` (a file's uri, without ``#record``)."""
        ...

    def same_content(self, source_id: str, content_hash: str) -> list[StoredDocument]:
        """The stored documents of ``source_id`` with this content hash (the same text
        under another uri)."""
        ...

    def list_documents(
        self, *, source_id: str | None = None, limit: int | None = None
    ) -> list[StoredDocument]:
        """Stored documents by uri (``source_id``: that source's only; at most ``limit``)."""
        ...

    def relabel(self, document_id: str, labels: frozenset[str]) -> bool:
        """Give a stored document (and its chunks) these access labels; False if there
        is no such document."""
        ...

    def lexical_search(self, query: str, k: int, access: Access | None = None) -> list[Hit]:
        """The ``k`` best chunks by BM25 over their text and title, among those ``access``
        may read (``None``: all)."""
        ...

    def dense_search(self, vector: Vectors, k: int, access: Access | None = None) -> list[Hit]:
        """The ``k`` chunks whose vectors have the highest cosine with ``vector`` (exactly
        on SQLite; through an approximate index on PostgreSQL), among those ``access`` may
        read (``None``: all): the filter runs inside the search, so a caller with few
        grants still gets ``k`` chunks when they hold that many."""
        ...

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids, in the order given."""
        ...

    def vectors(self, ids: Sequence[str]) -> Vectors:
        """The stored vectors of these chunks, one row each, in the order given."""
        ...

    def embedder(self) -> str | None:
        """The embedder the stored vectors came from; None while the store is empty."""
        ...

    def stats(self) -> StoreStats:
        """How much the store holds, and which embedder made its vectors."""
        ...
