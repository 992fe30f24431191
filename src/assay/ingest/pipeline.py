"""Ingestion runs: files -> documents -> chunks -> vectors -> store.

Each file is read, chunked and embedded first and written last, all its documents in
one transaction: a file either lands whole or not at all. Documents the file no longer
holds (records removed from a JSONL file) are dropped in the same transaction. The
chunks of many records and of consecutive small files are embedded together, in
batches sorted by length (the model's fastest way). A bad
file (unreadable, malformed, naming an unknown source) is reported with its own error
and the run goes on with the next. A document whose content, dates and embedder are
unchanged since the last run is left alone, so re-ingesting is idempotent and cheap.
Chunks are measured with the embedder's own tokenizer when it has one, so that no chunk
is cut off by the model's input limit.

Dates: what the file itself states (front matter, HTML meta, record fields) wins; the
run's ``published`` / ``verified`` arguments fill what it leaves open; the file's
modification time is used only when asked for (``file_dates``), since copying a file
changes it. The source: a record's or front matter's ``source_id``, else the run's. The
run's source (or, run again without one, the source the file was first ingested under)
is a ceiling, and a file without one fails: a file may name only a source that gains
it nothing over the ceiling (:mod:`assay.ingest.ceiling`; a forum post cannot declare
itself official documentation, nor another owner's confirmation).
"""

from __future__ import annotations

import functools
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np

from assay.access import EVERYTHING, Access
from assay.documents import Chunk, LoadedDocument, document_id
from assay.errors import UNSET, AssayError, InvalidInputError
from assay.ingest.ceiling import trust_gained
from assay.ingest.chunking import approximate_tokens, chunk_document
from assay.ingest.deadline import FileDeadline
from assay.ingest.loaders import iter_files, load_file
from assay.ingest.textutil import bad_file, file_uri, safe_text, shown
from assay.models.embedder import Embedder, Vectors
from assay.models.encodings import EncodingCache, embed_through_cache
from assay.policy import Policy
from assay.sources import SourceRegistry
from assay.store.base import DocumentBatch, Store, StoredDocument
from assay.text import titled

