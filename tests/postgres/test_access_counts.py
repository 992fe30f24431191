"""PostgreSQL keeps each label set's chunk count exact (migration m009), whatever writes
the chunks: a new file, a file written again with other chunks or labels, a relabelled
or deleted document. The counts decide whether a filtered search is exact or a graph
walk, so a drifting count would slow a search down or send a large grant to be compared
row by row; this test holds them to a ``GROUP BY`` after every write."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.sources import SourceRegistry
from assay.store import open_database
from tests.unit.test_store import DIM, make_doc, unit

LABELS = ["hr", "legal", "deal"]
FILES = 4

#: (operation, file index, labels, how many chunks)
Step = tuple[str, int, frozenset[str], int]
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["write", "relabel", "delete"]),
        st.integers(0, FILES - 1),
        st.frozensets(st.sampled_from(LABELS)),
        st.integers(1, 6),
    ),
    min_size=1,
    max_size=12,
)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS)
def test_label_set_counts_match_the_chunks_after_every_write(
    postgres_url: str, steps: list[Step]
) -> None:
    db = open_database(postgres_url)
    try:
        SourceRegistry(db).add("sds", "official", exist_ok=True)
        store, rng = db.knowledge, np.random.default_rng(len(steps))
        for op, file, labels, n in steps:
            uri = f"file{file}.md"
            stored = store.documents_in(uri)
            if op == "write":
                doc, chunks = make_doc(uri, [f"text {uri} {i} of {n}" for i in range(n)])
                doc = replace(doc, access=tuple(sorted(labels)))
                store.sync_file(uri, [(doc, chunks, unit(rng.normal(size=(n, DIM))))])
            elif op == "relabel" and stored:
                assert store.relabel(stored[0].id, labels)
            elif op == "delete" and stored:
                assert store.delete_document(stored[0].id)
            assert _counts(postgres_url) == _grouped(postgres_url)
    finally:
        for d in db.knowledge.list_documents():
            db.knowledge.delete_document(d.id)
        db.close()
    assert _counts(postgres_url) == {}


def _counts(url: str) -> dict[int, int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT access_set, chunks FROM kb_access_counts WHERE chunks > 0")
        return {int(s): int(n) for s, n in rows.fetchall()}


def _grouped(url: str) -> dict[int, int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT access_set, COUNT(*) FROM kb_chunks GROUP BY access_set")
        return {int(s): int(n) for s, n in rows.fetchall()}
