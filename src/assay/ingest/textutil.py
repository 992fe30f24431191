"""Helpers every file reader shares: reading text, splitting it, and reporting problems.

The loaders for plain text, Markdown, HTML, PDF and JSON Lines all read UTF-8 the
same way (a BOM dropped), name documents by the file's resolved path as safe text
(:func:`file_uri`), split text into paragraphs on blank lines, track the headings
above each block with :class:`Outline`, take dates and fields from what the file
states, and turn an empty or unreadable file into an :class:`InvalidInputError` that
names it. They live here, in a module that imports no reader, so that ``loaders``
can import the Markdown and HTML readers and they can import these helpers without a
cycle. The chunker's cutting of over-long sentences (:func:`windows`) is here too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from datetime import date
from itertools import islice
from pathlib import Path
from typing import Any

from assay.documents import Block, LoadedDocument
from assay.errors import InvalidInputError
from assay.types import parse_date

TOKEN = re.compile(r"\w+|[^\w\s]")
"""A token of :func:`assay.ingest.chunking.approximate_tokens`: a word, or another non-space."""
_WORD = re.compile(r"\S+")
_NON_SPACE = re.compile(r"\S")


def safe_text(text: str) -> str:
    """``text`` that always encodes as UTF-8: bytes a file name could not decode with.

    File names that are not valid UTF-8 reach Python as surrogate escapes
    (``b"bad\\xff"`` becomes ``"bad\\udcff"``), which crash any later
    ``.encode("utf-8")``; here such a byte reads ``\\xff`` instead.
    """
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte (from JSON, say)
        data = text.encode("utf-8", "backslashreplace")
    return data.decode("utf-8", "backslashreplace")


def shown(path: Path) -> str:
    """The path as given, as safe text for messages."""
    return safe_text(str(path))


def file_uri(path: Path) -> str:
    """The document uri of a file: its resolved absolute path, as safe text.

    Resolving makes ``kb/a.md``, ``./kb/a.md``, an absolute spelling and a path
    through a symlinked folder one and the same document.
    """
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: keep the absolute spelling
        resolved = path.absolute()
    return safe_text(str(resolved))


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
    return LoadedDocument(uri=file_uri(path), blocks=tuple(blocks), **fields)


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


def windows(text: str, max_tokens: int, count: Callable[[str], int], *, exact: bool) -> list[str]:
    """Cut a sentence over the budget into the longest pieces that fit, in order.

    A piece ends after a whole word if one fits, else between tokens, else (one token
    over the budget: custom counters only) between characters. Each piece looks only
    at the next ``max_tokens + 1`` :data:`TOKEN` tokens: that is the exact count when
    ``count`` counts those tokens (``exact``), and a lower bound for a real tokenizer
    (every word and mark is at least one word piece), so no piece can reach further.
    This keeps time and memory linear in the text, whatever it holds (a 10 MB line
    without a space is one "word"). A real tokenizer (each call costs) is asked only
    about the cuts :func:`_last_fit` probes, starting from as many :data:`TOKEN` tokens
    as the previous piece held and steered by each count it gets back: two or three
    calls a piece. A counter that counts fewer tokens than :data:`TOKEN` (words only,
    say) gets shorter pieces than it allows.
    """
    pieces: list[str] = []
    position, previous = _next_word(text, 0), max_tokens
    while position < len(text):
        tokens = islice(TOKEN.finditer(text, position), max_tokens + 1)
        ends = [match.end() for match in tokens]
        reach = ends[-1]
        # Words ending within reach; one cut short by ``reach`` is not a cut.
        word_ends = [m.end() for m in _WORD.finditer(text, position, reach)]
        if word_ends and word_ends[-1] == reach < len(text) and not text[reach].isspace():
            word_ends.pop()

        def size(end: int, position: int = position, ends: list[int] = ends) -> int:
            lower = bisect_right(ends, end)  # TOKEN tokens: exact, or a lower bound
            return lower if exact or lower > max_tokens else count(text[position:end])

        guess = ends[min(previous, len(ends)) - 1]
        first_word_end = word_ends[0] if word_ends else reach
        levels: tuple[tuple[Sequence[int], int, int, bool], ...] = (
            (word_ends, 0, len(word_ends), True),
            (ends, 0, bisect_right(ends, first_word_end), True),
            (range(len(text) + 1), position + 1, ends[0], False),
        )
        cuts = (
            _last_fit(cuts, low, high, size, max_tokens, guess, strict=strict)
            for cuts, low, high, strict in levels
        )
        end = next((cut for cut in cuts if cut is not None), position + 1)
        pieces.append(text[position:end])
        previous = max(bisect_right(ends, end), 1)
        position = _next_word(text, end)
    return pieces


def _next_word(text: str, start: int) -> int:
    match = _NON_SPACE.search(text, start)
    return match.start() if match else len(text)


def _last_fit(
    cuts: Sequence[int],
    low: int,
    high: int,
    size: Callable[[int], int],
    limit: int,
    guess: int,
    *,
    strict: bool,
) -> int | None:
    """The last of ``cuts[low:high]`` whose size is at most ``limit`` (sizes grow with
    the cut), or ``None`` if none is.

    Starts at the last cut at or before ``guess``; each size it gets back steers the
    next probe: ``k`` under the limit steps about ``k`` sizes' worth of cuts on (from
    the cuts per size seen so far), ``k`` over steps back, doubling while it keeps
    going one way, and once a fit and a miss are known it interpolates between them,
    bisecting instead whenever a probe failed to halve the bracket: two or three
    probes for uniform text, O(log n) at worst. ``strict``: each cut adds at least one
    to the size, so a cut of exactly ``limit`` is the last fit.
    """
    if low >= high:
        return None
    fit, miss = low - 1, high  # cuts[fit] fits (none known: fit < low); cuts[miss] does not
    fit_size = miss_size = 0
    probe = min(max(bisect_right(cuts, guess, low, high) - 1, low), high - 1)
    step, halved = 1, True
    while miss - fit > 1:
        width = miss - fit
        measured = size(cuts[probe])
        if measured <= limit:
            fit, fit_size = probe, measured
            if strict and measured == limit:
                break
        else:
            miss, miss_size = probe, measured
        if miss - fit <= 1:
            break
        halved = 2 * (miss - fit) <= width
        if fit >= low and miss < high:  # bracketed
            if not halved:
                probe = (fit + miss) // 2
            else:
                share = (limit - fit_size) / max(miss_size - fit_size, 1)
                probe = fit + round(share * (miss - fit))
        else:
            known, known_size = (fit, fit_size) if fit >= low else (miss, miss_size)
            per = (known - low + 1) / max(known_size, 1)  # cuts per unit of size so far
            step = max(round(abs(limit - known_size) * per), 1, 2 * step if not halved else 1)
            probe = known + step if fit >= low else known - step
        probe = min(max(probe, fit + 1), miss - 1)
    return cuts[fit] if fit >= low else None
