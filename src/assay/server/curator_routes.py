"""The curator's endpoints: upload documents (``/v1/ingest``) and manage the source
registry (``/v1/sources``), as ``assay ingest`` and ``assay sources`` do."""

from __future__ import annotations

import contextlib
import re
import time
import uuid
from dataclasses import asdict, replace
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from pydantic import BaseModel, ConfigDict, Field

from assay.access import parse_labels
from assay.audit.log import MAX_LIST
from assay.errors import InvalidInputError
from assay.hashing import sha256_hex
from assay.ingest.loaders import SUPPORTED_SUFFIXES
from assay.ingest.pipeline import IngestOptions
from assay.keys import Role
from assay.server.access import acting_engine, require
from assay.server.ingest_worker import IngestWorker
from assay.sources import Source, changed_fields, successors

router = APIRouter(
    prefix="/v1", tags=["knowledge base"], dependencies=[Depends(require(Role.CURATOR))]
)

_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._ -]{0,150}")


@router.post("/ingest", summary="Upload documents into the knowledge base")
async def ingest(
    request: Request,
    files: Annotated[list[UploadFile], File(description="Documents: .txt .md .html .pdf .jsonl")],
    source: Annotated[str | None, Form(description="Registered source of the files.")] = None,
    published: Annotated[date | None, Form()] = None,
    verified: Annotated[date | None, Form()] = None,
    max_tokens: Annotated[int, Form(ge=16, le=256)] = 180,
    overlap: Annotated[int, Form(ge=0, le=120)] = 30,
    access: Annotated[
        list[str] | None,
        Form(description="Access labels of documents whose file states none (repeatable)."),
    ] = None,
) -> dict[str, Any]:
    """Each file lands whole or not at all; the report says what happened to each.

    Uploads are kept in a folder per source under ``uploads/`` beside the database (the
    ``uploads_dir`` setting; with PostgreSQL and several machines, a shared folder) and
    recorded as ``upload://<source>/<name>``, so uploading a file of the same name again
    updates its documents instead of adding copies, and no server path reaches readers.
    Files are ingested one at a time by the server's ingestion process
    (:mod:`assay.server.ingest_worker`), so an upload never holds up scoring.
    """
    engine = acting_engine(request)
    if source is not None:
        engine.sources.get(source)  # an unknown source fails before anything is written
    folder = _upload_folder(engine.settings.uploads_root, source)
    names = [_checked_name(f.filename) for f in files]
    if len(set(names)) != len(names):
        raise InvalidInputError("files", names, "upload each file name once per request")
    folder.mkdir(parents=True, exist_ok=True)
    _sweep_staged(folder, older_than=2 * engine.settings.ingest_max_file_seconds)
    options = IngestOptions(
        source_id=source,
        published=published,
        verified=verified,
        max_tokens=max_tokens,
        overlap_tokens=overlap,
        access=parse_labels(access) if access else None,
        writer=engine.access,  # the ingestion process acts as the database's owner
    )
    outcomes = []
    for upload, name in zip(files, names, strict=True):
        # ingested from a temporary copy, which replaces the kept file only once its
        # documents are stored: a failure of any kind leaves the previous version
        # (the one the store holds) in place and no partial file behind
        staged = folder / f"{_STAGED_PREFIX}{uuid.uuid4().hex}.{name}"
        try:
            await anyio.to_thread.run_sync(_stage, upload, staged)
            uri = f"upload://{source or ''}/{name}"
            worker: IngestWorker = request.app.state.ingest_worker
            report = await worker.ingest(staged, replace(options, uri=uri))
            outcome = report["files"][0] | {"path": name}
            if outcome["status"] != "failed":
                staged.replace(folder / name)
        finally:
            staged.unlink(missing_ok=True)
        outcomes.append(outcome)
    failed = sum(1 for o in outcomes if o["status"] == "failed")
    return {"files": outcomes, "failed": failed, "ok": failed == 0}


_STAGED_PREFIX = ".staged-"


def _sweep_staged(folder: Path, *, older_than: float) -> None:
    """Remove staging files left by a server killed mid-upload (``kill -9`` skips the
    ``finally`` that removes them): those older than twice the longest an ingest may
    take, so that an upload still running or queued in another worker keeps its own."""
    limit = time.time() - older_than
    for staged in folder.glob(f"{_STAGED_PREFIX}*"):
        with contextlib.suppress(OSError):  # gone already, or not ours to remove
            if staged.stat().st_mtime < limit:
                staged.unlink()


def _stage(upload: UploadFile, staged: Path) -> None:
    """Copy an upload to its staging file (on a thread: disk writes block)."""
    with staged.open("wb") as out:
        while chunk := upload.file.read(1 << 20):
            out.write(chunk)


def _upload_folder(uploads: Path, source: str | None) -> Path:
    """The folder of ``source``'s uploads: a name made from the id, never a path in it
    (source ids may hold '/' and '..'), checked to lie under ``uploads``."""
    root = uploads.resolve()
    label = re.sub(r"[^A-Za-z0-9_-]+", "_", source or "none")[:40]
    folder = root / f"{label}-{sha256_hex(source or '')[:12]}"
    if not folder.resolve().is_relative_to(root):
        raise InvalidInputError("source", source, "use a source id without path parts")
    return folder


