"""PostgreSQL + pgvector beside the embedded SQLite store, measured in one run.

For each corpus size (synthetic: 384-dimension vectors shaped like sentence embeddings,
see :class:`Corpus`, and Zipf-distributed words as text) both backends get the same chunks through
the same ``Store.sync_file`` that ingestion uses, in files of 1,000 chunks; then the same
queries. Reported per backend: store ingest chunks/s (embedding excluded: it is the same
model on both); what ingestion's last step (``Store.prepare_search``) takes after the
bulk load (SQLite writes its vector matrix file then); the first search in a new process
(which maps that file) and after one more file of 1,000 chunks is written (SQLite reads
only those); dense top-10 p50/p95 with recall@10
against exact search (numpy over all vectors), lexical (content-word and common-word
queries) and hybrid (dense + lexical, as retrieval runs them) p50/p95; and audit
appends/s with 1 and 8 writer processes, after which the chain must verify with every
row present. A second part compares the two backends on real text (SQuAD 2.0 dev with
the real embedder): recall of the gold paragraph and the overlap of their top 10.

The PostgreSQL server is a private cluster started by ``scripts/postgres.sh`` (run
``make postgres`` once) with ``synchronous_commit=off``, the durability SQLite's WAL mode
with ``synchronous=NORMAL`` has (a crash may lose the last commits, never corrupts).

    .venv/bin/python bench/postgres.py [--chunks 100000 1000000] [--queries 200]
                                       [--no-scale] [--quality-questions N] [--write]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from docs_section import write_section
from pg_cluster import Cluster
from retrieval import DATA, build, record_ids

from assay import Assay
from assay.audit.log import AuditLog
from assay.documents import Chunk
from assay.events import AlertRecord
from assay.flow.retrieval import search
from assay.sources import SourceRegistry
from assay.store import VectorIndexOptions, migrate_database, open_database
from assay.store.base import StoredDocument
from assay.store.copy import copy_database

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## PostgreSQL + pgvector beside SQLite (bench/postgres.py)"
SECTION_TEXT = "## PostgreSQL + pgvector beside SQLite on real text (bench/postgres.py)"
DIM, CLUSTERS, PER_FILE, K = 384, 2000, 1000, 10
TARGET_DENSE_MS, TARGET_RECALL, TARGET_HYBRID_MS = 20.0, 0.95, 50.0
TARGET_SQLITE_HYBRID_MS, TARGET_SQLITE_FIRST_MS = 100.0, 2000.0
EMBEDDER = "synthetic@1"


@dataclass
class Figures:
    """One backend at one corpus size."""

    backend: str
    chunks: int
    ingest_per_s: float = 0.0
    prepare_s: float = 0.0
    first_search_ms: float = 0.0
    first_after_write_ms: float = 0.0
    dense: list[float] = field(default_factory=list)
    lexical: list[float] = field(default_factory=list)
    lexical_common: list[float] = field(default_factory=list)
    loaded_by: str = "sync_file"
    sweep: dict[int, tuple[float, float]] = field(default_factory=dict)
    hybrid: list[float] = field(default_factory=list)
    recall: float = 0.0


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


class Corpus:
    """Vectors shaped like sentence embeddings, and Zipf text, reproducible from a seed.

    Real MiniLM embeddings of SQuAD paragraphs spread their variance over a decaying
    spectrum (half of it in 27 directions, 90% in 153) and group by topic; a paragraph's
    nearest neighbour has cosine 0.64, its 10th 0.46, a random pair 0.04. So: topic
    centres and members drawn from a Gaussian whose i-th direction has variance 1/i,
    members at 0.8 of a centre's spread (cosines: 0.71, 0.53, 0.00 at 20k vectors); a
    query is a new member of a random topic. (Isotropic clusters, tried first, put
    dozens of vectors at the same distance from a query: no index can rank those.)
    """

    def __init__(self, size: int, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        spread = (np.arange(1, DIM + 1, dtype=np.float32) ** -0.5).astype(np.float32)
        centers = rng.standard_normal((CLUSTERS, DIM), dtype=np.float32) * spread

        def members(topics: np.ndarray) -> np.ndarray:
            noise = rng.standard_normal((len(topics), DIM), dtype=np.float32) * spread
            rows = centers[topics] + 0.8 * noise
            return rows / np.linalg.norm(rows, axis=1, keepdims=True)

        self.vectors = members(rng.integers(0, CLUSTERS, size))
        self.queries = members(rng.integers(0, CLUSTERS, 400))
        self.words = [f"w{i}" for i in range(20000)]
        ranks = np.minimum(rng.zipf(1.3, size=(size, 30)), len(self.words)) - 1
        self.texts = [" ".join(self.words[r] for r in row) for row in ranks]
        # content words of every rarity (ranks log-uniform over 20..20,000), as questions
        # have them; and the worst case, four of the commonest words past the first 20
        picks = np.exp(rng.uniform(np.log(20), np.log(20000), size=(400, 4))).astype(int)
        self.query_texts = [" ".join(self.words[p] for p in row) for row in picks]
        common = rng.integers(20, 30, size=(400, 4))
        self.common_texts = [" ".join(self.words[p] for p in row) for row in common]

    def files(self) -> list[tuple[str, list[tuple[StoredDocument, list[Chunk], np.ndarray]]]]:
        return [self._file(start) for start in range(0, len(self.texts), PER_FILE)]

    def extra_file(self) -> tuple[str, list[tuple[StoredDocument, list[Chunk], np.ndarray]]]:
        """One more file of the corpus's first chunks under new ids: a write to a loaded
        knowledge base."""
        _, [(doc, chunks, vectors)] = self._file(0)
        extra = [replace(c, id="x" + c.id, document_id="extra", uri="extra.txt") for c in chunks]
        return "extra.txt", [(replace(doc, id="extra", uri="extra.txt"), extra, vectors)]

    def _file(self, start: int) -> tuple[str, list[tuple[StoredDocument, list[Chunk], np.ndarray]]]:
        uri = f"synthetic/{start // PER_FILE:05d}.txt"
        doc = StoredDocument(
            id=f"d{start}",
            source_id="bench",
            uri=uri,
            title=None,
            content_hash=str(start),
            published=date(2026, 1, 1),
            verified=None,
            chunk_count=min(PER_FILE, len(self.texts) - start),
            embedder=EMBEDDER,
        )
        chunks = self.chunks(doc, start, start + doc.chunk_count)
        return uri, [(doc, chunks, self.vectors[start : start + doc.chunk_count])]

    def chunks(self, doc: StoredDocument, start: int, end: int) -> list[Chunk]:
        """Chunks ``start`` to ``end`` of the corpus as ``doc``'s, numbered from ``start``."""
        return [
            Chunk(
                id=f"c{i}",
                document_id=doc.id,
                source_id="bench",
                ordinal=i - start,
                text=self.texts[i],
                title=None,
                location=f"chunk {i - start}",
                uri=doc.uri,
            )
            for i in range(start, end)
        ]


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def measure_store(
    backend: str,
    target: str | Path,
    corpus: Corpus,
    queries: int,
    ef_search: int,
    copy_from: Path | None = None,
    sweep: Sequence[int] = (),
) -> Figures:
    """Load ``target`` (through ``sync_file``, or by ``assay db copy`` from ``copy_from``),
    then time the queries on a freshly opened store."""
    figures = Figures(backend, len(corpus.texts))
    db = open_database(target, index=VectorIndexOptions(ef_search=ef_search))
    start = time.perf_counter()
    if copy_from is None:
        SourceRegistry(db).add("bench", "official")
        for uri, batch in corpus.files():
            db.knowledge.sync_file(uri, batch)
    else:
        figures.loaded_by = "db copy"
        source = open_database(copy_from)
        copy_database(source, db)
        source.close()
    figures.ingest_per_s = len(corpus.texts) / (time.perf_counter() - start)
    db.close()
    db = open_database(target, index=VectorIndexOptions(ef_search=ef_search))
    figures.prepare_s = timed(db.knowledge.prepare_search) / 1000  # as ingestion ends
    db.close()
    db = open_database(target, index=VectorIndexOptions(ef_search=ef_search))  # a new process
    store = db.knowledge
    figures.first_search_ms = timed(lambda: store.dense_search(corpus.queries[0], K))
    exact = np.argsort(-(corpus.vectors @ corpus.queries[:queries].T), axis=0)[:K].T
    found = 0
    for q in range(queries):
        vector, text = corpus.queries[q], corpus.query_texts[q]
        start = time.perf_counter()
        hits = store.dense_search(vector, K)
        figures.dense.append((time.perf_counter() - start) * 1000)
        found += len({f"c{i}" for i in exact[q]} & {h.chunk_id for h in hits})
        figures.lexical.append(timed(lambda: store.lexical_search(text, K)))  # noqa: B023
        common = corpus.common_texts[q]
        figures.lexical_common.append(timed(lambda: store.lexical_search(common, K)))  # noqa: B023
        figures.hybrid.append(  # the two lists retrieval fuses
            timed(lambda: (store.dense_search(vector, 50), store.lexical_search(text, 50)))  # noqa: B023
        )
    figures.recall = found / (queries * K)
    uri, batch = corpus.extra_file()
    db.knowledge.sync_file(uri, batch)
    db.close()
    db = open_database(target, index=VectorIndexOptions(ef_search=ef_search))
    figures.first_after_write_ms = timed(lambda: db.knowledge.dense_search(corpus.queries[0], K))
    db.close()
    if backend == "postgres":
        for ef in sweep:
            figures.sweep[ef] = dense_at(target, ef, corpus, exact)
    return figures


