"""Pack a document's paragraphs into chunks that follow its structure and fit a token budget.

A chunk is what gets embedded, retrieved, scored and cited, so it should read as a
whole passage: it never mixes two sections (a new heading path, or a new PDF page,
starts a new chunk), it holds as many consecutive paragraphs of its section as fit in
``max_tokens``, and a paragraph that is too long on its own is cut between sentences
(between words only when a single sentence is too long). When a section continues
into the next chunk, that chunk opens with the last whole sentences of the previous
one (up to ``overlap_tokens``), so a thought cut at the boundary is still readable on
both sides. Every chunk, overlap included, stays within ``max_tokens`` as measured by
``count_tokens`` and within :data:`CHARS_PER_TOKEN` characters per token of that budget
(a tokenizer counts a word of any length as one token). Work is linear in the text,
whatever it holds: runs of punctuation, one word of megabytes, thousands of one-mark
sentences (``tests/unit/test_chunking.py`` holds each case).

Choices the caller should know:

* Heading blocks become the chunk ``title`` ("Document title > H1 > H2"), never chunk
  text. An outermost heading that the document title already contains ("Charging
  FAQ" under "Support wiki: Charging FAQ") is left out of the title and the
  location. A heading with no paragraphs under it yields no chunk.
* ``location`` reads "Heading > Path, paragraphs 2-3" (numbered within the section;
  the range is left out when the section has one paragraph), "page 4" or "page 4,
  paragraphs 1-2" for PDFs, and "lines 10-24" for text without headings (up to the
  line before the next paragraph; "from line 30 to the end" for the last one).
* A PDF page whose text is tiny (under ``max_tokens // 8`` tokens: a cover, a
  part title, a page number) joins the next page's chunk instead of standing alone;
  its location then reads "pages 3-4".
* A chunk whose text repeats an earlier chunk of the same document is dropped:
  :func:`~assay.documents.chunk_id` hashes the text, so both would share an id.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import islice, pairwise

from assay.documents import Block, Chunk, LoadedDocument, chunk_id, document_id
from assay.errors import InvalidInputError
from assay.ingest.textutil import TOKEN, windows

TokenCounter = Callable[[str], int]

# A sentence ends at . ! ? or … (plus closing quotes or brackets) before whitespace and
# a character that is not a lower-case letter, so "e.g. this" is not cut. Linear: a
# match starts only where a run of end marks starts, and no quantifier gives back what
# it took (without both, a run of 20,000 dots took 8 s, each position rescanning it).
_SENTENCE_END = re.compile(r"(?<![.!?…])[.!?…]++[\"'\u201d\u2019)\]]*+(?=\s++[^\sa-z])")
_TINY_PAGE_FRACTION = 8
_WORD_RUN = re.compile(r"(?<!\w)\w++")  # a run of word characters, matched once from its start
#: a chunk holds at most this many characters per token of its budget (2,880 for 180
#: tokens; English prose runs 4-6 a token): a tokenizer counts a word of any length as
#: one unknown token, so without it a 10 MB file without spaces was one 10 MB chunk
CHARS_PER_TOKEN = 16


def approximate_tokens(text: str) -> int:
    """Count words and punctuation marks: a stand-in for a WordPiece tokenizer's count.

    Each run of word characters and each other non-space character counts as one
    token (regex ``\\w+|[^\\w\\s]``). For English prose this tracks BERT-style
    WordPiece counts closely but runs a little low on rare or long words, which
    WordPiece splits into several pieces; pass the real tokenizer's counter as
    ``count_tokens`` when the embedding model's limit is tight.
    """
    return len(TOKEN.findall(text))


def chunk_document(
    doc: LoadedDocument,
    *,
    source_id: str,
    max_tokens: int = 180,
    overlap_tokens: int = 30,
    count_tokens: TokenCounter = approximate_tokens,
) -> list[Chunk]:
    """Split ``doc`` into chunks of at most ``max_tokens`` tokens and
    :data:`CHARS_PER_TOKEN` characters per token, in reading order.

    ``source_id`` names the chunks' source (the caller resolves it beforehand, so it
    wins over ``doc.source_id``); ``overlap_tokens`` bounds the whole sentences
    repeated from the previous chunk of the same section. Dates and metadata are
    copied from the document. The same input always gives the same chunks and ids.
    """
    if not isinstance(source_id, str) or not source_id.strip():
        raise InvalidInputError("source_id", source_id, "give the id of a registered source")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 16:
        raise InvalidInputError("max_tokens", max_tokens, "give a whole number of at least 16")
    if (
        isinstance(overlap_tokens, bool)
        or not isinstance(overlap_tokens, int)
        or not 0 <= 2 * overlap_tokens < max_tokens
    ):
        raise InvalidInputError(
            "overlap_tokens",
            overlap_tokens,
            f"give a whole number from 0 to under half of max_tokens ({max_tokens})",
        )
    doc_id = document_id(source_id, doc.uri)
    end_lines = _end_lines(doc.blocks)
    count_tokens = cache(count_tokens)  # a paragraph is counted to split, then to pack
    max_chars = max_tokens * CHARS_PER_TOKEN
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for section in _sections(doc.blocks, max_tokens // _TINY_PAGE_FRACTION, count_tokens):
        units = [
            _Unit(piece, index)
            for index in section.blocks
            for piece in _split(doc.blocks[index].text, max_tokens, max_chars, count_tokens)
        ]
        for packed in _pack(units, max_tokens, max_chars, overlap_tokens, count_tokens):
            text = _join(packed)
            if text in seen:
                continue
            seen.add(text)
            chunks.append(
                Chunk(
                    id=chunk_id(doc_id, text),
                    document_id=doc_id,
                    source_id=source_id,
                    ordinal=len(chunks),
                    text=text,
                    title=_title(doc.title, section.headings),
                    location=_location(doc, section, packed, end_lines),
                    uri=doc.uri,
                    published=doc.published,
                    verified=doc.verified,
                    metadata=dict(doc.metadata),
                )
            )
    return chunks


@dataclass(frozen=True, slots=True)
class _Unit:
    """A paragraph, or a piece of a long one, tagged with its block's index."""

    text: str
    block: int


