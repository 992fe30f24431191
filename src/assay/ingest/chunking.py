"""Pack a document's paragraphs into chunks that follow its structure and fit a token budget.

A chunk is what gets embedded, retrieved, scored and cited, so it should read as a
whole passage: it never mixes two sections (a new heading path, or a new PDF page,
starts a new chunk), it holds as many consecutive paragraphs of its section as fit in
``max_tokens``, and a paragraph that is too long on its own is cut between sentences
(between words only when a single sentence is too long). When a section continues
into the next chunk, that chunk opens with the last whole sentences of the previous
one (up to ``overlap_tokens``), so a thought cut at the boundary is still readable on
both sides. Every chunk, overlap included, stays within ``max_tokens`` as measured by
``count_tokens``.

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

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import islice

from assay.documents import Block, Chunk, LoadedDocument, chunk_id, document_id
from assay.errors import InvalidInputError
from assay.ingest.textutil import TOKEN, windows

TokenCounter = Callable[[str], int]

# A sentence ends at . ! ? or … (plus closing quotes or brackets) before whitespace and
# a character that is not a lower-case letter, so "e.g. this" is not cut.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'\u201d\u2019)\]]*(?=\s+[^\sa-z])")
_TINY_PAGE_FRACTION = 8


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
    """Split ``doc`` into chunks of at most ``max_tokens`` tokens, in reading order.

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
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for section in _sections(doc.blocks, max_tokens // _TINY_PAGE_FRACTION, count_tokens):
        units = [
            _Unit(piece, index)
            for index in section.blocks
            for piece in _split(doc.blocks[index].text, max_tokens, count_tokens)
        ]
        for packed in _pack(units, max_tokens, overlap_tokens, count_tokens):
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


def _split(text: str, max_tokens: int, count: TokenCounter) -> list[str]:
    """``text`` whole if it fits, else its sentences, else windows (:func:`.textutil.windows`)."""
    if _within(text, max_tokens, count):
        return [text]
    pieces: list[str] = []
    for sentence in _sentences(text):
        if _within(sentence, max_tokens, count):
            pieces.append(sentence)
        else:
            pieces.extend(windows(sentence, max_tokens, count, exact=count is approximate_tokens))
    return pieces


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
    units: list[_Unit], max_tokens: int, overlap_tokens: int, count: TokenCounter
) -> list[list[_Unit]]:
    """Greedily fill chunks; each continuation starts with the previous chunk's tail."""
    chunks: list[list[_Unit]] = []
    current: list[_Unit] = []
    fresh = False  # whether ``current`` holds more than carried-over overlap
    for unit in units:
        if _within(_join([*current, unit]), max_tokens, count):
            current.append(unit)
            fresh = True
            continue
        if fresh:
            chunks.append(current)
            current = _tail(current, overlap_tokens, count)
        while current and not _within(_join([*current, unit]), max_tokens, count):
            current = current[1:]  # drop overlap from the front until the unit fits
        current = [*current, unit]
        fresh = True
    if fresh:
        chunks.append(current)
    return chunks


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