FileStatus = Literal["added", "updated", "unchanged", "duplicate", "failed"]


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What happened to one file."""

    path: str
    status: FileStatus
    documents: int = 0
    chunks: int = 0
    removed: int = 0
    error: str | None = None
    #: documents left out because their source already holds the same text elsewhere
    duplicates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class IngestReport:
    """The outcome of a run, file by file."""

    files: list[FileOutcome] = field(default_factory=list)

    def count(self, status: FileStatus) -> int:
        """How many files ended with ``status``."""
        return sum(1 for f in self.files if f.status == status)

    @property
    def chunks(self) -> int:
        """Chunks written in this run."""
        return sum(f.chunks for f in self.files if f.status in ("added", "updated"))

    def summary(self) -> str:
        """One line for people."""
        duplicate = self.count("duplicate")
        return (
            f"{_many(len(self.files), 'file')}: {self.count('added')} added, "
            f"{self.count('updated')} updated, {self.count('unchanged')} unchanged, "
            + (f"{duplicate} duplicate, " if duplicate else "")
            + f"{self.count('failed')} failed; {_many(self.chunks, 'chunk')} written"
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "summary": self.summary(),
            "files": [
                {
                    "path": f.path,
                    "status": f.status,
                    "documents": f.documents,
                    "chunks": f.chunks,
                    "error": f.error,
                    "duplicates": list(f.duplicates),
                }
                for f in self.files
            ],
        }


@dataclass(frozen=True, slots=True)
class IngestOptions:
    """How a run reads its files."""

    source_id: str | None = None
    published: date | None = None
    verified: date | None = None
    file_dates: bool = False
    max_tokens: int = 180
    overlap_tokens: int = 30
    #: the name documents are recorded under instead of the file's path, for a run of
    #: one file whose path means nothing to readers (an upload: ``upload://<source>/<name>``)
    uri: str | None = None
    #: a file larger than this fails unread (``None``: no limit; settings give the default)
    max_file_bytes: int | None = None
    #: a file still being read, chunked or embedded after this many seconds fails
    max_file_seconds: float | None = None
    #: the access labels of documents whose file states none (``None``: keep the labels
    #: a document was stored with; none stored: readable by every key)
    access: frozenset[str] | None = None
    #: a document that ends up without labels fails its file (``access_labels_required``)
    access_required: bool = False
    #: what the caller may read: a file that would replace a document stored under labels
    #: it does not hold fails (a curator cannot overwrite what it cannot see)
    writer: Access = EVERYTHING


def ingest(
    paths: Iterable[Path],
    *,
    store: Store,
    embedder: Embedder,
    registry: SourceRegistry,
    options: IngestOptions,
    on_file: Callable[[FileOutcome], None] | None = None,
    encodings: EncodingCache | None = None,
    policies: Sequence[Policy] = (),
    relabelled: Relabelled | None = None,
) -> IngestReport:
    """Ingest every supported file under ``paths``; see the module docstring.

    With ``encodings`` (and an embedder that has token states), each chunk's token
    states are kept there as it is embedded: the relevance model reads them again for
    every question that retrieves the chunk. ``policies``: those a file's claimed source
    is compared under (:mod:`assay.ingest.ceiling`). ``relabelled``: where a stored
    document's access labels change, how the change is recorded (the engine audits it),
    and the transaction that writes the file and the record together.
    """
    if options.source_id is not None:
        registry.get(options.source_id)  # an unknown --source fails the run at once
    files = iter_files(paths)
    if options.uri is not None and len(files) != 1:
        raise InvalidInputError(
            "uri", options.uri, "name one file per run when recording it under a uri"
        )
    embedding = _Embedding(embedder, encodings)
    outcomes: list[FileOutcome] = []
    group: list[_Prepared] = []

    def report(outcome: FileOutcome) -> None:
        outcomes.append(outcome)
        if on_file is not None:
            on_file(outcome)

    def write_group() -> None:
        for outcome in _write(group, store, embedding, relabelled):
            report(outcome)
        group.clear()

    # small files are embedded together (the model is fastest on full, sorted batches)
    # and still written one transaction per file, in order
    for path in files:
        prepared = _prepare(path, store, embedder, registry, options, policies)
        if isinstance(prepared, FileOutcome):
            write_group()
            report(prepared)
            continue
        group.append(prepared)
        if sum(p.chunks for p in group) >= _EMBED_BATCH:
            write_group()
    write_group()
    if any(o.status in ("added", "updated") for o in outcomes):
        store.prepare_search()  # the first question after a large load does not wait
    return IngestReport(outcomes)


@dataclass(slots=True)
class _Prepared:
    """A file read and chunked, waiting for its vectors and its transaction."""

    path: Path
    file: str  #: the uri its documents share up to '#'
    documents: int
    pending: list[tuple[StoredDocument, list[Chunk]]]  #: new or changed documents
    unchanged: list[str]
    replaced: int
    deadline: FileDeadline
    shown_as: str | None = None  #: the uri an upload is recorded under, for its errors
    duplicates: tuple[str, ...] = ()  #: documents whose text the source already holds
    #: stored documents whose access labels this run changes: (as stored, as written)
    relabels: tuple[tuple[StoredDocument, StoredDocument], ...] = ()

    @property
    def chunks(self) -> int:
        return sum(len(chunks) for _, chunks in self.pending)


def _prepare(
    path: Path,
    store: Store,
    embedder: Embedder,
    registry: SourceRegistry,
    options: IngestOptions,
    policies: Sequence[Policy],
) -> _Prepared | FileOutcome:
    """Read and chunk ``path`` (its documents that changed); a failure is its outcome."""
    deadline = FileDeadline(path, options.max_file_seconds)
    count_tokens = deadline.guarding(getattr(embedder, "count_tokens", approximate_tokens))
    try:
        _check_regular_file(path, options.max_file_bytes)
        documents = deadline.run("reading", lambda: load_file(path))
        if options.uri is not None:  # '<file>#<record>' becomes '<uri>#<record>'
            local = file_uri(path)
            documents = [replace(d, uri=options.uri + d.uri[len(local) :]) for d in documents]
        pending: list[tuple[StoredDocument, list[Chunk]]] = []
        unchanged: list[str] = []
        duplicates: list[str] = []
        relabels: list[tuple[StoredDocument, StoredDocument]] = []
        replaced = 0
        known = _known_sources(store, documents, options)
        for doc in documents:
            doc, source_id = _resolve(doc, path, registry, options, known, policies)
            before = store.document(document_id(source_id, doc.uri))
            if before is not None and not options.writer.may_read(before.access):
                raise InvalidInputError(
                    doc.uri, UNSET,
                    "store it under another name, or ask a curator granted its labels",
                    problem="names a stored document this key may not change",
                )  # fmt: skip
            access = _access(doc, options, before)
            stored = StoredDocument(
                id=document_id(source_id, doc.uri),
                source_id=source_id,
                uri=doc.uri,
                title=doc.title,
                content_hash=doc.content_hash,
                published=doc.published,
                verified=doc.verified,
                chunk_count=0,
                embedder=embedder.name,
                access=access,
            )
            if before and (before.content_hash, before.embedder, before.access) == (
                stored.content_hash,
                stored.embedder,
                stored.access,
            ):
                unchanged.append(stored.id)
                continue
            twin = _twin(store, stored, pending)
            if twin is not None:  # the same text twice would count as two passages
                duplicates.append(f"{doc.uri} holds the same text as {twin} ({source_id})")
                continue
            replaced += before is not None
            if before is not None and before.access != stored.access:
                relabels.append((before, stored))
            chunks = deadline.run(
                "chunking",
                functools.partial(
                    chunk_document,
                    doc,
                    source_id=source_id,
                    max_tokens=options.max_tokens,
                    overlap_tokens=options.overlap_tokens,
                    count_tokens=count_tokens,
                ),
            )
            pending.append((replace(stored, chunk_count=len(chunks)), chunks))
    except Exception as exc:  # any failure fails this file alone
        return _failed(path, exc, options.uri)
    # a document's file is its uri up to '#' (JSONL records are '<file>#<id>')
    file = documents[0].uri.partition("#")[0]
    return _Prepared(
        path, file, len(documents), pending, unchanged, replaced, deadline, options.uri,
        tuple(duplicates), tuple(relabels),
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Relabelled:
    """How a run records that a stored document's access labels changed: ``record`` is
    called with the document as stored and as written, inside ``transaction`` beside the
    file's own write, so that the labels and their record land together."""

    record: Callable[[StoredDocument, StoredDocument], None]
    transaction: Callable[[], AbstractContextManager[object]]