@dataclass(slots=True)
class _Section:
    """Consecutive paragraph blocks under one heading path, on one page (or tiny pages)."""

    headings: tuple[str, ...]
    page: int | None
    blocks: list[int] = field(default_factory=list)


def _sections(blocks: Sequence[Block], tiny: int, count: TokenCounter) -> list[_Section]:
    sections: list[_Section] = []
    current: _Section | None = None
    for index, block in enumerate(blocks):
        if block.kind == "heading":
            current = None
            continue
        if current is not None and current.headings == block.headings:
            if current.page == block.page:
                current.blocks.append(index)
                continue
            text = "\n\n".join(blocks[i].text for i in current.blocks)
            paged = current.page is not None and block.page is not None
            if paged and _within(text, tiny - 1, count):
                current.page = block.page  # a tiny page joins the next one
                current.blocks.append(index)
                continue
        current = _Section(block.headings, block.page, [index])
        sections.append(current)
    return sections


def _split(text: str, max_tokens: int, max_chars: int, count: TokenCounter) -> list[str]:
    """``text`` whole if it fits, else its sentences, else windows (:func:`.textutil.windows`);
    a run of word characters longer than ``max_chars`` is cut before any of it is
    counted (:func:`_long_runs_cut`), and a window longer than ``max_chars`` (words of
    dozens of characters) after (:func:`_char_pieces`)."""
    if len(text) <= max_chars and _within(text, max_tokens, count):
        return [text]
    pieces: list[str] = []
    exact = _counts_exactly(count)
    for sentence in _sentences(text):
        if len(sentence) <= max_chars and _within(sentence, max_tokens, count):
            pieces.append(sentence)
            continue
        for part in _long_runs_cut(sentence, max_chars):
            for window in windows(part, max_tokens, count, exact=exact):
                pieces.extend(_char_pieces(window, max_chars))
    return pieces


