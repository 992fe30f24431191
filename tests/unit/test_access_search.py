"""Search filtered by access labels, on both backends (issue 44).

A property test: for any labels on the documents, any relabelling and any caller's
grants, no dense or lexical result holds a chunk the caller may not read, and the
caller gets as many results as they may read (up to ``k``): the filter runs inside
the search, not on a top-k that may come back empty. On SQLite the dense results are
exactly the brute-force top-k over the readable chunks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay import SourceRegistry
from assay.access import EVERYTHING, Access
from assay.store import open_database
from assay.store.base import Store, VectorIndexOptions
from assay.store.postgres import knowledge as postgres_knowledge
from assay.store.postgres.label_indexes import create_label_index, drop_label_index
from tests.unit.test_store import DIM, make_doc, unit

LABELS = ["hr", "legal", "deal", "ward-7"]
WORDS = "amber basalt cobalt delta ember fjord garnet harbor".split()
DOCUMENTS = 12
CHUNKS = 5


@pytest.fixture
def labelled(database: Path | str) -> Iterator[tuple[Store, dict[str, np.ndarray]]]:
    """A knowledge base of 12 documents of 5 chunks each, sharing words and directions,
    so that any query finds chunks of many documents; the vectors by chunk id."""
    db = open_database(database)
    SourceRegistry(db).add("sds", "official")
    rng = np.random.default_rng(44)
    vectors: dict[str, np.ndarray] = {}
    for d in range(DOCUMENTS):
        texts = [" ".join(rng.choice(WORDS, 4)) + f" note {d} {c}" for c in range(CHUNKS)]
        doc, chunks = make_doc(f"doc{d}.md", texts)
        doc = replace(doc, access=tuple(sorted(set(rng.choice(LABELS, d % 3)))))
        rows = unit(rng.normal(size=(CHUNKS, DIM)))
        db.knowledge.sync_file(doc.uri, [(doc, chunks, rows)])
        vectors |= {c.id: v for c, v in zip(chunks, rows, strict=True)}
    yield db.knowledge, vectors
    db.close()


#: a caller's grants, a document relabelled first (index, labels), a query's seed, k
Case = tuple[set[str], tuple[int, set[str]], int, int]
CASES = st.tuples(
    st.sets(st.sampled_from(LABELS)),
    st.tuples(st.integers(0, DOCUMENTS - 1), st.sets(st.sampled_from(LABELS))),
    st.integers(0, 2**31),
    st.integers(1, 40),
)


def _examples(n: int) -> settings:
    """``n`` hypothesis examples on the module's knowledge base (built once per test)."""
    return settings(
        max_examples=n, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )


@_examples(25)
@given(case=CASES)
def test_no_search_result_is_outside_the_callers_grants(
    labelled: tuple[Store, dict[str, np.ndarray]], case: Case
) -> None:
    _holds(labelled, *case)


@_examples(15)
@given(case=CASES)
def test_postgres_graph_walk_holds_the_grants_too(
    labelled: tuple[Store, dict[str, np.ndarray]], monkeypatch: pytest.MonkeyPatch, case: Case
) -> None:
    """PostgreSQL searches a small readable set exactly; with that off, the filtered
    HNSW walk (and its exact fallback when the graph runs out) must hold as well."""
    if type(labelled[0]).__name__ != "PostgresStore":
        pytest.skip("PostgreSQL's filtered index scan")
    monkeypatch.setattr(postgres_knowledge, "EXACT_UP_TO", 0)
    _holds(labelled, *case)


@_examples(15)
@given(case=CASES, indexed=st.sets(st.sampled_from(LABELS), min_size=1))
def test_postgres_label_indexes_hold_the_grants_too(
    labelled: tuple[Store, dict[str, np.ndarray]],
    monkeypatch: pytest.MonkeyPatch,
    case: Case,
    indexed: set[str],
) -> None:
    """With label indexes built (each example's relabel may then make a label set that
    an index does not cover), a grant's chunks come from its labels' own graphs and the
    filtered walk of the rest, merged: still nothing outside the grant, and all of it."""
    if type(labelled[0]).__name__ != "PostgresStore":
        pytest.skip("PostgreSQL's label indexes")
    monkeypatch.setattr(postgres_knowledge, "EXACT_UP_TO", 0)
    session = labelled[0]._db  # type: ignore[attr-defined]
    for label in LABELS:
        drop_label_index(session, label)
    for label in indexed:
        if any(label in d.access for d in labelled[0].list_documents()):
            create_label_index(session, label, VectorIndexOptions())
    _holds(labelled, *case)


def _holds(
    labelled: tuple[Store, dict[str, np.ndarray]],
    grants: set[str],
    relabel: tuple[int, set[str]],
    query: int,
    k: int,
) -> None:
    store, vectors = labelled
    target = next(d for d in store.list_documents() if d.uri == f"doc{relabel[0]}.md")
    assert store.relabel(target.id, frozenset(relabel[1]))
    access = Access(frozenset(grants))
    readable = {cid for cid in vectors if access.may_read(_labels_of(store, cid))}
    vector = unit(np.random.default_rng(query).normal(size=(1, DIM)))[0]
    dense = [h.chunk_id for h in store.dense_search(vector, k, access)]
    assert set(dense) <= readable
    assert len(dense) == min(k, len(readable))
    if type(store).__name__ == "SQLiteStore":  # exact search; PostgreSQL's is approximate
        exact = sorted(readable, key=lambda c: -float(vectors[c] @ vector))[:k]
        assert dense == exact
    word = WORDS[query % len(WORDS)]
    lexical = [h.chunk_id for h in store.lexical_search(word, k, access)]
    holding = {h.chunk_id for h in store.lexical_search(word, 1000)} & readable
    assert set(lexical) <= readable
    assert len(lexical) == min(k, len(holding))
    everything = [h.chunk_id for h in store.lexical_search(word, 1000, EVERYTHING)]
    assert [c for c in everything if c in holding][: len(lexical)] == lexical


def _labels_of(store: Store, chunk_id: str) -> tuple[str, ...]:
    chunk = store.get([chunk_id])[0]
    document = store.document(chunk.document_id)
    assert document is not None
    return document.access


def test_a_relabelled_document_is_searched_under_its_new_labels(
    labelled: tuple[Store, dict[str, np.ndarray]],
) -> None:
    store, vectors = labelled
    doc = next(d for d in store.list_documents() if d.uri == "doc0.md")
    assert doc.access == ()
    hr = Access(frozenset({"hr"}))
    chunk = next(
        c for c in vectors if _labels_of(store, c) == () and store.get([c])[0].uri == "doc0.md"
    )
    assert chunk in {h.chunk_id for h in store.dense_search(vectors[chunk], 3, Access())}
    assert store.relabel(doc.id, frozenset({"legal"}))
    assert store.document(doc.id).access == ("legal",)  # type: ignore[union-attr]
    assert chunk not in {h.chunk_id for h in store.dense_search(vectors[chunk], 60, hr)}
    assert chunk not in {h.chunk_id for h in store.lexical_search("note 0", 60, hr)}
    assert chunk in {h.chunk_id for h in store.dense_search(vectors[chunk], 1, EVERYTHING)}
    assert not store.relabel("no-such-document", frozenset())