def _write(
    group: list[_Prepared], store: Store, embedding: _Embedding, relabelled: Relabelled | None
) -> list[FileOutcome]:
    """Embed the chunks of ``group`` in one run, then write each file in its own
    transaction. A file alone is embedded under its own deadline, slice by slice."""
    if not group:
        return []
    texts = [embedding_text(c) for p in group for _, chunks in p.pending for c in chunks]
    deadline = group[0].deadline if len(group) == 1 else FileDeadline(group[0].path, None)
    try:
        vectors = embedding.vectors(texts, deadline)
    except Exception as exc:
        return [_failed(p.path, exc, p.shown_as) for p in group]
    outcomes, start = [], 0
    for p in group:
        mine, start = vectors[start : start + p.chunks], start + p.chunks
        try:
            p.deadline.check("embedding")
            batch: list[DocumentBatch] = []
            at = 0
            for stored, chunks in p.pending:
                batch.append((stored, chunks, mine[at : at + len(chunks)]))
                at += len(chunks)
            if relabelled is None or not p.relabels:
                dropped = store.sync_file(p.file, batch, p.unchanged)
            else:
                with relabelled.transaction():
                    dropped = store.sync_file(p.file, batch, p.unchanged)
                    for before, after in p.relabels:
                        relabelled.record(before, after)
        except Exception as exc:
            outcomes.append(_failed(p.path, exc, p.shown_as))
            continue
        if not batch and not dropped:
            kept_out = p.duplicates and not p.unchanged
            outcomes.append(
                FileOutcome(
                    shown(p.path), "duplicate" if kept_out else "unchanged",
                    documents=p.documents, duplicates=p.duplicates,
                )
            )  # fmt: skip
            continue
        status: FileStatus = "updated" if p.replaced or dropped else "added"
        outcomes.append(
            FileOutcome(
                shown(p.path), status, documents=len(batch), chunks=p.chunks, removed=dropped,
                duplicates=p.duplicates,
            )
        )  # fmt: skip
    return outcomes