def _counts_exactly(count: TokenCounter) -> bool:
    """Whether ``count`` (or what a cache or a guard wraps) is :func:`approximate_tokens`,
    whose count the :data:`TOKEN` tokens give without calling it."""
    return inspect.unwrap(count) is approximate_tokens


def _long_runs_cut(text: str, max_chars: int) -> list[str]:
    """``text`` with each run of word characters longer than ``max_chars`` (one token to
    :data:`TOKEN`, one unknown token to a tokenizer) cut out into pieces of
    ``max_chars``: the text between such runs stays whole."""
    parts: list[str] = []
    start = 0
    for run in _WORD_RUN.finditer(text):
        if run.end() - run.start() <= max_chars:
            continue
        parts.append(text[start : run.start()])
        parts.extend(
            text[i : min(i + max_chars, run.end())]
            for i in range(run.start(), run.end(), max_chars)
        )
        start = run.end()
    parts.append(text[start:])
    return [p for p in (p.strip() for p in parts) if p]


def _char_pieces(text: str, max_chars: int) -> list[str]:
    """``text`` cut into pieces of at most ``max_chars`` characters, each at the last
    space of its window when one lies in its second half, else between characters."""
    pieces: list[str] = []
    start = 0
    while len(text) - start > max_chars:
        end = start + max_chars
        space = text.rfind(" ", start, end)
        if space > start + max_chars // 2:
            end = space
        pieces.append(text[start:end].strip())
        start = end
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


def _within(text: str, max_tokens: int, count: TokenCounter) -> bool:
    """Whether ``count(text) <= max_tokens``, without counting a text that cannot fit.

    More than ``max_tokens`` :data:`TOKEN` tokens (a lower bound of a WordPiece count,
    found by reading no further than that) settles it, so a 10 MB paragraph is never
    handed whole to a real tokenizer.
    """
    if next(islice(TOKEN.finditer(text), max_tokens, None), None) is not None:
        return False
    return count(text) <= max_tokens


