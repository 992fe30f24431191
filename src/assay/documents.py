"""What ingestion produces: documents read from files, split into blocks, packed into chunks.

A loader turns one file into :class:`LoadedDocument` objects (one per file, or one per
record of a ``.jsonl`` file). Each document is a sequence of :class:`Block` -- a
heading or a paragraph, with the headings above it and the page it sits on -- so the
chunker can follow the document's structure. The chunker packs blocks into
:class:`Chunk` objects, the unit the store indexes and retrieval returns.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

BlockKind = Literal["heading", "paragraph"]


@dataclass(frozen=True, slots=True)
class Block:
    """One structural unit of a document, in reading order.

    ``headings`` are the titles of the sections that contain the block, outermost
    first (for a heading block: the headings above it, not itself). ``page`` is the
    1-based page of a PDF, else ``None``; ``line`` the 1-based line where the block
    starts in a text file, else ``None``.
    """

    kind: BlockKind
    text: str
    headings: tuple[str, ...] = ()
    page: int | None = None
    line: int | None = None


@dataclass(frozen=True, slots=True)
class LoadedDocument:
    """A document as read from a file, before chunking.

    ``uri`` identifies it within its source (the file path, plus ``#<record id>`` for
    a JSONL record). Dates and ``source_id`` come from the file itself (front matter,
    HTML meta tags, record fields) when it states them; the ingest command's
    arguments fill what the file leaves open.
    """

    uri: str
    blocks: tuple[Block, ...]
    title: str | None = None
    published: date | None = None
    verified: date | None = None
    source_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    #: the access labels the file states (front matter or record ``access``); ``None``:
    #: it states none, and the run's labels (or those stored before) apply
    access: frozenset[str] | None = None

    @property
    def text(self) -> str:
        """The whole document as plain text, blocks separated by blank lines."""
        return "\n\n".join(b.text for b in self.blocks)

    @property
    def content_hash(self) -> str:
        """sha256 of everything that ends up in the store: re-ingest is a no-op when equal."""
        h = hashlib.sha256()
        for part in (
            self.title or "",
            self.text,
            str(self.published),
            str(self.verified),
            repr(sorted(self.metadata.items())),
        ):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        return h.hexdigest()


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of a document: what is indexed, retrieved, scored and cited.

    ``id`` is a content hash of the document key and the text (:func:`chunk_id`), so
    ingesting the same document twice yields the same ids. ``location`` says where
    in the document the passage is, for people ("Charging > Limits, paragraphs 2-3",
    "page 4").
    """

    id: str
    document_id: str
    source_id: str
    ordinal: int
    text: str
    title: str | None
    location: str
    uri: str
    published: date | None = None
    verified: date | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def document_id(source_id: str, uri: str) -> str:
    """Stable id of a document: the same source and uri always name the same document."""
    return hashlib.sha256(f"{source_id}\n{uri}".encode()).hexdigest()[:24]


def chunk_id(doc_id: str, text: str) -> str:
    """Content hash of a chunk within its document."""
    return hashlib.sha256(f"{doc_id}\n{text}".encode()).hexdigest()[:24]