def _twin(
    store: Store, document: StoredDocument, pending: list[tuple[StoredDocument, list[Chunk]]]
) -> str | None:
    """The uri of another document of the same source with the same text, stored or
    read earlier in this file (a file ingested from two paths, or uploaded too)."""
    for other, _ in pending:
        if (other.source_id, other.content_hash) == (document.source_id, document.content_hash):
            return other.uri
    for other in store.same_content(document.source_id, document.content_hash):
        if other.id != document.id:
            return other.uri
    return None


def _access(
    doc: LoadedDocument, options: IngestOptions, before: StoredDocument | None
) -> tuple[str, ...]:
    """A document's labels: the file's own, else the run's, else those it was stored with
    (re-ingesting a folder without ``--access`` never opens a relabelled document)."""
    labels = doc.access if doc.access is not None else options.access
    if labels is None:
        labels = frozenset(before.access) if before is not None else frozenset()
    if options.access_required and not labels:
        raise InvalidInputError(
            f"{doc.uri}: access", UNSET,
            "give it labels with --access LABEL or `access:` in its front matter or record "
            "(the settings require labels: access_labels_required)",
            problem="is missing",
        )  # fmt: skip
    return tuple(sorted(labels))


def _many(count: int, noun: str) -> str:
    """``1 file``, ``2 files``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _failed(path: Path, exc: Exception, shown_as: str | None = None) -> FileOutcome:
    """The outcome of a file that failed: an assay error says itself, another is named.

    ``shown_as`` (the uri an upload is recorded under) names the file instead of its
    path, which is the server's business: an error about the file is rebuilt around it
    (its message cuts a long path short, so a later search and replace would miss it).
    """
    name = shown_as or shown(path)
    if shown_as and isinstance(exc, InvalidInputError) and exc.value == str(path):
        exc = InvalidInputError(exc.field, shown_as, exc.fix, problem=exc.problem)
    error = str(exc) if isinstance(exc, AssayError) else f"{name}: {type(exc).__name__}: {exc}"
    if shown_as:
        error = error.replace(str(path), shown_as)
    return FileOutcome(name, "failed", error=error)


_EMBED_BATCH = 256


class _Embedding:
    """Embeds chunk texts, keeping their token states in ``encodings`` when it can."""

    def __init__(self, embedder: Embedder, encodings: EncodingCache | None) -> None:
        self.embedder, self.encodings = embedder, encodings

    def vectors(self, texts: list[str], deadline: FileDeadline) -> Vectors:
        """Embed in slices of similar lengths (the model pads a batch to its longest
        text), checking the deadline between them; rows in the order of ``texts``."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        parts = []
        for start in range(0, len(texts), _EMBED_BATCH):
            part = [texts[i] for i in order[start : start + _EMBED_BATCH]]
            if self.encodings is not None:
                parts.append(embed_through_cache(self.embedder, part, self.encodings))
            else:
                parts.append(self.embedder.embed(part))
            deadline.check("embedding")
        if not parts:
            return self.embedder.embed([])
        vectors = np.empty_like(np.concatenate(parts))
        vectors[order] = np.concatenate(parts)
        return vectors


