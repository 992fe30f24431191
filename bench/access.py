"""Search filtered by access labels (issue 44), on SQLite and PostgreSQL, in one run.

The synthetic corpus of :mod:`postgres` (384-d vectors shaped like MiniLM's, Zipf
text), cut into documents of 100 chunks, every one of them labelled: a random 1% of the
documents carry ``g1``, ``g10`` and ``all``; a further 9% ``g10`` and ``all``; the other
90% ``g90`` and ``all``. So a caller granted ``g1`` reads 1% of the chunks, ``g10`` 10%,
``g90`` 90% and ``all`` every chunk. SQLite is loaded through ``Store.sync_file`` (as
ingestion writes, the labels in ``StoredDocument.access``), PostgreSQL by ``assay db
copy`` from that file (rows first, the HNSW index after), as :func:`postgres.scale`
loads it past 100,000 chunks.

Per backend and grant, the same queries are timed as hybrid search runs them (the dense
and the lexical list, 50 deep, that retrieval fuses), unfiltered (``access=None``)
interleaved with the filtered ones so both see the same machine. Recall@10 is against
brute force (numpy) over the granted chunks' vectors only: of the dense search's top
10, and of the first 10 of the hybrid's dense list. 'Outside grant': the share of all
returned chunks (dense and lexical) that the grant may not read; it must be 0. Then the
label indexes of ``--label-index`` (default ``g1`` and ``g10``) are built, as an
operator would for the labels of a small share of the chunks, and PostgreSQL is
measured again.

    .venv/bin/python bench/access.py [--chunks 1000000] [--queries 100]
                                     [--ef-search 200] [--keep DIR] [--write]
                                     [--label-index LABEL ...]

Loading a million chunks takes about half an hour (most of it PostgreSQL's HNSW
index); ``--keep DIR`` loads them once and leaves the cluster running in DIR, so that
later runs with the same DIR measure a change without loading again.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import numpy as np
from docs_section import write_section
from pg_cluster import Cluster

from assay.access import Access
from assay.documents import Chunk
from assay.sources import SourceRegistry
from assay.store import VectorIndexOptions, open_database
from assay.store.base import Hit, Store, StoredDocument
from assay.store.copy import copy_database
from assay.store.postgres import PostgresDatabase
from assay.store.postgres.label_indexes import create_label_index, drop_label_index
from assay.store.postgres.label_indexes import label_indexes as existing
from postgres import EMBEDDER, PER_FILE, Corpus, pct, timed

SECTION = "## Search filtered by access labels (bench/access.py)"
DOC_CHUNKS, K, DEPTH = 100, 10, 50
#: each document's label set, by class: 1% of documents, 9%, 90%
CLASSES = (("all", "g1", "g10"), ("all", "g10"), ("all", "g90"))
GRANTS = (("1%", "g1"), ("10%", "g10"), ("90%", "g90"), ("100%", "all"))
TARGET_RATIO = {"postgres": 2.0, "sqlite": 3.0}
TARGET_RECALL = 0.95

Batch = list[tuple[StoredDocument, list[Chunk], np.ndarray]]


class LabelledCorpus(Corpus):
    """:class:`postgres.Corpus` in labelled documents of ``DOC_CHUNKS`` chunks."""

    def __init__(self, size: int, seed: int = 7) -> None:
        super().__init__(size, seed)
        docs = -(-size // DOC_CHUNKS)
        order = np.random.default_rng(seed + 44).permutation(docs)
        one, ten = max(1, round(docs * 0.01)), max(2, round(docs * 0.10))
        self.doc_class = np.full(docs, 2, dtype=np.int8)
        self.doc_class[order[:ten]] = 1
        self.doc_class[order[:one]] = 0
        self.chunk_class = np.repeat(self.doc_class, DOC_CHUNKS)[:size]

    def readable(self, label: str) -> np.ndarray:
        """Which chunks a caller granted ``label`` may read."""
        classes = [c for c, labels in enumerate(CLASSES) if label in labels]
        return np.isin(self.chunk_class, classes)

    def labelled_files(self) -> Iterator[tuple[str, Batch]]:
        """Files of ``PER_FILE`` chunks, each a batch of documents for ``sync_file``."""
        for start in range(0, len(self.texts), PER_FILE):
            uri, batch = f"synthetic/{start // PER_FILE:05d}.txt", []
            for first in range(start, min(start + PER_FILE, len(self.texts)), DOC_CHUNKS):
                d, end = first // DOC_CHUNKS, min(first + DOC_CHUNKS, len(self.texts))
                doc = StoredDocument(
                    id=f"d{d}", source_id="bench", uri=f"{uri}#{d}", title=None,
                    content_hash=str(d), published=date(2026, 1, 1), verified=None,
                    chunk_count=end - first, embedder=EMBEDDER,
                    access=CLASSES[self.doc_class[d]],
                )  # fmt: skip
                chunks = self.chunks(doc, first, end)
                batch.append((doc, chunks, self.vectors[first:end]))
            yield uri, batch


@dataclass
class Figures:
    """One backend, one grant (``None``: unfiltered)."""

    backend: str
    share: str
    label: str | None
    readable: int
    hybrid: list[float] = field(default_factory=list)
    dense: list[float] = field(default_factory=list)
    lexical: list[float] = field(default_factory=list)
    found: int = 0  #: of the exact top 10, in the dense top 10
    found_hybrid: int = 0  #: of the exact top 10, in the first 10 of the hybrid's dense list
    returned: int = 0
    outside: int = 0
    first_ms: float = 0.0


def load(corpus: LabelledCorpus, sqlite_db: Path, url: str) -> dict[str, float]:
    """SQLite through ``sync_file``, PostgreSQL by ``assay db copy`` from it: seconds each."""
    seconds = {}
    start = time.perf_counter()
    db = open_database(sqlite_db)
    SourceRegistry(db).add("bench", "official")
    for uri, batch in corpus.labelled_files():
        db.knowledge.sync_file(uri, batch)
    db.knowledge.prepare_search()
    db.close()
    seconds["sqlite"] = time.perf_counter() - start
    print(f"sqlite loaded in {seconds['sqlite']:,.0f} s", flush=True)
    start = time.perf_counter()
    source, target = open_database(sqlite_db), open_database(url)
    copy_database(source, target)
    source.close()
    target.close()
    seconds["postgres"] = time.perf_counter() - start
    print(f"postgres copied (rows, then HNSW) in {seconds['postgres']:,.0f} s", flush=True)
    return seconds


def label_indexes(url: str, labels: list[str]) -> float:
    """Drop every label index, then build those of ``labels`` (as ``assay db label-index
    create`` does): seconds taken."""
    start = time.perf_counter()
    db = PostgresDatabase(url)
    for built in existing(db.session):
        drop_label_index(db.session, built.label)
    for label in labels:
        create_label_index(db.session, label, VectorIndexOptions())
    db.close()
    return time.perf_counter() - start


def exact_top(corpus: LabelledCorpus, queries: int) -> dict[str | None, np.ndarray]:
    """Per grant, the brute-force top ``K`` chunk indices of each query among the
    granted chunks only (``None``: among all)."""
    scores = corpus.vectors @ corpus.queries[:queries].T  # chunks x queries
    tops: dict[str | None, np.ndarray] = {}
    for label in [None, *(label for _, label in GRANTS)]:
        rows = np.arange(len(scores)) if label is None else np.flatnonzero(corpus.readable(label))
        part = scores[rows]
        near = np.argpartition(-part, K - 1, axis=0)[:K]  # K x queries, unordered
        tops[label] = rows[near].T
    return tops


def measure(
    backend: str, target: str | Path, corpus: LabelledCorpus, queries: int, ef_search: int,
    exact: dict[str | None, np.ndarray],
) -> list[Figures]:  # fmt: skip
    """Time every grant's hybrid lists on one freshly opened store, query by query (the
    grants' order rotating), and check the results against ``exact``."""
    db = open_database(target, index=VectorIndexOptions(ef_search=ef_search))
    store = db.knowledge
    runs = [Figures(backend, "unfiltered", None, len(corpus.texts))] + [
        Figures(backend, share, label, int(corpus.readable(label).sum())) for share, label in GRANTS
    ]
    allowed = {f.label: corpus.readable(f.label) for f in runs if f.label}
    grant = {f.label: Access(frozenset({f.label})) for f in runs if f.label}
    for f in runs:  # the first search in a new process (SQLite: each row's label set read)
        access = grant.get(f.label) if f.label else None
        f.first_ms = timed(lambda: hybrid(store, corpus, 0, access))  # noqa: B023
    for q in range(queries):
        for f in runs[q % len(runs) :] + runs[: q % len(runs)]:
            access = grant[f.label] if f.label else None
            (dense, lexical), (dense_ms, lexical_ms) = hybrid(store, corpus, q, access)
            f.dense.append(dense_ms)
            f.lexical.append(lexical_ms)
            f.hybrid.append(dense_ms + lexical_ms)
            top = store.dense_search(corpus.queries[q], K, access)  # untimed
            want = {f"c{i}" for i in exact[f.label][q]}
            f.found += len(want & {h.chunk_id for h in top})
            f.found_hybrid += len(want & {h.chunk_id for h in dense[:K]})
            ids = [int(h.chunk_id[1:]) for h in (*top, *dense, *lexical)]
            f.returned += len(ids)
            if f.label:
                f.outside += int(np.count_nonzero(~allowed[f.label][ids]))
    db.close()
    return runs


