"""The knowledge base on both backends: atomic replace, dense search (exact on SQLite,
HNSW on PostgreSQL), lexical search (BM25 postings, the same on both)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assay import InvalidInputError, NotFoundError, SourceRegistry
from assay.documents import Chunk, chunk_id, document_id
from assay.store import open_database
from assay.store.base import Store, StoredDocument

DIM = 8


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def make_doc(uri: str, texts: list[str], source: str = "sds") -> tuple[StoredDocument, list[Chunk]]:
    doc_id = document_id(source, uri)
    chunks = [
        Chunk(
            id=chunk_id(doc_id, t),
            document_id=doc_id,
            source_id=source,
            ordinal=i,
            text=t,
            title="Doc",
            location=f"paragraph {i + 1}",
            uri=uri,
        )
        for i, t in enumerate(texts)
    ]
    doc = StoredDocument(
        id=doc_id,
        source_id=source,
        uri=uri,
        title="Doc",
        content_hash="h",
        published=None,
        verified=None,
        chunk_count=len(chunks),
        embedder="test@1",
    )
    return doc, chunks


def put(store: Store, doc: StoredDocument, chunks: list[Chunk], vectors: np.ndarray) -> None:
    store.sync_file(doc.uri, [(doc, chunks, vectors)])


@pytest.fixture
def store(database: Path | str) -> Iterator[Store]:
    db = open_database(database)
    SourceRegistry(db).add("sds", "official")
    yield db.knowledge
    db.close()


def test_replace_get_and_vectors_round_trip(store: Store) -> None:
    doc, chunks = make_doc("a.md", ["Charge between 0 and 45 degrees.", "Store below 35 degrees."])
    vectors = unit(np.random.default_rng(0).normal(size=(2, DIM)))
    put(store, doc, chunks, vectors)
    assert store.get([chunks[1].id, chunks[0].id]) == [chunks[1], chunks[0]]
    np.testing.assert_array_equal(store.vectors([chunks[0].id]), vectors[:1])
    assert store.stats().chunks == 2 and store.stats().embedder == "test@1"
    assert store.document(doc.id) is not None and store.document(doc.id).chunk_count == 2


def test_replacing_a_document_drops_its_old_chunks(store: Store) -> None:
    doc, chunks = make_doc("a.md", ["old one", "old two"])
    put(store, doc, chunks, unit(np.ones((2, DIM))))
    doc2, chunks2 = make_doc("a.md", ["new text"])
    put(store, doc2, chunks2, unit(np.ones((1, DIM))))
    assert store.stats().chunks == 1
    assert [h.chunk_id for h in store.lexical_search("old", 5)] == []
    assert [h.chunk_id for h in store.lexical_search("new text", 5)] == [chunks2[0].id]
    with pytest.raises(NotFoundError):
        store.get([chunks[0].id])


def test_a_failed_replace_keeps_the_old_document(store: Store) -> None:
    doc, chunks = make_doc("a.md", ["kept text"])
    put(store, doc, chunks, unit(np.ones((1, DIM))))
    doc2, chunks2 = make_doc("a.md", ["new one", "new two"])
    with pytest.raises(InvalidInputError):
        put(store, doc2, chunks2, unit(np.ones((1, DIM))))  # one vector short
    assert store.get([chunks[0].id])[0].text == "kept text"


def test_a_failure_inside_the_transaction_rolls_back_the_whole_file(store: Store) -> None:
    first, first_chunks = make_doc("a.md", ["first record"])
    put(store, first, first_chunks, unit(np.ones((1, DIM))))
    changed, changed_chunks = make_doc("a.md", ["first record, changed"])
    wrong, wrong_chunks = make_doc("a.md#2", ["second record"])
    wrong = replace(wrong, embedder="other@2")  # fails in the middle of the write
    with pytest.raises(InvalidInputError, match="does not match the knowledge base"):
        store.sync_file(
            "a.md",
            [
                (changed, changed_chunks, unit(np.ones((1, DIM)))),
                (wrong, wrong_chunks, unit(np.ones((1, DIM)))),
            ],
        )
    assert store.get([first_chunks[0].id])[0].text == "first record"
    assert store.stats().chunks == 1


def test_documents_a_file_no_longer_holds_are_dropped(store: Store) -> None:
    one, one_chunks = make_doc("posts.jsonl#1", ["post one"])
    two, two_chunks = make_doc("posts.jsonl#2", ["post two"])
    store.sync_file(
        "posts.jsonl",
        [(one, one_chunks, unit(np.ones((1, DIM)))), (two, two_chunks, unit(np.ones((1, DIM))))],
    )
    assert store.sync_file("posts.jsonl", [], keep=[one.id]) == 1
    assert store.document(two.id) is None and store.document(one.id) is not None
    assert [h.chunk_id for h in store.lexical_search("post", 5)] == [one_chunks[0].id]


def test_dense_search_matches_brute_force(store: Store) -> None:
    rng = np.random.default_rng(7)
    texts = [f"passage number {i}" for i in range(300)]
    vectors = unit(rng.normal(size=(300, DIM)))
    doc, chunks = make_doc("many.md", texts)
    put(store, doc, chunks, vectors)
    for _ in range(5):
        query = unit(rng.normal(size=(1, DIM)))[0]
        expected = np.argsort(-(vectors @ query))[:10]
        hits = store.dense_search(query, 10)
        assert [h.chunk_id for h in hits] == [chunks[i].id for i in expected]
        assert hits[0].score == pytest.approx(float(vectors[expected[0]] @ query), abs=1e-6)


def test_dense_index_sees_writes_from_another_connection(
    store: Store, database: Path | str
) -> None:
    doc, chunks = make_doc("a.md", ["first"])
    put(store, doc, chunks, unit(np.ones((1, DIM))))
    assert len(store.dense_search(unit(np.ones((1, DIM)))[0], 5)) == 1
    other = open_database(database).knowledge
    doc2, chunks2 = make_doc("b.md", ["second"])
    put(other, doc2, chunks2, unit(np.ones((1, DIM))))
    assert len(store.dense_search(unit(np.ones((1, DIM)))[0], 5)) == 2


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ('"quoted" AND (charge OR', True),
        ("NEAR(charge*)", True),
        ("col:umn - ^", False),
        ("ünïcode", True),
    ],
)
def test_lexical_search_never_breaks_on_query_syntax(store: Store, query: str, found: bool) -> None:
    """Whatever the user typed is searched as words, never parsed as query syntax."""
    doc, chunks = make_doc("a.md", ["charge the unicode pack"])
    put(store, doc, chunks, unit(np.ones((1, DIM))))
    hits = [h.chunk_id for h in store.lexical_search(query, 5)]
    assert hits == ([chunks[0].id] if found else [])


def test_lexical_search_stems_and_ignores_stopwords(store: Store) -> None:
    doc, chunks = make_doc("a.md", ["Charging the batteries safely.", "Pythons migrate."])
    put(store, doc, chunks, unit(np.ones((2, DIM))))
    assert [h.chunk_id for h in store.lexical_search("how to charge a battery", 5)] == [
        chunks[0].id
    ]
    assert store.lexical_search("the of and", 5) == []


def test_duplicate_passages_in_one_document_are_stored_once(store: Store) -> None:
    doc, chunks = make_doc("a.md", ["Warning: hot.", "Body text.", "Warning: hot."])
    put(store, doc, chunks, unit(np.ones((3, DIM))))
    assert store.stats().chunks == 2


def test_store_is_bound_to_its_embedder(store: Store) -> None:
    doc, chunks = make_doc("a.md", ["text"])
    put(store, doc, chunks, unit(np.ones((1, DIM))))
    other_doc = replace(doc, id="x", uri="b.md", embedder="other@2")
    with pytest.raises(InvalidInputError, match="was embedded with 'test@1'"):
        put(store, other_doc, [], np.zeros((0, DIM), dtype=np.float32))


def test_delete_document(store: Store) -> None:
    doc, chunks = make_doc("a.md", ["text"])
    put(store, doc, chunks, unit(np.ones((1, DIM))))
    assert store.delete_document(doc.id) is True
    assert store.delete_document(doc.id) is False
    assert store.stats().chunks == 0 and store.dense_search(unit(np.ones((1, DIM)))[0], 3) == []


def test_the_vector_matrix_is_mapped_from_its_file_by_the_next_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store opened later maps the matrix file the first one wrote, never reading the
    vectors from the database again, until a write changes the knowledge base."""
    db = open_database(tmp_path / "kb.db")
    SourceRegistry(db).add("sds", "official")
    rng = np.random.default_rng(3)
    doc, chunks = make_doc("a.md", [f"passage {i}" for i in range(50)])
    vectors = unit(rng.normal(size=(50, DIM)))
    put(db.knowledge, doc, chunks, vectors)
    query = unit(rng.normal(size=(1, DIM)))[0]
    expected = [h.chunk_id for h in db.knowledge.dense_search(query, 5)]
    assert len(list((tmp_path / "kb.db-vectors").glob("*.npy"))) == 3  # ids, seqs, matrix
    from assay.store.sqlite import vectors as vector_files

    with monkeypatch.context() as patch:
        patch.setattr(vector_files, "_Query", lambda *_: pytest.fail("read from the database"))
        again = open_database(tmp_path / "kb.db")
        assert [h.chunk_id for h in again.knowledge.dense_search(query, 5)] == expected
    doc2, chunks2 = make_doc("b.md", ["the nearest one"])
    put(again.knowledge, doc2, chunks2, query.reshape(1, -1))
    assert db.knowledge.dense_search(query, 1)[0].chunk_id == chunks2[0].id  # caught up
    db.close()
    again.close()