def _check_regular_file(path: Path, max_bytes: int | None) -> None:
    """Refuse what is not a regular file (a pipe would block forever) or is too large."""
    try:
        info = path.stat()
    except OSError as exc:
        raise bad_file(path, f"cannot be read ({exc.strerror})", "check its permissions") from exc
    if not stat.S_ISREG(info.st_mode):
        raise bad_file(path, "is not a regular file (a pipe, socket or device)", "give a file")
    if max_bytes is not None and info.st_size > max_bytes:
        raise bad_file(
            path,
            f"is {info.st_size:,} bytes, over the limit of {max_bytes:,}",
            "split it into smaller files, or raise the setting ingest_max_file_mb "
            "(ASSAY_INGEST_MAX_FILE_MB)",
        )


def embedding_text(chunk: Chunk) -> str:
    """What is embedded for a chunk: its title path, then its text."""
    return titled(chunk.title, chunk.text)


def _known_sources(
    store: Store, documents: Sequence[LoadedDocument], options: IngestOptions
) -> dict[str, str]:
    """The source each of these documents was ingested under before (by uri), when the
    run names none: ingesting a file again keeps the source it was first given. A new
    record of a known file takes the file's source if all its records share one."""
    if options.source_id is not None or not documents:
        return {}
    file = documents[0].uri.partition("#")[0]
    known = {d.uri: d.source_id for d in store.documents_in(file)}
    if len(set(known.values())) == 1:
        known[file] = next(iter(known.values()))
    return known


def _resolve(
    doc: LoadedDocument,
    path: Path,
    registry: SourceRegistry,
    options: IngestOptions,
    known: Mapping[str, str],
    policies: Sequence[Policy],
) -> tuple[LoadedDocument, str]:
    """The document with its dates filled in, and the source it is stored under: the
    one it names, if that gains nothing over its ceiling (:mod:`assay.ingest.ceiling`),
    the run's source or the one it was first ingested under."""
    ceiling_id = options.source_id or known.get(doc.uri) or known.get(doc.uri.partition("#")[0])
    if ceiling_id is None and doc.source_id is None:
        raise InvalidInputError(
            f"{doc.uri}: source", UNSET,
            "pass --source ID (an upload: its source field); files ingested before keep "
            "their source, a new one needs it named",
            problem="is not named: the file is new to the knowledge base",
        )  # fmt: skip
    if ceiling_id is None:
        raise InvalidInputError(
            f"{doc.uri}: source_id",
            doc.source_id,
            f"pass --source {doc.source_id} if that source published the file: the run names "
            "the most trusted source a file may claim",
            problem="is named by the file alone, and trust never comes from the file itself",
        )
    source_id = doc.source_id or ceiling_id
    gained = trust_gained(registry.get(source_id), registry.get(ceiling_id), policies)
    if gained is not None:
        raise InvalidInputError(
            f"{doc.uri}: source_id",
            source_id,
            f"ingest it with --source {source_id} if that source really published it, "
            "or remove source_id from the file",
            problem=f"{gained} ({ceiling_id!r}, the run's source or the one the file was "
            "first ingested under, is the most trusted it may claim)",
        )
    modified = (
        datetime.fromtimestamp(path.stat().st_mtime, UTC).date() if options.file_dates else None
    )
    return (
        replace(
            doc,
            title=doc.title or safe_text(path.stem).replace("_", " ").replace("-", " "),
            published=doc.published or options.published or modified,
            verified=doc.verified or options.verified,
        ),
        source_id,
    )