def hybrid(
    store: Store, corpus: LabelledCorpus, q: int, access: Access | None
) -> tuple[tuple[list[Hit], list[Hit]], tuple[float, float]]:
    """The two lists hybrid retrieval fuses for query ``q``, and ms spent on each."""
    start = time.perf_counter()
    dense = store.dense_search(corpus.queries[q], DEPTH, access)
    middle = time.perf_counter()
    lexical = store.lexical_search(corpus.query_texts[q], DEPTH, access)
    end = time.perf_counter()
    return (dense, lexical), ((middle - start) * 1000, (end - middle) * 1000)


def render(results: list[Figures], loads: dict[str, float], args: argparse.Namespace) -> str:
    lines = [
        SECTION,
        "",
        f"`python bench/access.py --chunks {args.chunks} --queries {args.queries} --write` on "
        f"{os.cpu_count()} cores ({platform.machine()}): the synthetic corpus of "
        "bench/postgres.py in documents of 100 chunks, every document labelled (a random 1% "
        "`g1`, 10% `g10` including those, the other 90% `g90`; all of them `all`). Hybrid: "
        f"the dense and the lexical list, {DEPTH} deep, that retrieval fuses; unfiltered "
        "(`access=None`) timed in the same loop, query by query. Recall@10 is against brute "
        "force over the granted chunks' vectors: of the dense top 10 / of the first 10 of "
        f"the hybrid's dense list. HNSW m=16, ef_construction=64, ef_search={args.ef_search}. "
        f"Loaded: SQLite by `sync_file` in {loads['sqlite']:,.0f} s; PostgreSQL by `assay db "
        f"copy` from it (rows, then the index) in {loads['postgres']:,.0f} s. A grant that "
        "reads every label set (`all`) takes the unfiltered path (`readable_sets` gives None). "
        f"Then the label index of {', '.join(f'`{x}`' for x in args.label_index)} was built "
        f"(`assay db label-index create`, {loads.get('label indexes', 0):,.0f} s) and "
        "PostgreSQL measured again: a granted label's own partial HNSW index, the rest of "
        "the grant by the filtered walk.",
        "",
        "| backend | grant share | chunks readable | hybrid p50 ms | hybrid p95 ms "
        "| unfiltered p50 ms | ratio | dense / lexical p50 ms | dense recall@10 "
        "| hybrid dense recall@10 | results outside grant | first search ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    base = {f.backend: pct(f.hybrid, 50) for f in results if f.label is None}
    for f in results:
        p50, n = pct(f.hybrid, 50), max(len(f.hybrid), 1) * K
        outside = f"{f.outside / max(f.returned, 1):.4f}" if f.label else "-"
        lines.append(
            f"| {f.backend} | {f.share} | {f.readable:,} | {p50:.1f} | {pct(f.hybrid, 95):.1f} "
            f"| {base[f.backend]:.1f} | {p50 / base[f.backend]:.2f} "
            f"| {pct(f.dense, 50):.1f} / {pct(f.lexical, 50):.1f} | {f.found / n:.3f} "
            f"| {f.found_hybrid / n:.3f} | {outside} | {f.first_ms:,.0f} |"
        )
    lines += ["", "Targets:"]
    for backend in dict.fromkeys(f.backend for f in results):
        limit = TARGET_RATIO[backend.split(",")[0]]
        rows = [f for f in results if f.backend == backend and f.label]
        worst = max(pct(f.hybrid, 50) / base[backend] for f in rows)
        recall = min(min(f.found, f.found_hybrid) / (max(len(f.hybrid), 1) * K) for f in rows)
        leak = sum(f.outside for f in rows)
        lines.append(
            f"- {backend}: filtered hybrid p50 within {limit:.0f}x of unfiltered at every "
            f"grant (worst {worst:.2f}x): {'PASS' if worst <= limit else 'MISS'}; "
            f"recall@10 >= {TARGET_RECALL} (lowest {recall:.3f}): "
            f"{'PASS' if recall >= TARGET_RECALL else 'MISS'}; nothing outside the grant: "
            f"{'PASS' if leak == 0 else 'MISS'}"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--ef-search", type=int, default=VectorIndexOptions().ef_search)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    parser.add_argument(
        "--keep", type=Path,
        help="load into this folder and leave the PostgreSQL cluster running there; a later "
        "run with the same --chunks and folder measures what it holds without loading again",
    )  # fmt: skip
    parser.add_argument(
        "--label-index", action="append", metavar="LABEL",
        help="after measuring PostgreSQL, build this label's index and measure it again "
        "(repeatable) [default: g1 and g10, the labels of under half the chunks]",
    )  # fmt: skip
    args = parser.parse_args()
    args.label_index = args.label_index or ["g1", "g10"]
    started = time.perf_counter()
    corpus = LabelledCorpus(args.chunks)
    exact = exact_top(corpus, args.queries)
    print(f"corpus and brute force ready in {time.perf_counter() - started:,.0f} s", flush=True)
    results: list[Figures] = []
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
        folder = args.keep or Path(tmp)
        sqlite_db, kept = folder / "kb.db", folder / f"loaded-{args.chunks}.json"
        cluster = None
        try:
            if kept.is_file():  # an earlier --keep run loaded these chunks here, server up
                loaded = json.loads(kept.read_text())
                url, loads = loaded["url"], loaded["seconds"]
            else:
                folder.mkdir(parents=True, exist_ok=True)
                cluster = Cluster(folder / "postgres" if args.keep else None)
                url = cluster.new_database()
                loads = load(corpus, sqlite_db, url)
                if args.keep:
                    kept.write_text(json.dumps({"url": url, "seconds": loads}))
            label_indexes(url, [])  # a kept cluster may hold those of an earlier run
            for backend, target in (("sqlite", sqlite_db), ("postgres", url)):
                results += measure(backend, target, corpus, args.queries, args.ef_search, exact)
                print(f"{backend} measured at {time.perf_counter() - started:,.0f} s", flush=True)
            if args.label_index:
                loads["label indexes"] = label_indexes(url, args.label_index)
                with_indexes = f"postgres, label index {', '.join(args.label_index)}"
                results += measure(with_indexes, url, corpus, args.queries, args.ef_search, exact)
                print(f"{with_indexes} measured at {time.perf_counter() - started:,.0f} s")
        finally:
            if cluster is not None and not args.keep:
                cluster.stop()
    section = render(results, loads, args)
    print(section)
    print(f"wall time {time.perf_counter() - started:,.0f} s")
    if args.write:
        write_section(SECTION, section)


if __name__ == "__main__":
    main()
