"""Read Markdown files: front matter, the heading outline, and paragraphs under it.

Markdown is the format knowledge bases are most often written in, and the one with
the most rules of its own (ATX and setext headings, fences, lists, tables, front
matter), so its reader has a module to itself. Front matter is read as simple
``key: value`` lines, not YAML, to keep to the standard library; ``title``,
``source_id`` and the dates become document fields, the rest metadata. A
``source`` key stays metadata: in front matter it usually holds a URL or a
citation, not the id of a registered source.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay.access import parse_labels
from assay.documents import Block, LoadedDocument
from assay.errors import InvalidInputError
from assay.ingest.tables import table_sentences
from assay.ingest.textutil import (
    Outline,
    bad_file,
    make_document,
    pick,
    pick_date,
    read_text,
    shown,
)

#: an ATX heading's opening: its level, then a space, a tab or the end of the line; the
#: rest is parsed by :func:`_atx_heading` without a pattern (a lazy title before optional
#: closing hashes backtracks quadratically over a long run of spaces)
_ATX_OPEN = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LINE_START = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s|^\s*\|")  # list items, table rows
_FRONT_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$")


def _atx_heading(line: str) -> tuple[int, str] | None:
    """``(level, title)`` of an ATX heading line (``## Title ##``), ``None`` for any other
    line; the closing hashes count only after a space or a tab, as CommonMark says.
    Linear in the line's length."""
    match = _ATX_OPEN.match(line)
    if match is None:
        return None
    rest = line[match.end() :].strip(" \t")
    unclosed = rest.rstrip("#")
    if not unclosed or unclosed[-1] in " \t":
        rest = unclosed.rstrip(" \t")
    return len(match.group(1)), rest


def load_markdown(path: Path) -> list[LoadedDocument]:
    """Read a ``.md`` or ``.markdown`` file into one document."""
    lines = read_text(path).split("\n")
    fields, body_start = _front_matter(path, lines)
    outline, blocks = Outline(), []
    para: list[str] = []
    start = 0
    fence: str | None = None

    def flush(verbatim: bool = False) -> None:
        joined: list[str] = []
        for raw in para:  # wrapped lines join; list items and table rows keep their line
            text = " ".join(raw.split())
            if verbatim or not joined or _LINE_START.match(raw):
                joined.append(raw if verbatim else raw[: len(raw) - len(raw.lstrip())] + text)
            else:
                joined[-1] += " " + text
        if joined:
            text = "\n".join(joined if verbatim else _tables_written_out(joined))
            blocks.append(Block("paragraph", text, outline.path, line=start))
        para.clear()

    for number, line in enumerate(lines[body_start:], body_start + 1):
        if fence is not None:  # a fenced code block is one paragraph, kept verbatim
            para.append(line)
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
                flush(verbatim=True)
        elif (match := _FENCE.match(line)) is not None:
            flush()
            fence, start = match.group(1), number
            para.append(line)
        elif (heading := _atx_heading(line)) is not None:
            flush()
            level, text = heading
            if text:
                blocks.append(outline.heading(level, text, number))
        elif para and _SETEXT.match(line):
            text = " ".join(" ".join(para).split())
            para.clear()
            blocks.append(outline.heading(1 if "=" in line else 2, text, start))
        elif not line.strip() or _RULE.match(line):
            flush()
        else:
            start = start if para else number
            para.append(line)
    flush(verbatim=fence is not None)  # an unclosed fence runs to the end of the file
    title = _pick_text(path, fields, "title")
    source_id = _pick_text(path, fields, "source_id")
    where = f"{shown(path)} front matter "
    published = pick_date(where, fields, "published", "date")
    verified = pick_date(where, fields, "verified", "last_verified")
    known = {"title": title or outline.first_h1, "source_id": source_id}
    access = _pick_access(path, fields)
    document = make_document(
        path, blocks, published=published, verified=verified, metadata=fields, **known
    )
    return [document if access is None else replace(document, access=access)]


def _tables_written_out(lines: list[str]) -> list[str]:
    """``lines`` with each run of table rows written out as sentences
    (:mod:`assay.ingest.tables`)."""
    out: list[str] = []
    run: list[str] = []
    for line in [*lines, ""]:
        if line.lstrip().startswith("|"):
            run.append(line)
            continue
        if run:
            out.append(table_sentences(run) or "\n".join(run))
            run = []
        if line:
            out.append(line)
    return out


def _front_matter(path: Path, lines: list[str]) -> tuple[dict[str, Any], int]:
    """``key: value`` lines between ``---`` at the top; a key with no value may list items."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    end = next((i for i, line in enumerate(lines) if i and line.strip() in ("---", "...")), 0)
    if not end:
        raise bad_file(path, "opens front matter but never closes it", "add a --- line after it")
    fields: dict[str, Any] = {}
    key = ""
    for index, line in enumerate(lines[1:end], 1):
        stripped, current = line.strip(), fields.get(key)
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and (current == "" or isinstance(current, list)):
            fields[key] = [*(current or []), _unquote(stripped[2:])]
        elif (match := _FRONT_KEY.match(line)) is not None:
            key = match.group(1).lower()
            fields[key] = _unquote(match.group(2))
        else:
            fix, problem = "write front matter as `key: value` lines", "is not a key: value line"
            raise InvalidInputError(f"{shown(path)} line {index + 1}", line, fix, problem=problem)
    return fields, end + 1


def _unquote(value: str) -> str:
    value = value.strip()
    return value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'" else value


def _pick_access(path: Path, fields: dict[str, Any]) -> frozenset[str] | None:
    """The ``access`` labels of front matter (``access: hr, legal`` or a list), removed
    from the metadata; ``None`` when it names none."""
    _, value = pick(fields, "access")
    if value in ("", None, []):
        return None
    return parse_labels(value, field=f"{shown(path)} front matter access")


def _pick_text(path: Path, fields: dict[str, Any], *names: str) -> Any:
    """Remove and return the first of ``names`` present, which must be a single value."""
    name, value = pick(fields, *names)
    if isinstance(value, list):
        raise InvalidInputError(f"{shown(path)} front matter {name}", value, "give a single value")
    return value or None