def dense_at(
    target: str | Path, ef_search: int, corpus: Corpus, exact: np.ndarray
) -> tuple[float, float]:
    """Dense p50 (ms) and recall@10 with ``ef_search`` candidates."""
    db = open_database(target, index=VectorIndexOptions(ef_search=ef_search))
    times, found = [], 0
    for q in range(len(exact)):
        start = time.perf_counter()
        hits = db.knowledge.dense_search(corpus.queries[q], K)
        times.append((time.perf_counter() - start) * 1000)
        found += len({f"c{i}" for i in exact[q]} & {h.chunk_id for h in hits})
    db.close()
    return pct(times, 50), found / (len(exact) * K)


def quality(squad_file: Path, sample: int) -> list[str]:
    """SQuAD 2.0 dev with the real embedder, ingested into SQLite and copied into
    PostgreSQL: recall@1/5 of the gold paragraph by dense, lexical and hybrid retrieval on
    each, and how much the two backends' top 10 share."""
    articles = json.loads(squad_file.read_text())["data"]
    records: list[dict[str, object]] = []
    questions: list[tuple[str, str]] = []
    for a, article in enumerate(articles):
        for p, paragraph in enumerate(article["paragraphs"]):
            records.append(
                {"id": f"{a}-{p}", "title": article["title"], "text": paragraph["context"]}
            )
            questions += [
                (qa["question"], f"{a}-{p}") for qa in paragraph["qas"] if not qa["is_impossible"]
            ]
    questions = random.Random(7).sample(questions, min(sample, len(questions)))
    cluster = Cluster()
    workdir = Path(tempfile.mkdtemp(prefix="assay-bench-"))
    try:
        return _compare(records, questions, cluster, workdir)
    finally:
        cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _compare(
    records: list[dict[str, object]],
    questions: list[tuple[str, str]],
    cluster: Cluster,
    workdir: Path,
) -> list[str]:
    local, _ = build(workdir, "squad", records)
    url = cluster.new_database()
    copy_database(local.db, target := open_database(url))
    target.close()
    server = Assay(url)
    ranked = {}
    for backend, engine in (("sqlite", local), ("postgres", server)):
        vectors = engine.embedder.embed([q for q, _ in questions])
        cache: dict[str, str] = {}
        modes = {
            "dense": [[h.chunk_id for h in engine.store.dense_search(v, 10)] for v in vectors],
            "lexical": [
                [h.chunk_id for h in engine.store.lexical_search(q, 10)] for q, _ in questions
            ],
            "hybrid": [
                [
                    h.chunk.id
                    for h in search(engine.store, engine.embedder, q, k=10, mode="hybrid").hits
                ]
                for q, _ in questions
            ],
        }
        ranked[backend] = {
            m: [record_ids(engine, ids, cache) for ids in lists] for m, lists in modes.items()
        }
    local.close()
    server.close()
    lines = [
        "",
        "`python bench/postgres.py --no-scale --write` (part of `make bench-postgres`): "
        f"SQuAD 2.0 dev ({len(records):,} paragraphs, the real MiniLM "
        f"embedder), {len(questions):,} answerable questions; PostgreSQL holds a copy of the "
        "SQLite database (`assay db copy`). Recall of the gold paragraph, and the share of the "
        "distinct paragraphs in each top 10 that both backends return:",
        "",
        "| mode | SQLite recall@1 / @5 | PostgreSQL recall@1 / @5 | top-10 overlap |",
        "|---|---|---|---|",
    ]
    for mode in ("dense", "lexical", "hybrid"):
        a, b = ranked["sqlite"][mode], ranked["postgres"][mode]
        recall = {
            k: [
                np.mean([g in r[:k] for (_, g), r in zip(questions, runs, strict=True)])
                for runs in (a, b)
            ]
            for k in (1, 5)
        }
        overlap = np.mean(  # of distinct records: a record's chunks may rank side by side
            [len(set(x) & set(y)) / max(len(set(x)), 1) for x, y in zip(a, b, strict=True)]
        )
        (s1, p1), (s5, p5) = recall[1], recall[5]
        lines.append(f"| {mode} | {s1:.3f} / {s5:.3f} | {p1:.3f} / {p5:.3f} | {overlap:.3f} |")
    return lines


