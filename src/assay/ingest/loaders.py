"""Read files into :class:`LoadedDocument` objects that keep the document's structure.

One loader per format (plain text, Markdown, HTML, PDF, JSON Lines), chosen by the
file's suffix. Each turns the file into headings and paragraphs with the headings
above them, the page (PDF) or the line (text formats) they start on, so that the
chunker can cut along the document's own seams instead of every N characters.
Only the standard library and ``pypdf`` are used: front matter is read as simple
``key: value`` lines, not YAML. Every problem with a file is an
:class:`InvalidInputError` that names the file (and the line, for JSON Lines) and
says how to fix it.

This module is the entry point and holds the plain text, PDF and JSON Lines
readers; Markdown and HTML have modules of their own (:mod:`.markdown`,
:mod:`.html`), and the helpers every reader shares are in :mod:`.textutil`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from assay.access import parse_labels
from assay.documents import Block, LoadedDocument
from assay.errors import InvalidInputError
from assay.ingest.html import load_html
from assay.ingest.markdown import load_markdown
from assay.ingest.textutil import (
    bad_file,
    file_uri,
    make_document,
    paragraphs,
    pick_date,
    read_text,
    safe_text,
    shown,
)

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".jsonl")
"""File suffixes :func:`load_file` reads, compared case-insensitively."""


def iter_files(paths: Iterable[Path]) -> list[Path]:
    """Expand files and folders into the list of files to load, in a stable order.

    Folders are walked recursively in sorted order, skipping hidden entries (names
    starting with ``.``), symlinked folders (they could loop back on the walk; a
    symlinked folder named explicitly is walked) and files with unsupported
    suffixes; symlinked files are kept. A file named explicitly must have a
    supported suffix. A file reached twice, under any spelling, is kept once, as
    first reached. A path or folder that cannot be read is an :class:`InvalidInputError`.
    """
    found: dict[str, Path] = {}
    for path in paths:
        try:
            exists, is_dir = path.exists(), path.is_dir()
        except OSError as exc:
            raise _unreadable("path", path, exc) from exc
        if not exists:
            fix = "check the spelling, or give an existing file or folder"
            raise InvalidInputError("path", shown(path), fix, problem="does not exist")
        for file in _walk(path) if is_dir else [_check_suffix(path)]:
            found.setdefault(file_uri(file), file)
    return list(found.values())


def load_file(path: Path) -> list[LoadedDocument]:
    """Read one file into documents: one per file, or one per record of a ``.jsonl``.

    A document's uri is the file's resolved absolute path (:func:`.textutil.file_uri`),
    plus ``#<record id>`` for a JSON Lines record, however the path was spelled.
    """
    return _LOADERS[_check_suffix(path).suffix.lower()](path)


def _walk(folder: Path) -> Iterator[Path]:
    try:
        entries = sorted(e for e in folder.iterdir() if not e.name.startswith("."))
        kinds = [(e, e.is_dir(), e.is_symlink()) for e in entries]
    except OSError as exc:
        raise _unreadable("folder", folder, exc) from exc
    for entry, is_dir, is_link in kinds:
        if is_dir:
            if not is_link:  # a symlinked folder may lead back up: never followed
                yield from _walk(entry)
        elif entry.suffix.lower() in SUPPORTED_SUFFIXES and _is_file(entry, folder):
            yield entry


def _is_file(entry: Path, folder: Path) -> bool:
    try:
        return entry.is_file()
    except OSError as exc:
        raise _unreadable("folder", folder, exc) from exc


def _unreadable(field: str, path: Path, exc: OSError) -> InvalidInputError:
    problem = f"cannot be read ({exc.strerror or exc})"
    return InvalidInputError(
        field, shown(path), "check its permissions or leave it out", problem=problem
    )


def _check_suffix(path: Path) -> Path:
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        fix = f"give a file ending in one of {', '.join(SUPPORTED_SUFFIXES)}"
        raise InvalidInputError("path", shown(path), fix, problem="has an unsupported file type")
    return path


def _load_txt(path: Path) -> list[LoadedDocument]:
    blocks = [Block("paragraph", text, line=n) for n, text in paragraphs(read_text(path))]
    return [make_document(path, blocks)]


_DECRYPT = "decrypt it first (`qpdf --decrypt in.pdf out.pdf`)"


def _load_pdf(path: Path) -> list[LoadedDocument]:
    from pypdf import PasswordType, PdfReader  # imported here: only PDFs pay for it
    from pypdf.errors import DependencyError, FileNotDecryptedError

    blocks: list[Block] = []
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise bad_file(path, "is an encrypted PDF", _DECRYPT)
        title = reader.metadata.title if reader.metadata else None
        for number, page in enumerate(reader.pages, 1):
            for _, text in paragraphs(page.extract_text() or ""):
                blocks.append(Block("paragraph", text, page=number))
    except (FileNotDecryptedError, DependencyError) as exc:  # AES without `cryptography`
        raise bad_file(path, f"is an encrypted PDF ({exc})", _DECRYPT) from exc
    except InvalidInputError:
        raise
    except Exception as exc:  # pypdf fails on damaged files in many ways, none of them ours
        problem = f"is not a readable PDF ({type(exc).__name__}: {exc})"
        raise bad_file(path, problem, "check it opens in a PDF viewer, then re-export it") from exc
    if not blocks:
        problem, fix = "has no text layer (a scanned document?)", "OCR it first (`ocrmypdf`)"
        raise bad_file(path, problem, fix)
    return [make_document(path, blocks, title=title.strip() if title else None)]


def _load_jsonl(path: Path) -> list[LoadedDocument]:
    documents: dict[str, LoadedDocument] = {}
    base = file_uri(path)
    for number, line in enumerate(read_text(path).split("\n"), 1):
        if not line.strip():
            continue
        where = f"{shown(path)} line {number}: "
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problem = f"is not valid JSON ({exc.msg} at column {exc.colno})"
            raise InvalidInputError(where + "record", line, _ONE_OBJECT, problem=problem) from exc
        document = _record(base, number, where, record)
        if document.uri in documents:
            fix = "give every record its own id"
            raise InvalidInputError(where + "id", record["id"], fix, problem="is duplicated")
        documents[document.uri] = document
    if not documents:
        raise bad_file(path, "has no text", _ONE_OBJECT)
    return list(documents.values())


def _record(base: str, number: int, where: str, record: Any) -> LoadedDocument:
    if not isinstance(record, dict):
        raise InvalidInputError(where + "record", record, _ONE_OBJECT, problem="is not an object")
    fields = dict(record)
    text, rid, metadata = (fields.pop(key, None) for key in ("text", "id", "metadata"))
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(where + "text", text, _ONE_OBJECT, problem="is missing or empty")
    strings = {"id": rid} | {key: fields.pop(key, None) for key in ("title", "source_id")}
    for key, value in strings.items():
        number_id = key == "id" and type(value) is int
        if value is not None and not number_id and not (isinstance(value, str) and value.strip()):
            raise InvalidInputError(where + key, value, "give a non-empty string or omit it")
    if not isinstance(metadata, dict | None):
        raise InvalidInputError(where + "metadata", metadata, "give a JSON object or omit it")
    published, verified = (pick_date(where, fields, key) for key in _DATES)
    access = fields.pop("access", None)
    if not isinstance(access, list | str | None):
        raise InvalidInputError(
            where + "access", access, 'give a list of labels, e.g. "access": ["hr"], or omit it'
        )
    return LoadedDocument(
        uri=safe_text(f"{base}#{rid}" if rid is not None else f"{base}#line{number}"),
        blocks=tuple(Block("paragraph", t) for _, t in paragraphs(text)),
        title=strings["title"],
        published=published,
        verified=verified,
        source_id=strings["source_id"],
        metadata=fields | (metadata or {}),
        access=None if access is None else parse_labels(access, field=where + "access"),
    )


_ONE_OBJECT = 'write one JSON object per line, each with a non-empty "text" string'
_DATES = ("published", "verified")
_LOADERS: dict[str, Callable[[Path], list[LoadedDocument]]] = {
    ".txt": _load_txt,
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".html": load_html,
    ".htm": load_html,
    ".pdf": _load_pdf,
    ".jsonl": _load_jsonl,
}
