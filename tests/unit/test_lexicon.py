"""Lexical search's BM25 postings (``assay.store.sql.lexicon``) on both backends, against
BM25 computed directly from the chunks that are stored, through writes that fill the
last block, whole new blocks, replaced documents and removed ones."""

from __future__ import annotations

import math
import random
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from assay import SourceRegistry
from assay.documents import Chunk, chunk_id, document_id
from assay.store import open_database
from assay.store.base import Store, StoredDocument
from assay.store.sql import lexicon
from assay.store.sql.knowledge_rows import INSERT_CHUNK, INSERT_DOCUMENT, chunk_rows, document_row
from assay.store.sqlite.knowledge import vector_blob
from assay.store.sqlite.migrations import MIGRATIONS
from assay.text import lexical_terms

WORDS = "amber basalt cobalt delta ember fjord garnet harbor indigo jasper kelp lumen".split()


def make_doc(uri: str, texts: list[str], title: str | None) -> tuple[StoredDocument, list[Chunk]]:
    doc_id = document_id("src", uri)
    chunks = [
        Chunk(
            id=chunk_id(doc_id, f"{i}:{t}"),
            document_id=doc_id,
            source_id="src",
            ordinal=i,
            text=t,
            title=title,
            location=f"part {i}",
            uri=uri,
        )
        for i, t in enumerate(texts)
    ]
    doc = StoredDocument(
        id=doc_id, source_id="src", uri=uri, title=title, content_hash=uri, published=None,
        verified=None, chunk_count=len(chunks), embedder="test@1",
    )  # fmt: skip
    return doc, chunks


def bm25_reference(chunks: dict[str, Chunk], query: str) -> dict[str, float]:
    """Okapi BM25 (Lucene's idf) computed from scratch over ``chunks``."""
    counted = {}
    for cid, c in chunks.items():
        text, title = Counter(lexical_terms(c.text)), Counter(lexical_terms(c.title or ""))
        weights = {t: text[t] + 0.5 * title[t] for t in text | title}
        counted[cid] = (weights, text.total() + title.total())
    average = sum(length for _, length in counted.values()) / max(len(counted), 1)
    scores: dict[str, float] = {}
    for term in dict.fromkeys(lexical_terms(query)):
        holding = [cid for cid, (w, _) in counted.items() if term in w]
        idf = math.log(1 + (len(chunks) - len(holding) + 0.5) / (len(holding) + 0.5))
        for cid in holding:
            w, length = counted[cid]
            norm = 1.2 * (1 - 0.75 + 0.75 * length / average)
            scores[cid] = scores.get(cid, 0.0) + idf * w[term] * 2.2 / (w[term] + norm)
    return scores