def _checked_name(name: str | None) -> str:
    base = Path(name or "").name
    if not _FILE_NAME.fullmatch(base) or Path(base).suffix.lower() not in SUPPORTED_SUFFIXES:
        raise InvalidInputError(
            "file name",
            name,
            "use letters, digits, '.', '_', '-' or spaces, ending in one of "
            + ", ".join(SUPPORTED_SUFFIXES),
        )
    return base


class SourceFields(BaseModel):
    """Editable attributes of a source (as the options of `assay sources add/update`)."""

    model_config = ConfigDict(extra="forbid")

    kind: str | None = None
    reliability: float | None = Field(None, ge=0, le=1)
    name: str | None = None
    owner: str | None = None
    jurisdiction: str | None = None
    court_level: str | None = None
    overruled: bool | None = None
    retired: bool | None = None
    review_interval_days: int | None = Field(None, gt=0)
    reviewed_at: date | None = None
    metadata: dict[str, Any] | None = None
    supersedes: str | None = Field(
        None,
        description="The registered source this one replaces (its items are kept out of any "
        "answer this source's items reach); null clears it.",
    )
    note: str | None = Field(None, description="Why the change is made (kept in the history).")

    def changes(self) -> dict[str, Any]:
        """The attributes given, without the note (``supersedes``: null clears it)."""
        changes = self.model_dump(exclude_none=True, exclude={"note"})
        if "supersedes" in self.model_fields_set:
            changes["supersedes"] = self.supersedes
        return changes


class NewSource(SourceFields):
    id: str
    kind: str


class SourceReview(BaseModel):
    model_config = ConfigDict(extra="forbid")

    on: date | None = Field(None, description="Review date [default: today].")
    reliability: float | None = Field(None, ge=0, le=1)
    note: str | None = None


@router.get("/sources", summary="The source registry, with review due dates")
def list_sources(
    request: Request, kind: str | None = None, due: bool = False, as_of: date | None = None
) -> dict[str, Any]:
    """Every source (``kind``: one kind; ``due``: only those overdue for review)."""
    engine = acting_engine(request)
    day = as_of or date.today()
    listed = engine.sources.list(kind=kind, overdue_on=day if due else None)
    links = engine.sources.supersessions()
    return {"as_of": day.isoformat(), "sources": [_source(s, day, links) for s in listed]}


@router.get("/documents", summary="The documents of the knowledge base, by uri")
def list_documents(
    request: Request, source: str | None = None, limit: int | None = Query(None, ge=1, le=MAX_LIST)
) -> dict[str, Any]:
    """Each document with the source it was ingested under, its dates and chunk count
    (``source``: that source's only; ``limit``: at most this many)."""
    found = acting_engine(request).documents(source_id=source, limit=limit)
    return {"documents": [d.as_dict() for d in found]}


@router.get("/documents/{document_id}", summary="One document of the knowledge base")
def show_document(document_id: str, request: Request) -> dict[str, Any]:
    return acting_engine(request).document(document_id).as_dict()


class Relabel(BaseModel):
    """A document's new access labels (they replace its labels; none: every key reads it)."""

    model_config = ConfigDict(extra="forbid")
    access: list[str] = Field(max_length=32)
    note: str | None = Field(None, max_length=2000)


@router.post("/documents/{document_id}/access", summary="Change a document's access labels")
def relabel_document(document_id: str, body: Relabel, request: Request) -> dict[str, Any]:
    """Audited as an ``access`` event, with the labels before the change."""
    engine = acting_engine(request)
    return engine.relabel(document_id, body.access, note=body.note).as_dict()


@router.post("/source-reviews/{source_id:path}", summary="Record a review of a source")
def review_source(source_id: str, body: SourceReview, request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    source = engine.sources.review(
        source_id,
        on=body.on or date.today(),
        reliability=body.reliability,
        actor=engine.audit.actor,
        note=body.note,
    )
    return _source(source, date.today(), engine.sources.supersessions())


@router.get("/sources/{source_id:path}", summary="One source and its history")
def show_source(source_id: str, request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    source = engine.sources.get(source_id)
    history, before = [], None
    for h in engine.sources.history(source_id):
        history.append(asdict(h) | {"changed": changed_fields(before, h.snapshot)})
        before = h.snapshot
    links = engine.sources.supersessions()
    return _source(source, date.today(), links) | {"history": history}


@router.post("/sources", status_code=201, summary="Register a source")
def add_source(body: NewSource, request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    fields = body.changes()
    source_id, kind = fields.pop("id"), fields.pop("kind")
    source = engine.sources.add(source_id, kind, actor=engine.audit.actor, note=body.note, **fields)
    return _source(source, date.today(), engine.sources.supersessions())


@router.post("/sources/{source_id:path}", summary="Change a source (a new version is recorded)")
def update_source(source_id: str, body: SourceFields, request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    source = engine.sources.update(
        source_id, actor=engine.audit.actor, note=body.note, **body.changes()
    )
    return _source(source, date.today(), engine.sources.supersessions())


def _source(source: Source, day: date, links: dict[str, str]) -> dict[str, Any]:
    """A source as the routes give it: with its review state and the sources that
    supersede it (nearest first)."""
    return source.as_dict() | {
        "review_overdue": source.review_overdue(day),
        "superseded_by": list(successors(source.id, links)),
    }