def _sentences(text: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        sentences.append(text[start : match.end()].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [s for s in sentences if s]


def _join(units: Sequence[_Unit]) -> str:
    """Pieces of one paragraph join with a space, paragraphs with a blank line."""
    parts: list[str] = []
    for i, unit in enumerate(units):
        if i:
            parts.append(" " if unit.block == units[i - 1].block else "\n\n")
        parts.append(unit.text)
    return "".join(parts)


def _pack(
    units: list[_Unit], max_tokens: int, max_chars: int, overlap_tokens: int, count: TokenCounter
) -> list[list[_Unit]]:
    """Greedily fill chunks; each continuation starts with the previous chunk's tail.

    Each chunk takes the longest run of the next units that fits with the carried tail:
    the units' lengths and :data:`TOKEN` counts (the count itself for
    :func:`approximate_tokens`, a lower bound of any other) bound the run without joining
    any text, and a real counter is asked only to bisect within that bound. Counting every
    candidate as it grew made a chunk of a few hundred one-mark sentences (". . . .")
    cost the square of its units.
    """
    lower = cache(approximate_tokens)  # of a unit's text; joining adds only whitespace
    exact = _counts_exactly(count)

    def fits(candidate: list[_Unit]) -> bool:
        if sum(lower(u.text) for u in candidate) > max_tokens:
            return False
        if _joined_length(candidate) > max_chars:
            return False
        return exact or counted(candidate)

    def counted(candidate: list[_Unit]) -> bool:
        return count(_join(candidate)) <= max_tokens

    chunks: list[list[_Unit]] = []
    carried: list[_Unit] = []
    start = 0
    while start < len(units):
        while carried and not fits([*carried, units[start]]):
            carried = carried[1:]  # drop overlap from the front until the unit fits
        tokens = sum(lower(u.text) for u in [*carried, units[start]])
        chars = _joined_length([*carried, units[start]])
        bound = start + 1  # the next unit goes in, alone if it must
        while bound < len(units):
            unit = units[bound]
            tokens += lower(unit.text)
            chars += len(unit.text) + (1 if unit.block == units[bound - 1].block else 2)
            if tokens > max_tokens or chars > max_chars:
                break
            bound += 1
        end = bound if exact else _longest_fit(start, bound, carried, units, counted)
        chunk = [*carried, *units[start:end]]
        chunks.append(chunk)
        carried = _tail(chunk, overlap_tokens, count)
        start = end
    return chunks


def _longest_fit(
    start: int,
    bound: int,
    carried: list[_Unit],
    units: list[_Unit],
    fits: Callable[[list[_Unit]], bool],
) -> int:
    """The largest ``end`` in ``(start, bound]`` whose ``carried + units[start:end]``
    ``fits`` (``start + 1`` if none does; ``bound`` already holds the other limits):
    galloping out from ``start`` (2, 4, 8 units...), then bisecting, since a longer run
    holds more tokens. Galloping keeps the texts counted short where a few units fill a
    chunk (long words a tokenizer splits into dozens of pieces, each count costing the
    square of the word's length)."""
    low, high, step = start + 1, bound, 1
    while low < high:
        probe = min(low + step, high)
        if not fits([*carried, *units[start:probe]]):
            high = probe - 1
            break
        low, step = probe, 2 * step
    while low < high:
        middle = (low + high + 1) // 2
        if fits([*carried, *units[start:middle]]):
            low = middle
        else:
            high = middle - 1
    return low


def _joined_length(units: Sequence[_Unit]) -> int:
    """``len(_join(units))`` without joining them."""
    joints = sum(1 if a.block == b.block else 2 for a, b in pairwise(units))
    return sum(len(u.text) for u in units) + joints


def _tail(units: list[_Unit], overlap_tokens: int, count: TokenCounter) -> list[_Unit]:
    """The most whole sentences from the end of ``units`` that fit in ``overlap_tokens``."""
    tail: list[_Unit] = []
    for unit in reversed(units):
        for sentence in reversed(_sentences(unit.text)):
            candidate = [_Unit(sentence, unit.block), *tail]
            if not _within(_join(candidate), overlap_tokens, count):
                return tail
            tail = candidate
    return tail


def _end_lines(blocks: Sequence[Block]) -> list[int | None]:
    """For each block, the line before the next block starts (``None`` for the last)."""
    ends: list[int | None] = []
    following: int | None = None
    for block in reversed(blocks):
        ends.append(following - 1 if following is not None else None)
        following = block.line if block.line is not None else following
    return ends[::-1]


def _visible_headings(title: str | None, headings: tuple[str, ...]) -> tuple[str, ...]:
    redundant = headings and title and headings[0].casefold() in title.casefold()
    return headings[1:] if redundant else headings


def _title(title: str | None, headings: tuple[str, ...]) -> str | None:
    parts = ([title] if title else []) + list(_visible_headings(title, headings))
    return " > ".join(parts) or None


def _location(
    doc: LoadedDocument, section: _Section, units: list[_Unit], end_lines: list[int | None]
) -> str:
    """Where the chunk is, for people: heading path, page(s), then paragraphs or lines."""
    first, last = units[0].block, units[-1].block
    headings = _visible_headings(doc.title, section.headings)
    parts = [" > ".join(headings)] if headings else []
    pages = sorted({page for u in units if (page := doc.blocks[u.block].page) is not None})
    if pages:
        parts.append(f"page {pages[0]}" if len(pages) == 1 else f"pages {pages[0]}-{pages[-1]}")
    start, end = doc.blocks[first].line, end_lines[last]
    if not parts and start is not None:
        if end is None:
            parts.append(f"from line {start} to the end")
        else:
            parts.append(f"lines {start}-{end}" if end > start else f"line {start}")
    elif len(section.blocks) > 1 or not parts:
        a, b = section.blocks.index(first) + 1, section.blocks.index(last) + 1
        parts.append(f"paragraph {a}" if a == b else f"paragraphs {a}-{b}")
    return ", ".join(parts)
