"""Retrieval benchmark: recall on SQuAD 2.0 dev, nDCG@10 on Cranfield, ingest and query speed.

Each corpus is written to a JSON Lines file and ingested into a fresh assay database
with the real pipeline and the real MiniLM embedder (``max_tokens=256``). Measured:

* ingest throughput (chunks/s and records/s, wall clock of the ``ingest`` call, the
  model already loaded);
* SQuAD 2.0 dev (1,204 paragraphs): recall@1 and recall@5 of the gold paragraph for
  every answerable question, by dense, lexical and hybrid retrieval (k=5); hybrid goes
  through :func:`assay.flow.retrieval.search`, dense and lexical call the store directly
  (the same rankings ``search`` gives in those modes, with the questions embedded in
  batches);
* latency over a seeded sample of questions: embedding one query and hybrid
  ``search`` (``ask`` is timed beside its floor by ``bench/speed.py``);
* Cranfield 1400: nDCG@10 with graded gains, a document ranked by its best chunk.

The targets of the issue are printed with PASS/MISS; the report goes to stdout and,
in a full run, replaces the section of ``docs/benchmarks.md`` it owns.

    .venv/bin/python bench/retrieval.py [--squad PATH] [--cranfield PATH] [--sample N]
                                        [--quick [--write]]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from docs_section import DOCS, write_section

from assay import Assay
from assay.flow.retrieval import search
from assay.ingest.pipeline import IngestOptions, embedding_text

DATA = Path(__file__).resolve().parents[2] / "shared/data"
SECTION = "## Retrieval (bench/retrieval.py)"
MODES = ("dense", "lexical", "hybrid", "hybrid+relevance")
RERANK_DEPTH = 8  # hybrid hits the relevance model reorders (``assay ask``'s default top_k)
MAX_TOKENS = 256
RECALL_TARGET = 0.95


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def build(
    workdir: Path, name: str, records: list[dict[str, object]]
) -> tuple[Assay, dict[str, float]]:
    """A fresh database holding ``records``, ingested from one .jsonl file; and its figures."""
    engine = Assay(workdir / f"{name}.db")
    engine.sources.add(name, "verified_kb", owner="assay benchmark")
    path = workdir / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    engine.embedder.embed(["load the model before the clock starts"])
    # Ingest by relative path: uris, hence chunk ids (hybrid's last tie-break), then do
    # not depend on the random temp dir, and reruns rank ties the same way.
    cwd = Path.cwd()
    os.chdir(workdir)
    try:
        start = time.perf_counter()
        report = engine.ingest(
            [Path(path.name)], options=IngestOptions(source_id=name, max_tokens=MAX_TOKENS)
        )
        seconds = time.perf_counter() - start
    finally:
        os.chdir(cwd)
    if report.count("failed"):
        raise SystemExit(f"ingest failed: {report.files[0].error}")
    chunks = engine.store.stats().chunks
    log(f"{name}: {len(records)} records -> {chunks} chunks in {seconds:.1f} s")
    return engine, {"records": len(records), "chunks": chunks, "seconds": seconds}


def record_ids(engine: Assay, chunk_ids: list[str], cache: dict[str, str]) -> list[str]:
    """The record id (``#<id>`` of the uri) of each chunk, in order."""
    missing = [c for c in dict.fromkeys(chunk_ids) if c not in cache]
    for chunk in engine.store.get(missing):
        cache[chunk.id] = chunk.uri.rsplit("#", 1)[1]
    return [cache[c] for c in chunk_ids]


def rankings(engine: Assay, queries: list[str], k: int) -> dict[str, list[list[str]]]:
    """For each mode, the record ids of the top ``k`` chunks of every query."""
    store, embedder = engine.store, engine.embedder
    cache: dict[str, str] = {}
    vectors = embedder.embed(queries)
    dense = [[h.chunk_id for h in store.dense_search(v, k)] for v in vectors]
    lexical = [[h.chunk_id for h in store.lexical_search(q, k)] for q in queries]
    start = time.perf_counter()
    hybrid = [
        [h.chunk.id for h in search(store, embedder, q, k=k, mode="hybrid").hits] for q in queries
    ]
    log(f"  {len(queries)} hybrid searches in {time.perf_counter() - start:.1f} s")
    relevance = engine.relevance
    assert relevance is not None
    start = time.perf_counter()
    reranked = []
    for q in queries:
        hits = search(store, embedder, q, k=RERANK_DEPTH, mode="hybrid").hits
        scores = relevance.score(q, [embedding_text(h.chunk) for h in hits])
        order = sorted(range(len(hits)), key=lambda i: -scores[i])
        reranked.append([hits[i].chunk.id for i in order])
    log(f"  {len(queries)} reranked searches in {time.perf_counter() - start:.1f} s")
    ranked = {"dense": dense, "lexical": lexical, "hybrid": hybrid, "hybrid+relevance": reranked}
    return {m: [record_ids(engine, ids, cache) for ids in ranked[m]] for m in MODES}


def squad(
    args: argparse.Namespace, workdir: Path, lines: list[str]
) -> dict[tuple[str, int], float]:
    articles = json.loads(args.squad.read_text())["data"][: 5 if args.quick else None]
    records: list[dict[str, object]] = []
    questions, gold = [], []
    for a, article in enumerate(articles):
        for p, paragraph in enumerate(article["paragraphs"]):
            rid = f"{a}-{p}"
            records.append({"id": rid, "title": article["title"], "text": paragraph["context"]})
            for qa in paragraph["qas"]:
                if not qa["is_impossible"]:
                    questions.append(qa["question"])
                    gold.append(rid)
    engine, ing = build(workdir, "squad", records)
    ranked = rankings(engine, questions, 5)
    recall = {
        (m, k): float(np.mean([g in r[:k] for g, r in zip(gold, ranked[m], strict=True)]))
        for m in MODES
        for k in (1, 5)
    }
    lines += [
        f"### SQuAD 2.0 dev: {len(articles)} articles, {len(records):,} paragraphs, "
        f"{len(questions):,} answerable questions",
        "",
        f"Ingest: {ing['chunks']:,} chunks from {ing['records']:,} paragraphs "
        f"(max_tokens={MAX_TOKENS}) in {ing['seconds']:.1f} s: "
        f"**{ing['chunks'] / ing['seconds']:.1f} chunks/s**, "
        f"{ing['records'] / ing['seconds']:.1f} paragraphs/s.",
        "",
        "| mode | recall@1 | recall@5 |",
        "|---|---|---|",
        *(f"| {m} | {recall[m, 1]:.3f} | {recall[m, 5]:.3f} |" for m in MODES),
        f"| random (expected) | {1 / len(records):.4f} | {5 / len(records):.4f} |",
        "",
    ]
    latency(engine, questions, args.sample, lines)
    engine.close()
    return recall


def latency(engine: Assay, questions: list[str], n: int, lines: list[str]) -> None:
    """p50/p95 of embedding a query and of hybrid search, as rows of ``lines``."""
    rng = random.Random(0)
    picked = rng.sample(questions, min(len(questions), n + 10))
    warm, sample = picked[:10], picked[10:]
    calls: dict[str, Callable[[str], object]] = {
        "embed one query (MiniLM)": lambda q: engine.embedder.embed([q]),
        'search(mode="hybrid", k=8)': lambda q: search(engine.store, engine.embedder, q, k=8),
    }
    for q in warm:
        for call in calls.values():
            call(q)
    times: dict[str, list[float]] = {name: [] for name in calls}
    for q in sample:  # interleaved, so drift in machine load hits every call alike
        for name, call in calls.items():
            start = time.perf_counter()
            call(q)
            times[name].append((time.perf_counter() - start) * 1000)
    p50s = {name: np.percentile(t, [50, 95]) for name, t in times.items()}
    base = p50s[next(iter(calls))][0]
    rows = [
        f"| {n} | {p50:.1f} | {p95:.1f} | {p50 / base:.1f}x |" for n, (p50, p95) in p50s.items()
    ]
    lines += [
        f"Latency over {len(sample)} questions (seeded sample, after {len(warm)} warm-up calls; "
        "model loading excluded; `ask` is timed beside its floor in the Speed section):",
        "",
        "| call | p50 ms | p95 ms | p50 / embed p50 |",
        "|---|---|---|---|",
        *rows,
        "",
    ]


def ndcg(ranked: list[str], gains: dict[str, int], k: int = 10) -> float:
    dcg = sum((2 ** gains.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(gains.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return float(dcg / idcg)


def cranfield(args: argparse.Namespace, workdir: Path, lines: list[str]) -> dict[str, float]:
    corpus = [json.loads(line) for line in (args.cranfield / "corpus.jsonl").open()]
    records: list[dict[str, object]] = []
    for doc in corpus:
        title, text = doc["title"].strip(), doc["text"].strip()
        body = text[len(title) :].strip() if title and text.startswith(title) else text
        if body or title:  # two documents are empty: the jsonl loader rejects blank text
            records.append({"id": doc["doc_id"], "title": title or None, "text": body or title})
    qrels: dict[str, dict[str, int]] = {}
    for row in (args.cranfield / "qrels.tsv").read_text().splitlines()[1:]:
        qid, did, _, gain = row.split("\t")
        qrels.setdefault(qid, {})[did] = int(gain)
    queries = [json.loads(line) for line in (args.cranfield / "queries.jsonl").open()]
    judged = [q for q in queries if any(g > 0 for g in qrels.get(q["query_id"], {}).values())]
    judged = judged[: 50 if args.quick else None]
    engine, ing = build(workdir, "cranfield", records)
    ranked = rankings(engine, [q["text"] for q in judged], 30)
    scores = {}
    for m in MODES:
        per_query = []
        for q, chunks in zip(judged, ranked[m], strict=True):
            docs = list(dict.fromkeys(chunks))  # a document ranks by its best chunk
            per_query.append(ndcg(docs, qrels[q["query_id"]]))
        scores[m] = float(np.mean(per_query))
    engine.close()
    lines += [
        f"### Cranfield 1400: {len(records):,} documents, {len(judged)} of {len(queries)} "
        "queries (those with a positive judgement)",
        "",
        f"Ingest: {ing['chunks']:,} chunks from {ing['records']:,} documents in "
        f"{ing['seconds']:.1f} s: **{ing['chunks'] / ing['seconds']:.1f} chunks/s**, "
        f"{ing['records'] / ing['seconds']:.1f} documents/s. "
        f"({len(corpus) - len(records)} empty documents skipped; titles stored as chunk titles.)",
        "",
        "nDCG@10, gains 1-4 from the qrels, DCG = sum (2^gain - 1) / log2(rank + 1); "
        "each mode retrieves 30 chunks, a document taking the rank of its best chunk:",
        "",
        "| mode | nDCG@10 | vs dense |",
        "|---|---|---|",
        *(f"| {m} | {scores[m]:.3f} | {scores[m] / scores['dense']:.2f}x |" for m in MODES),
        "",
    ]
    return scores


def interpretation(recall: dict[tuple[str, int], float], ndcgs: dict[str, float]) -> str:
    """Two sentences reading the tables, worded from this run's figures."""
    r1, r5 = ({m: recall[m, k] for m in MODES} for k in (1, 5))
    best5, best1 = max(MODES, key=r5.__getitem__), max(MODES, key=r1.__getitem__)
    cran_best = max(MODES, key=ndcgs.__getitem__)
    versus = "beats" if r5["lexical"] > r5["dense"] else "trails"
    first = (
        "and also ranks it first most often"
        if best1 == best5
        else f"but {best1} ranks it first more often (recall@1 {r1[best1]:.3f} vs {r1[best5]:.3f})"
    )
    others = ", ".join(f"{m} {ndcgs[m]:.3f}" for m in MODES if m != cran_best)
    return (
        f"On SQuAD, whose questions reuse their paragraph's words, lexical recall@5 "
        f"({r5['lexical']:.3f}) {versus} dense ({r5['dense']:.3f}); {best5} finds the gold "
        f"paragraph in the top 5 most often ({r5[best5]:.3f}) {first}. On Cranfield's "
        f"technical queries {cran_best} has the best nDCG@10 ({ndcgs[cran_best]:.3f}; {others})."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--squad", type=Path, default=DATA / "squad_v2_dev/dev-v2.0.reconstructed.json"
    )
    parser.add_argument("--cranfield", type=Path, default=DATA / "cranfield")
    parser.add_argument("--sample", type=int, default=300, help="questions timed for latency")
    parser.add_argument("--quick", action="store_true", help="5 SQuAD articles, 50 queries")
    parser.add_argument("--write", action="store_true", help="write docs/ in --quick mode too")
    args = parser.parse_args()
    for path in (args.squad, args.cranfield):
        if not path.exists():
            parser.error(f"{path} not found: pass --squad / --cranfield (see docs/benchmarks.md)")
    command = "python bench/retrieval.py" + "".join(f" {a}" for a in sys.argv[1:])
    lines = [
        SECTION,
        "",
        f"`{command}`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} CPU cores, "
        f"Python {platform.python_version()}, {platform.machine()}.",
        "",
    ]
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
        recall = squad(args, Path(tmp), lines)
        ndcgs = cranfield(args, Path(tmp), lines)
    recall_ok = recall["hybrid", 5] >= RECALL_TARGET
    lines += [
        "### Targets",
        "",
        "| target | measured | |",
        "|---|---|---|",
        f"| SQuAD hybrid recall@5 >= {RECALL_TARGET} | {recall['hybrid', 5]:.3f} | "
        f"{'PASS' if recall_ok else 'MISS'} |",
        "",
        interpretation(recall, ndcgs),
        "",
    ]
    section = "\n".join(lines)
    print(section)
    if not args.quick or args.write:
        write_section(SECTION, section)
        log(f"wrote {DOCS}")


if __name__ == "__main__":
    main()
