"""Label indexes on PostgreSQL (issue 44): a granted label's chunks are searched in that
label's own partial HNSW index, the rest of what the caller may read by the filtered
walk, and the two lists merged; an index only ever changes how fast a search runs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import psycopg
import pytest
from click.testing import CliRunner

from assay.access import Access
from assay.cli.main import cli
from assay.sources import SourceRegistry
from assay.store import open_database
from assay.store.base import Store, VectorIndexOptions
from assay.store.postgres import knowledge as postgres_knowledge
from assay.store.postgres.connection import translate
from assay.store.postgres.knowledge import DENSE_SEARCH_LABEL, vector_literal
from assay.store.postgres.label_indexes import create_label_index, index_name, label_indexes
from tests.unit.test_store import DIM, make_doc, unit

#: labels of the five documents: two large ones carry ``big``, one ``big`` and ``hr``
LABELLED = ((), ("big",), ("big",), ("hr",), ("big", "hr"))
CHUNKS = 40


def _write(store: Store, uri: str, labels: tuple[str, ...], rng: np.random.Generator) -> dict:
    doc, chunks = make_doc(uri, [f"{uri} passage {i}" for i in range(CHUNKS)])
    rows = unit(rng.normal(size=(CHUNKS, DIM)))
    store.sync_file(uri, [(replace(doc, access=labels), chunks, rows)])
    return {c.id: (v, labels) for c, v in zip(chunks, rows, strict=True)}


def _exact(chunks: dict, access: Access, vector: np.ndarray, k: int) -> list[str]:
    readable = [cid for cid, (_, labels) in chunks.items() if access.may_read(labels)]
    return sorted(readable, key=lambda cid: -float(chunks[cid][0] @ vector))[:k]


def test_a_label_index_serves_its_label_and_the_rest_is_still_found(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_knowledge, "EXACT_UP_TO", 0)  # the walk, not a compare-all
    db = open_database(postgres_url)
    SourceRegistry(db).add("sds", "official")
    rng = np.random.default_rng(44)
    chunks: dict = {}
    for i, labels in enumerate(LABELLED):
        chunks |= _write(db.knowledge, f"doc{i}.md", labels, rng)
    session = db.knowledge._db  # type: ignore[attr-defined]
    built = create_label_index(session, "big", VectorIndexOptions())
    assert (built.chunks_now, built.label_chunks_now) == (3 * CHUNKS, 3 * CHUNKS)

    # a later document whose label combination the index does not cover
    chunks |= _write(db.knowledge, "late.md", ("big", "legal"), rng)
    (stale,) = label_indexes(session, counts=True)
    assert (stale.chunks_now, stale.label_chunks_now) == (3 * CHUNKS, 4 * CHUNKS)

    for grants in ({"big"}, {"big", "hr"}, {"hr"}):
        access = Access(frozenset(grants))
        for seed in range(5):
            vector = unit(np.random.default_rng(seed).normal(size=(1, DIM)))[0]
            for k in (5, 200):
                found = [h.chunk_id for h in db.knowledge.dense_search(vector, k, access)]
                assert found == _exact(chunks, access, vector, k), (grants, seed, k)
    late = next(c for c, (_, labels) in chunks.items() if "legal" in labels)
    hits = db.knowledge.dense_search(chunks[late][0], 1, Access(frozenset({"big"})))
    assert [h.chunk_id for h in hits] == [late]  # found outside the index, by the walk
    db.close()


def test_the_label_search_walks_the_partial_index(postgres_url: str) -> None:
    """Planned as a search at scale is (the planner compares a few hundred rows exactly)."""
    db = open_database(postgres_url)
    SourceRegistry(db).add("sds", "official")
    rng = np.random.default_rng(3)
    for i, labels in enumerate([(), ("big",), ("big",), ("hr",)] * 20):
        _write(db.knowledge, f"doc{i}.md", labels, rng)
    session = db.knowledge._db  # type: ignore[attr-defined]
    built = create_label_index(session, "big", VectorIndexOptions())
    literal = vector_literal(unit(rng.normal(size=(1, DIM)))[0])
    statement = translate(DENSE_SEARCH_LABEL.format(covers=built.predicate))
    with psycopg.connect(postgres_url) as conn:
        conn.execute("ANALYZE kb_chunks")
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + statement, (literal, literal, 5)))  # type: ignore[arg-type]
    assert index_name("big") in plan, plan
    assert "Filter" not in plan, plan  # the predicate is the index's: no row checked after
    db.close()


def test_cli_builds_lists_and_drops_label_indexes(postgres_url: str, tmp_path: Path) -> None:
    db = open_database(postgres_url)
    SourceRegistry(db).add("sds", "official")
    rng = np.random.default_rng(1)
    for i, labels in enumerate(LABELLED):
        _write(db.knowledge, f"doc{i}.md", labels, rng)
    db.close()
    runner = CliRunner()
    made = runner.invoke(cli, ["db", "label-index", "create", "BIG", "--db", postgres_url])
    assert made.exit_code == 0, made.output
    assert "label 'big': 120 chunks" in made.output
    listed = runner.invoke(cli, ["db", "label-index", "list", "--db", postgres_url, "--json"])
    assert '"label": "big"' in listed.output and '"chunks_covered": 120' in listed.output
    nobody = runner.invoke(cli, ["db", "label-index", "create", "legal", "--db", postgres_url])
    assert nobody.exit_code != 0 and "is carried by no document" in nobody.output
    dropped = runner.invoke(cli, ["db", "label-index", "drop", "big", "--db", postgres_url])
    assert dropped.exit_code == 0 and "dropped" in dropped.output
    again = runner.invoke(cli, ["db", "label-index", "drop", "big", "--db", postgres_url])
    assert again.exit_code != 0 and "has no label index" in again.output
    with psycopg.connect(postgres_url) as conn:
        names = conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'kb_chunks'")
        assert index_name("big") not in {r[0] for r in names}
    sqlite = runner.invoke(cli, ["db", "label-index", "list", "--db", str(tmp_path / "assay.db")])
    assert sqlite.exit_code != 0 and "label indexes are for PostgreSQL" in sqlite.output