@pytest.fixture
def store(database: Path | str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    monkeypatch.setattr(lexicon, "BLOCK_CHUNKS", 7)  # many blocks from a small corpus
    db = open_database(database)
    SourceRegistry(db).add("src", "official")
    yield db.knowledge
    db.close()


def test_bm25_matches_a_direct_computation_through_writes_and_removals(store: Store) -> None:
    rng = random.Random(3)
    stored: dict[str, list[Chunk]] = {}

    def write(uri: str) -> None:
        texts = [
            " ".join(rng.choices(WORDS, k=rng.randint(1, 9)))
            + rng.choice(["", " harbors", " the indigos", " Ümber"])
            for _ in range(rng.randint(1, 12))
        ]
        doc, chunks = make_doc(uri, texts, rng.choice([None, "Garnet notes"]))
        store.sync_file(uri, [(doc, chunks, np.ones((len(chunks), 4), dtype=np.float32))])
        stored[uri] = chunks

    for step in range(40):
        action = rng.random()
        if action < 0.6 or len(stored) < 3:
            write(f"f{step}.md")
        elif action < 0.8:
            write(rng.choice(sorted(stored)))  # replaced: old chunks go, new ones come last
        else:
            uri = rng.choice(sorted(stored))
            assert store.sync_file(uri, []) == 1  # the file is emptied: its document goes
            del stored[uri]
        alive = {c.id: c for chunks in stored.values() for c in chunks}
        for query in ("amber", "basalt ember harbor", "the indigo umber", "garnet", "zircon"):
            expected = bm25_reference(alive, query)
            hits = store.lexical_search(query, 1000)
            assert {h.chunk_id for h in hits} == set(expected)
            for hit in hits:
                assert hit.score == pytest.approx(expected[hit.chunk_id], rel=1e-5)
            assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_top_k_keeps_ties_in_insertion_order(store: Store) -> None:
    doc, chunks = make_doc("a.md", [f"cobalt {w}" for w in WORDS if w != "cobalt"], None)
    store.sync_file("a.md", [(doc, chunks, np.ones((len(chunks), 4), dtype=np.float32))])
    hits = store.lexical_search("cobalt", 4)
    assert [h.chunk_id for h in hits] == [c.id for c in chunks[:4]]  # all tied, first written


def test_a_query_with_no_indexed_term_finds_nothing(store: Store) -> None:
    doc, chunks = make_doc("a.md", ["amber basalt"], None)
    store.sync_file("a.md", [(doc, chunks, np.ones((1, 4), dtype=np.float32))])
    assert store.lexical_search("zircon", 5) == []
    assert store.lexical_search("", 5) == []
    assert store.lexical_search("amber", 0) == []


def test_m012_indexes_a_knowledge_base_written_before_it(tmp_path: Path) -> None:
    """An SQLite file from before m012 (FTS5) is indexed by the migration, and searches as
    one written since."""
    texts = ["Charging the batteries", "amber harbor", "the harbor of amber, amber"]
    doc, chunks = make_doc("a.md", texts, "Harbor guide")
    vectors = np.ones((3, 4), dtype=np.float32)
    old = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    old.execute("CREATE TABLE _assay_migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    for name, migrate in MIGRATIONS[: [n for n, _ in MIGRATIONS].index("m012_lexicon")]:
        migrate(old)
        old.execute("INSERT INTO _assay_migrations VALUES (?, 'then')", (name,))
    old.execute(
        "INSERT INTO sources (id, kind, reliability, review_interval_days, version, created_at,"
        " updated_at) VALUES ('src', 'official', 1.0, 365, 1, 'then', 'then')"
    )
    # the rows as written before access labels (m019): no access columns
    old.execute(INSERT_DOCUMENT.replace(", access)", ")").replace(",?)", ")"),
                document_row("a.md", doc, 3)[:-1])  # fmt: skip
    old.executemany(
        INSERT_CHUNK.replace(" access_set,", "")
        .replace(",?,{vector}", ",{vector}")
        .format(vector="?"),
        [row[:-2] + row[-1:] for row in chunk_rows(doc, chunks, vectors, vector_blob)],
    )
    old.close()
    fresh = open_database(tmp_path / "new.db")
    SourceRegistry(fresh).add("src", "official")
    fresh.knowledge.sync_file("a.md", [(doc, chunks, vectors)])
    migrated = open_database(tmp_path / "old.db")
    for query in ("amber harbor", "charge battery", "guide"):
        expected = fresh.knowledge.lexical_search(query, 5)
        assert expected and migrated.knowledge.lexical_search(query, 5) == expected


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("Charging the Batteries", ["charg", "batteri"]),
        ("Café über naïve", ["cafe", "uber", "naiv"]),
        ("HX-40 at 4.5 kW", ["hx", "40", "4", "5", "kw"]),
        ("Anglo-Saxon aerodynamics", ["anglo", "saxon", "aerodynam"]),
        ("what is the", []),
    ],
)
def test_lexical_terms_fold_split_and_stem(text: str, terms: list[str]) -> None:
    assert lexical_terms(text) == terms


def test_a_grants_share_sizes_the_first_page_of_checks(store: Store) -> None:
    """Told how many chunks the caller may read (1 in 10 here), the ranking is checked
    in one page that holds k of them; untold, in growing pages (a statement each on
    PostgreSQL)."""
    doc, chunks = make_doc("a.md", [f"cobalt amber {i}" for i in range(2000)], None)
    store.sync_file("a.md", [(doc, chunks, np.ones((len(chunks), 4), dtype=np.float32))])
    pages: list[int] = []

    def every_tenth(seqs: np.ndarray) -> np.ndarray:
        pages.append(len(seqs))
        return np.asarray(seqs % 10 == 0)

    search = store._lexicon.search  # type: ignore[attr-defined]
    untold = search("cobalt", 50, every_tenth)
    assert len(untold) == 50 and len(pages) == 2
    pages.clear()
    told = search("cobalt", 50, every_tenth, readable_chunks=200)
    assert [h.chunk_id for h in told] == [h.chunk_id for h in untold]
    assert pages == [1000]