def _append(target: str, writer: int, count: int, go: Any, times: Any) -> None:
    """One writer process: open, wait for the start signal, append ``count`` events."""
    db = open_database(target)
    log = AuditLog(db, actor=f"bench-{writer}")
    go.wait()
    start = time.time()
    for n in range(count):
        record = AlertRecord(action="opened", reason="bench", alert={"writer": writer, "n": n})
        log.append(record, query=f"{writer}-{n}", policy_name="bench", policy_version="1")
    times.put((start, time.time()))
    db.close()


def measure_appends(target: str, writers: int, per_writer: int) -> tuple[float, bool]:
    """Appends/s from the first writer's start to the last one's end (processes started
    and databases opened before the clock starts)."""
    context = multiprocessing.get_context("spawn")
    go, times = context.Event(), context.Queue()
    procs = [
        context.Process(target=_append, args=(target, w, per_writer, go, times))
        for w in range(writers)
    ]
    for p in procs:
        p.start()
    time.sleep(3.0 + writers)  # every writer has imported assay and opened the database
    go.set()
    spans = [times.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    seconds = max(end for _, end in spans) - min(start for start, _ in spans)
    db = open_database(target)
    report = AuditLog(db).verify()
    db.close()
    intact = (
        report.ok and report.events == writers * per_writer and all(p.exitcode == 0 for p in procs)
    )
    return writers * per_writer / seconds, intact


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ef-search", type=int, default=200)
    parser.add_argument(
        "--ef-sweep", type=int, nargs="*", default=[40, 100, 400],
        help="more ef_search values to measure PostgreSQL's dense search at",
    )  # fmt: skip
    parser.add_argument("--appends", type=int, default=200, help="per writer")
    parser.add_argument(
        "--incremental", type=int, default=100_000,
        help="largest size PostgreSQL is loaded through sync_file (index kept row by row)",
    )  # fmt: skip
    parser.add_argument(
        "--squad", type=Path, default=DATA / "squad_v2_dev/dev-v2.0.reconstructed.json",
        help="SQuAD 2.0 dev, for the quality of both backends on real text",
    )  # fmt: skip
    parser.add_argument(
        "--quality-questions", type=int, default=2000, help="0: skip the real-text part"
    )
    parser.add_argument(
        "--scale", action=argparse.BooleanOptionalAction, default=True,
        help="--no-scale: only the real-text part",
    )  # fmt: skip
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    if args.scale:
        scale(args)
    if args.quality_questions:
        section = "\n".join([SECTION_TEXT, *quality(args.squad, args.quality_questions)]) + "\n"
        print(section)
        if args.write:
            write_section(SECTION_TEXT, section)


def scale(args: argparse.Namespace) -> None:
    """Synthetic corpora at each size, and audit appends, on both backends."""
    cluster = Cluster()
    results: list[Figures] = []
    appends: list[tuple[str, int, float, bool]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
            for writers in (1, 8):
                for backend, target in (
                    ("sqlite", str(Path(tmp) / f"audit{writers}.db")),
                    ("postgres", cluster.new_database()),
                ):
                    if backend == "sqlite":
                        migrate_database(target)
                    rate, intact = measure_appends(target, writers, args.appends)
                    appends.append((backend, writers, rate, intact))
                    print(
                        f"audit {backend} x{writers}: {rate:,.0f} appends/s intact={intact}",
                        flush=True,
                    )
            for size in args.chunks:
                corpus = Corpus(size)
                sqlite_db = Path(tmp) / f"kb{size}.db"
                # past --incremental chunks, PostgreSQL is loaded as a team moving to it would:
                # `assay db copy` from the SQLite database (rows first, the HNSW index after)
                copy_from = sqlite_db if size > args.incremental else None
                for backend, target, source in (
                    ("sqlite", sqlite_db, None),
                    ("postgres", cluster.new_database(), copy_from),
                ):
                    f = measure_store(
                        backend, target, corpus, args.queries, args.ef_search, source,
                        args.ef_sweep,
                    )  # fmt: skip
                    results.append(f)
                    print(
                        f"{backend} {size:,}: ingest {f.ingest_per_s:,.0f}/s, first "
                        f"{f.first_search_ms:,.0f} ms, dense p50 {pct(f.dense, 50):.1f} ms "
                        f"recall {f.recall:.3f}, lexical p50 {pct(f.lexical, 50):.1f} ms, "
                        f"hybrid p50 {pct(f.hybrid, 50):.1f} ms",
                        flush=True,
                    )
                sqlite_db.unlink(missing_ok=True)
                shutil.rmtree(sqlite_db.with_name(sqlite_db.name + "-vectors"), ignore_errors=True)
    finally:
        cluster.stop()
    section = render(results, appends, args)
    print(section)
    if args.write:
        write_section(SECTION, section)


def render(
    results: list[Figures], appends: list[tuple[str, int, float, bool]], args: argparse.Namespace
) -> str:
    lines = [
        SECTION,
        "",
        f"`python bench/postgres.py --chunks {' '.join(map(str, args.chunks))} --write` "
        f"(`make bench-postgres`) on {os.cpu_count()} cores ({platform.machine()}): synthetic "
        "384-d vectors shaped like MiniLM's (a decaying spectrum, topics; see `Corpus`) and "
        f"Zipf text, {args.queries} queries, top-{K}; HNSW m=16, "
        f"ef_construction=64, ef_search={args.ef_search}. Store only (no embedding, no "
        "scoring). Recall@10 is against exact search over all vectors. Queries: four "
        "content words of every rarity (log-uniform ranks 20..20,000); the 'common words' "
        "column asks four of ranks 20..29 (each in ~10% of chunks), the worst case of both "
        "lexical indexes, which score every chunk holding any query word. 'prepare': "
        "ingestion's last step after the bulk load (`Store.prepare_search`); 'first "
        "search': in a new process, and in one opened after a further file of 1,000 chunks "
        "was written. 'chunks/s': "
        "through `Store.sync_file` (the HNSW index kept up row by row), or, past "
        f"{args.incremental:,} chunks, PostgreSQL loaded by `assay db copy` from the SQLite "
        "database (rows first, the index after).",
        "",
        "| backend | chunks | loaded by | chunks/s | prepare s | first search: new process / "
        "after a write ms | dense p50 / p95 ms "
        "| recall@10 | lexical p50 / p95 ms | lexical, common words p50 / p95 ms "
        "| hybrid p50 / p95 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in results:
        lines.append(
            f"| {f.backend} | {f.chunks:,} | {f.loaded_by} | {f.ingest_per_s:,.0f} "
            f"| {f.prepare_s:,.1f} | {f.first_search_ms:,.0f} / {f.first_after_write_ms:,.0f} "
            f"| {pct(f.dense, 50):.1f} / {pct(f.dense, 95):.1f} "
            f"| {f.recall:.3f} | {pct(f.lexical, 50):.1f} / {pct(f.lexical, 95):.1f} "
            f"| {pct(f.lexical_common, 50):.1f} / {pct(f.lexical_common, 95):.1f} "
            f"| {pct(f.hybrid, 50):.1f} / {pct(f.hybrid, 95):.1f} |"
        )
    lines += [
        "",
        "Audit appends (each writer a process; the chain verified after each run):",
        "",
        "| backend | writers | appends/s | every row, one unbroken chain |",
        "|---|---|---|---|",
    ]
    lines += [f"| {b} | {w} | {r:,.0f} | {'yes' if ok else 'NO'} |" for b, w, r, ok in appends]
    lines += [
        "",
        "PostgreSQL's dense search by `ef_search` (`ASSAY_PG_EF_SEARCH`):",
        "",
        "| chunks | ef_search | dense p50 ms | recall@10 |",
        "|---|---|---|---|",
    ]
    for f in results:
        if f.backend == "postgres":
            points = {args.ef_search: (pct(f.dense, 50), f.recall)} | f.sweep
            lines += [
                f"| {f.chunks:,} | {ef} | {ms:.1f} | {recall:.3f} |"
                for ef, (ms, recall) in sorted(points.items())
            ]
    lines += ["", "Targets (at the largest size measured):"]
    for f in results:
        if f.backend == "sqlite" and f.chunks == max(args.chunks):
            hybrid, first = pct(f.hybrid, 50), max(f.first_search_ms, f.first_after_write_ms)
            lines += [
                f"- SQLite hybrid p50 {hybrid:.1f} ms <= {TARGET_SQLITE_HYBRID_MS:.0f} ms: "
                f"{'PASS' if hybrid <= TARGET_SQLITE_HYBRID_MS else 'MISS'}",
                f"- SQLite first search (new process, after a write) {first:,.0f} ms <= "
                f"{TARGET_SQLITE_FIRST_MS:,.0f} ms: "
                f"{'PASS' if first <= TARGET_SQLITE_FIRST_MS else 'MISS'}",
            ]
        if f.backend == "postgres" and f.chunks == max(args.chunks):
            dense, hybrid = pct(f.dense, 50), pct(f.hybrid, 50)
            lines += [
                f"- PostgreSQL dense p50 {dense:.1f} ms <= {TARGET_DENSE_MS:.0f} ms: "
                f"{'PASS' if dense <= TARGET_DENSE_MS else 'MISS'}; recall@10 {f.recall:.3f} "
                f">= {TARGET_RECALL}: {'PASS' if f.recall >= TARGET_RECALL else 'MISS'}",
                f"- PostgreSQL hybrid p50 {hybrid:.1f} ms <= {TARGET_HYBRID_MS:.0f} ms: "
                f"{'PASS' if hybrid <= TARGET_HYBRID_MS else 'MISS'}",
            ]
    lines.append(
        f"- 8 writers lose no row and break no chain: "
        f"{'PASS' if all(ok for _, w, _, ok in appends if w == 8) else 'MISS'}"
    )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
