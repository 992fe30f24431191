"""Dense search on PostgreSQL goes through the HNSW index, and finds what exact search finds."""

from __future__ import annotations

import numpy as np
import psycopg

from assay.sources import SourceRegistry
from assay.store import open_database
from assay.store.postgres.connection import translate
from assay.store.postgres.knowledge import DENSE_SEARCH, vector_literal
from tests.unit.test_store import make_doc, put, unit

DIM = 32


def test_dense_search_uses_the_hnsw_index_and_keeps_recall(postgres_url: str) -> None:
    rng = np.random.default_rng(5)
    vectors = unit(rng.normal(size=(3000, DIM)))
    db = open_database(postgres_url)
    SourceRegistry(db).add("sds", "official")
    doc, chunks = make_doc("many.md", [f"passage {i}" for i in range(3000)])
    put(db.knowledge, doc, chunks, vectors)
    query = unit(rng.normal(size=(1, DIM)))[0]
    with psycopg.connect(postgres_url) as conn:
        conn.execute("ANALYZE kb_chunks")
        literal = vector_literal(query)
        plan = conn.execute("EXPLAIN " + translate(DENSE_SEARCH), (literal, literal, 10))  # type: ignore[arg-type]
        assert "kb_chunks_embedding" in "\n".join(r[0] for r in plan.fetchall())
    found = 0
    for _ in range(20):
        query = unit(rng.normal(size=(1, DIM)))[0]
        exact = {chunks[i].id for i in np.argsort(-(vectors @ query))[:10]}
        found += len(exact & {h.chunk_id for h in db.knowledge.dense_search(query, 10)})
    assert found / 200 >= 0.9
    db.close()