def test_the_vector_matrix_catches_up_by_reading_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After writes and deletions (a freed seq taken again included), dense search equals
    brute force over what is stored, reading from the database only the rows added since
    the matrix file; once the changes reach a tenth of it, a new file replaces it."""
    from assay.store.sqlite import vectors as vector_files

    db = open_database(tmp_path / "kb.db")
    SourceRegistry(db).add("sds", "official")
    store = db.knowledge
    rng = np.random.default_rng(5)
    stored: dict[str, tuple[list[Chunk], np.ndarray]] = {}

    def write(uri: str, n: int) -> None:
        doc, chunks = make_doc(uri, [f"{uri} passage {i}" for i in range(n)])
        vectors = unit(rng.normal(size=(n, DIM)))
        put(store, doc, chunks, vectors)
        stored[uri] = (chunks, vectors)

    for f in range(10):
        write(f"f{f}.md", 20)
    store.dense_search(unit(np.ones((1, DIM)))[0], 1)  # the first matrix file: 200 rows
    monkeypatch.setattr(vector_files, "REWRITE_FRACTION", 0.5)
    reads: list[int | None] = []

    class Query(vector_files._Query):
        def __init__(self, conn: Any, after_seq: int | None = None, after: int = 0) -> None:
            reads.append(after_seq)
            super().__init__(conn, after_seq, after)

    monkeypatch.setattr(vector_files, "_Query", Query)
    changes = ["delete f9.md", "add f9.md 20", "delete f3.md", "add g.md 3", "add h.md 40"]
    for step, change in enumerate(changes):
        verb, uri, *n = change.split()
        if verb == "delete":
            store.sync_file(uri, [])
            del stored[uri]
        else:
            write(uri, int(n[0]))
        ids = [c.id for chunks, _ in stored.values() for c in chunks]
        matrix = np.vstack([v for _, v in stored.values()])
        for _ in range(3):
            query = unit(rng.normal(size=(1, DIM)))[0]
            expected = [ids[i] for i in np.argsort(-(matrix @ query))[:15]]
            assert [h.chunk_id for h in store.dense_search(query, 15)] == expected, change
        assert None not in reads, "the whole matrix was read again"
        files = sorted(p.name for p in (tmp_path / "kb.db-vectors").glob("*.npy"))
        assert len(files) == 3
        rewritten = step == 4  # 20 + 20 + 20 + 3 + 40 changed rows reach half of 200
        assert (files[0].split(".")[0] == db.knowledge._meta("generation")) == rewritten  # type: ignore[attr-defined]
    db.close()


def test_a_matrix_file_the_database_does_not_know_is_never_used(tmp_path: Path) -> None:
    """A database restored from an older copy must not search the vectors of its future."""
    import shutil

    db = open_database(tmp_path / "kb.db")
    SourceRegistry(db).add("sds", "official")
    doc, chunks = make_doc("a.md", ["one", "two"])
    put(db.knowledge, doc, chunks, unit(np.eye(2, DIM)))
    db.close()
    shutil.copy(tmp_path / "kb.db", tmp_path / "backup.db")
    db = open_database(tmp_path / "kb.db")
    doc2, chunks2 = make_doc("b.md", ["three"])
    put(db.knowledge, doc2, chunks2, unit(np.eye(3, DIM)[2:]))
    assert db.knowledge.dense_search(unit(np.eye(3, DIM)[2:])[0], 1)[0].chunk_id == chunks2[0].id
    db.close()
    shutil.copytree(tmp_path / "kb.db-vectors", tmp_path / "backup.db-vectors")
    restored = open_database(tmp_path / "backup.db")
    hits = restored.knowledge.dense_search(unit(np.eye(3, DIM)[2:])[0], 5)
    assert {h.chunk_id for h in hits} == {c.id for c in chunks}
    restored.close()


def test_a_damaged_matrix_file_is_rebuilt_from_the_database(tmp_path: Path) -> None:
    db = open_database(tmp_path / "kb.db")
    SourceRegistry(db).add("sds", "official")
    doc, chunks = make_doc("a.md", ["one", "two"])
    put(db.knowledge, doc, chunks, unit(np.eye(2, DIM)))
    db.knowledge.dense_search(unit(np.eye(1, DIM))[0], 1)
    for path in (tmp_path / "kb.db-vectors").glob("*.matrix.npy"):
        path.write_bytes(b"not an array")
    again = open_database(tmp_path / "kb.db")
    assert again.knowledge.dense_search(unit(np.eye(1, DIM))[0], 1)[0].chunk_id == chunks[0].id
    db.close()
    again.close()


def test_a_document_given_twice_in_one_batch_is_stored_as_given_last(store: Store) -> None:
    first, first_chunks = make_doc("a.jsonl#1", ["the first version"])
    second, second_chunks = make_doc("a.jsonl#1", ["the second version"])
    store.sync_file(
        "a.jsonl",
        [
            (first, first_chunks, unit(np.ones((1, DIM)))),
            (second, second_chunks, unit(np.ones((1, DIM)))),
        ],
    )
    assert store.stats().chunks == 1
    assert [h.chunk_id for h in store.lexical_search("version", 5)] == [second_chunks[0].id]
