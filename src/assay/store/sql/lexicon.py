"""Lexical search of the knowledge base: BM25 over postings kept in the database.

One implementation for both backends, so that SQLite and PostgreSQL rank a query's
words identically. Every chunk's text is cut into :func:`~assay.text.lexical_terms`
(case and accents folded, stopwords dropped, inflections stemmed) when it is written.
Chunks are indexed in blocks of at most :data:`BLOCK_CHUNKS`; a block keeps one row per
term, whose blob lists a :data:`POSTING` for each chunk holding the term: its offset from
the block's first ``seq``, the term's weight in it (text occurrences, plus title
occurrences at :data:`TITLE_WEIGHT`) and the chunk's length in terms.

A search reads the rows of the query's terms only and scores every chunk they name
with numpy, exactly (Okapi BM25 with Lucene's always-positive idf). The work grows with
the postings of the query's terms, not with the knowledge base: a term in 10% of a
million chunks is 100,000 postings, a few milliseconds of array arithmetic, where an
SQL engine ranking row by row spends most of a second. Removing chunks rewrites the
rows of the blocks that held them, so every count stays exact.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from assay.store.base import Hit
from assay.store.sql.knowledge_rows import in_pages
from assay.store.sql.session import Row, Session
from assay.text import lexical_terms

#: which of these chunk seqs the caller may read, as a mask (a store's check of their
#: access labels)
Readable = Callable[[np.ndarray], np.ndarray]

BLOCK_CHUNKS = 1000
_ROWS_PER_STATEMENT = 300
TITLE_WEIGHT = 0.5
K1, B = 1.2, 0.75

#: one chunk in a term's row of a block, as stored (12 bytes, little-endian)
POSTING = np.dtype([("offset", "<u4"), ("weight", "<f4"), ("length", "<u4")])


class Lexicon:
    """The lexical index of one knowledge base, on a session of either backend.

    Writes run inside the caller's unit of work, beside the chunk rows they index.
    """

    def __init__(self, db: Session) -> None:
        self._db = db

    def index_documents(self, document_ids: Sequence[str]) -> None:
        """Index the chunks of these documents, just written (their ``seq`` are above
        every chunk indexed so far)."""
        for page in in_pages(document_ids):
            marks = ", ".join("?" * len(page))
            self.add(self._db.execute(
                f"SELECT seq, text, title FROM kb_chunks WHERE document_id IN ({marks})"
                " ORDER BY seq", page,
            ).fetchall())  # fmt: skip

    def index_all(self) -> None:
        """Index every chunk of a knowledge base that has no lexical index yet."""
        after = 0
        while rows := self._db.execute(
            "SELECT seq, text, title FROM kb_chunks WHERE seq > ? ORDER BY seq LIMIT ?",
            (after, BLOCK_CHUNKS),
        ).fetchall():
            self.add(rows)
            after = int(rows[-1]["seq"])

    def remove_documents(self, document_ids: Sequence[str]) -> None:
        """Drop the chunks of these documents from the index (before their rows go)."""
        seqs: list[int] = []
        for page in in_pages(document_ids):
            marks = ", ".join("?" * len(page))
            seqs += [
                int(r["seq"])
                for r in self._db.execute(
                    f"SELECT seq FROM kb_chunks WHERE document_id IN ({marks})", page
                )
            ]
        self.remove(seqs)

    def add(self, rows: Sequence[Row]) -> None:
        """Index chunk rows (``seq``, ``text``, ``title``) in ``seq`` order, all above every
        chunk indexed so far. The last block is filled up first, so that many small
        writes do not leave many small blocks for every search to read."""
        if not rows:
            return
        last = self._db.execute(
            "SELECT block, chunks FROM kb_lexicon_blocks ORDER BY block DESC LIMIT 1"
        ).fetchone()
        start = 0
        if last is not None and int(last["chunks"]) < BLOCK_CHUNKS:
            start = BLOCK_CHUNKS - int(last["chunks"])
            self._write_block(int(last["block"]), rows[:start], extend=True)
        for first in range(start, len(rows), BLOCK_CHUNKS):
            part = rows[first : first + BLOCK_CHUNKS]
            self._write_block(int(part[0]["seq"]), part, extend=False)

    def _write_block(self, block: int, rows: Sequence[Row], *, extend: bool) -> None:
        """Write the postings of ``rows`` into ``block``: a new block, or (``extend``) the
        existing last one, whose rows of the same terms are appended to."""
        postings, total = _postings(block, rows)
        existing: dict[str, np.ndarray] = {}
        if extend:
            self._db.execute(
                "UPDATE kb_lexicon_blocks SET chunks = chunks + ?, terms = terms + ?"
                " WHERE block = ?",
                (len(rows), total, block),
            )
            existing = self._postings_of(block, list(postings))
        else:
            self._db.execute(
                "INSERT INTO kb_lexicon_blocks (block, chunks, terms) VALUES (?, ?, ?)",
                (block, len(rows), total),
            )
        for term in existing:
            postings[term] = np.concatenate([existing[term], postings[term]])
        self._store(block, postings)

    def _store(self, block: int, postings: dict[str, np.ndarray]) -> None:
        """Set the rows of these terms in ``block``: empty ones deleted, the others written
        in statements of many rows (one round trip each on a server)."""
        empty = [term for term, entries in postings.items() if not len(entries)]
        for page in in_pages(empty):
            marks = ", ".join("?" * len(page))
            self._db.execute(
                f"DELETE FROM kb_postings WHERE block = ? AND term IN ({marks})", [block, *page]
            )
        rows = [
            (term, block, entries.tobytes()) for term, entries in postings.items() if len(entries)
        ]
        for start in range(0, len(rows), _ROWS_PER_STATEMENT):
            values = rows[start : start + _ROWS_PER_STATEMENT]
            self._db.execute(
                "INSERT INTO kb_postings (term, block, postings) VALUES "
                + ", ".join(["(?, ?, ?)"] * len(values))
                + " ON CONFLICT (term, block) DO UPDATE SET postings = excluded.postings",
                [value for row in values for value in row],
            )

    def _postings_of(self, block: int, terms: Sequence[str]) -> dict[str, np.ndarray]:
        found = {}
        for page in in_pages(terms):
            marks = ", ".join("?" * len(page))
            for row in self._db.execute(
                f"SELECT term, postings FROM kb_postings WHERE block = ? AND term IN ({marks})",
                [block, *page],
            ):
                found[row["term"]] = np.frombuffer(row["postings"], dtype=POSTING)
        return found

    def remove(self, seqs: Iterable[int]) -> None:
        """Drop these chunks from the index (each block that held one is rewritten once)."""
        gone = np.unique(np.fromiter(seqs, dtype=np.int64))
        if not len(gone):
            return
        blocks = np.array(
            [r["block"] for r in self._db.execute("SELECT block FROM kb_lexicon_blocks")],
            dtype=np.int64,
        )
        blocks.sort()
        owner = np.searchsorted(blocks, gone, side="right") - 1
        for index in np.unique(owner[owner >= 0]):
            block = int(blocks[index])
            self._remove_from(block, gone[owner == index] - block)

    def _remove_from(self, block: int, gone: np.ndarray) -> None:
        rows = self._db.execute(
            "SELECT term, postings FROM kb_postings WHERE block = ?", (block,)
        ).fetchall()
        lengths: dict[int, int] = {}
        changed: dict[str, np.ndarray] = {}
        for row in rows:
            postings = np.frombuffer(row["postings"], dtype=POSTING)
            drop = np.isin(postings["offset"], gone)
            if drop.any():
                dropped = postings[drop]
                offsets, counts = dropped["offset"].tolist(), dropped["length"].tolist()
                lengths.update(zip(offsets, counts, strict=True))
                changed[row["term"]] = postings[~drop]
        self._store(block, changed)
        self._db.execute(
            "UPDATE kb_lexicon_blocks SET chunks = chunks - ?, terms = terms - ? WHERE block = ?",
            (len(gone), sum(lengths.values()), block),
        )
        self._db.execute("DELETE FROM kb_lexicon_blocks WHERE block = ? AND chunks <= 0", (block,))

    def search(
        self, query: str, k: int, readable: Readable | None = None, readable_chunks: int = 0
    ) -> list[Hit]:
        """The ``k`` best chunks for the content terms of ``query`` by BM25, best first,
        ties in insertion order; a chunk holding none of the terms is never returned.
        ``readable``: which of a list of chunk seqs the caller may read (the store's
        check of their access labels); the best-ranked are checked in growing pages
        until ``k`` are found, so a caller with few grants still gets ``k`` chunks when
        they hold that many. ``readable_chunks``, when the store knows it: how many chunks
        the caller may read, so that the first page is large enough to hold ``k`` of them
        (one check instead of several: each costs the store a statement)."""
        terms = list(dict.fromkeys(lexical_terms(query)))
        if not terms or k <= 0:
            return []
        stats = self._db.execute(
            "SELECT COALESCE(SUM(chunks), 0) AS chunks, COALESCE(SUM(terms), 0) AS terms"
            " FROM kb_lexicon_blocks"
        ).fetchone()
        chunks, average = int(stats["chunks"]), int(stats["terms"]) / max(int(stats["chunks"]), 1)
        marks = ", ".join("?" * len(terms))
        rows = self._db.execute(
            f"SELECT term, block, postings FROM kb_postings WHERE term IN ({marks})"
            " ORDER BY term, block",  # the same order, so the same float sums, on both backends
            terms,
        ).fetchall()
        by_term: dict[str, list[Any]] = {}
        for row in rows:
            by_term.setdefault(row["term"], []).append(row)
        seqs, scores = [], []
        for parts in by_term.values():  # each term's blocks, read as one array
            postings = np.frombuffer(b"".join(r["postings"] for r in parts), dtype=POSTING)
            sizes = [len(r["postings"]) // POSTING.itemsize for r in parts]
            blocks = np.repeat(np.array([int(r["block"]) for r in parts], dtype=np.int64), sizes)
            idf = math.log(1 + (chunks - len(postings) + 0.5) / (len(postings) + 0.5))
            weight = postings["weight"].astype(np.float64)
            norm = K1 * (1 - B + B * postings["length"] / average)
            seqs.append(blocks + postings["offset"])
            scores.append(idf * weight * (K1 + 1) / (weight + norm))
        if not seqs:
            return []
        unique, totals = _sums(np.concatenate(seqs), np.concatenate(scores))
        if readable is None:
            best = _top(unique, totals, k)
        else:
            share = readable_chunks / chunks if 0 < readable_chunks < chunks else 1.0
            best = self._top_readable(unique, totals, k, readable, first=math.ceil(2 * k / share))
        if not best:
            return []
        marks = ", ".join("?" * len(best))
        ids = {
            int(r["seq"]): r["id"]
            for r in self._db.execute(
                f"SELECT seq, id FROM kb_chunks WHERE seq IN ({marks})", [s for s, _ in best]
            )
        }
        return [Hit(ids[seq], score) for seq, score in best]

    def _top_readable(
        self, unique: np.ndarray, totals: np.ndarray, k: int, readable: Readable, first: int
    ) -> list[tuple[int, float]]:
        """The ``k`` best chunks the caller may read: the ranking walked best first, a
        page of seqs checked at a time, the first at least ``first``, each page four
        times the last."""
        order = np.lexsort((unique, -totals))
        best: list[tuple[int, float]] = []
        start, size = 0, max(4 * k, 256, first)
        while len(best) < k and start < len(order):
            picks = order[start : start + size]
            picks = picks[readable(unique[picks])]
            best += [(int(unique[i]), float(totals[i])) for i in picks]
            start, size = start + size, size * 4
        return best[:k]


def _sums(seqs: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each chunk's seq (ascending) and its scores summed over the query's terms."""
    low = int(seqs.min())
    span = int(seqs.max()) - low + 1
    if span <= 8 * len(seqs):  # dense enough: add up in an array indexed by seq
        sums = np.bincount(seqs - low, weights=scores, minlength=span)
        held = np.zeros(span, dtype=bool)
        held[seqs - low] = True
        unique = np.flatnonzero(held)
        return unique + low, sums[unique]
    unique, inverse = np.unique(seqs, return_inverse=True)
    return unique, np.bincount(inverse, weights=scores)


def _top(unique: np.ndarray, totals: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` best of the summed scores, ties in seq order."""
    if len(totals) > k:  # every chunk tied with the k-th stays for the tie-break
        kth = np.partition(totals, len(totals) - k)[len(totals) - k]
        keep = np.flatnonzero(totals >= kth)
        unique, totals = unique[keep], totals[keep]
    order = np.lexsort((unique, -totals))[:k]
    return [(int(unique[i]), float(totals[i])) for i in order]


def _postings(block: int, rows: Sequence[Row]) -> tuple[dict[str, np.ndarray], int]:
    """Each term's postings among chunk ``rows`` (in ``seq`` order), and the rows' total
    length in terms."""
    found: dict[str, list[tuple[int, float, int]]] = {}
    total = 0
    for row in rows:
        text = Counter(lexical_terms(row["text"]))
        title = Counter(lexical_terms(row["title"] or ""))
        length = text.total() + title.total()
        total += length
        offset = int(row["seq"]) - block
        for term in text | title:
            weight = text[term] + TITLE_WEIGHT * title[term]
            found.setdefault(term, []).append((offset, weight, length))
    return {term: np.array(entries, dtype=POSTING) for term, entries in found.items()}, total
