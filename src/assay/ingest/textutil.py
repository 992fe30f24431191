"""Helpers every file reader shares: reading text, splitting it, and reporting problems.

The loaders for plain text, Markdown, HTML, PDF and JSON Lines all read UTF-8 the
same way, split text into paragraphs on blank lines, track the headings above each
block with :class:`Outline`, take dates and fields from what the file states, and
turn an empty or unreadable file into an :class:`InvalidInputError` that names it.
They live here, in a module that imports no reader, so that ``loaders`` can import
the Markdown and HTML readers and they can import these helpers without a cycle.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError
from assay.ingest.document import Block, LoadedDocument
from assay.types import parse_date


def bad_file(path: Path, problem: str, fix: str) -> InvalidInputError:
    """The error for a file that cannot be used: names the file, the problem and the fix."""
    return InvalidInputError("file", str(path), fix, problem=problem)


def read_text(path: Path) -> str:
    """The file's text, decoded as UTF-8 (a BOM dropped), with ``\\n`` line endings."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise bad_file(path, f"cannot be read ({exc.strerror})", "check its permissions") from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problem = f"is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        raise bad_file(path, problem, "convert it to UTF-8 (`iconv -f latin1 -t utf-8`)") from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def paragraphs(text: str) -> list[tuple[int, str]]:
    """Split on blank lines; each paragraph's starting line and whitespace-normalised text."""
    out: list[tuple[int, str]] = []
    start, lines = 0, list[str]()
    for number, line in enumerate([*text.split("\n"), ""], 1):
        if line.strip():
            start = start if lines else number
            lines.append(line)
        elif lines:
            out.append((start, " ".join(" ".join(lines).split())))
            lines = []
    return out


def make_document(path: Path, blocks: list[Block], **fields: Any) -> LoadedDocument:
    """The document read from ``path``; a file without a paragraph is an error."""
    if not any(b.kind == "paragraph" for b in blocks):
        problem = "has no text besides headings" if blocks else "has no text"
        raise bad_file(path, problem, "add content to it or leave it out")
    return LoadedDocument(uri=str(path), blocks=tuple(blocks), **fields)


class Outline:
    """The stack of open headings: a level-n heading closes those at level n and below."""

    def __init__(self) -> None:
        self.stack: list[tuple[int, str]] = []
        self.first_h1: str | None = None

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(text for _, text in self.stack)

    def heading(self, level: int, text: str, line: int | None = None) -> Block:
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        block = Block("heading", text, self.path, line=line)
        self.stack.append((level, text))
        if level == 1 and self.first_h1 is None:
            self.first_h1 = text
        return block


def pick(fields: dict[str, Any], *names: str) -> tuple[str, Any]:
    """Remove the first of ``names`` present (others stay); its name and value, else None."""
    name = next((n for n in names if n in fields), names[0])
    return name, fields.pop(name, None)


def pick_date(where: str, fields: dict[str, Any], *names: str) -> date | None:
    """:func:`pick` parsed as a date; errors name the field as ``where`` + its name."""
    name, value = pick(fields, *names)
    return parse_date(where + name, value)
