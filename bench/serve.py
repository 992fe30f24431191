"""Load on the HTTP service: ``/v1/score`` (20 candidates) and ``/v1/ask``, beside ``/healthz``.

The script builds a fresh database (the demo knowledge base of ``examples/kb``, its five
sources and a reader key), starts ``assay serve`` as its own process on 127.0.0.1, and
loads it from this process with a small asyncio HTTP/1.1 client: a fixed number of
keep-alive connections, each sending its next request as soon as the previous answer
arrived (closed loop), for a fixed time after a warm-up. Every request is a real one:
``/v1/score`` scores, gates and corroborates 20 candidates and writes its audit event;
``/v1/ask`` retrieves, answers, judges and writes its event. ``/healthz`` (no database,
no key) measures the floor of the HTTP stack itself in the same run.

Reported per endpoint and worker count: requests/s, latency p50/p90/p99/max, non-200
responses. The client shares the machine's cores with the server, as a co-located load
generator does.

    .venv/bin/python bench/serve.py [--workers 1 2] [--backends sqlite postgres]
                                    [--seconds 15] [--concurrency 8] [--ask-concurrency 2]
                                    [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from docs_section import write_section
from pg_cluster import Cluster

ROOT = Path(__file__).resolve().parents[1]
KB = ROOT / "examples" / "kb"
ASSAY = str(Path(sys.executable).with_name("assay"))
SECTION = "## HTTP service (bench/serve.py)"
TARGET_RPS, TARGET_P99_MS = 300.0, 50.0
TARGET_ASK_SCALING = 1.7
SOURCES = [
    ("halden-sds-2026", "official", "Halden Power", "2026-10-15"),
    ("halden-manual-2019", "official", "Halden Power", "2019-04-11"),
    ("support-wiki", "internal_wiki", "Halden Support", "2026-09-01"),
    ("community-forum", "customer", "forum users", None),
    ("field-notes", "unverified", None, None),
]
QUESTIONS = [
    "What ambient temperature range is safe for charging the HX-40?",
    "How long does a full charge of the HX-40 take?",
    "Can I charge the HX-40 in a hot car at 70 °C?",
    "What happens if the battery pack overheats?",
]


@dataclass
class Result:
    """The figures of one endpoint under one configuration."""

    endpoint: str
    backend: str
    workers: int
    concurrency: int
    requests: int
    seconds: float
    latencies_ms: np.ndarray
    failures: int

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def pct(self, q: float) -> float:
        return float(np.percentile(self.latencies_ms, q)) if len(self.latencies_ms) else 0.0

    def row(self) -> str:
        return (
            f"| {self.endpoint} | {self.backend} | {self.workers} | {self.concurrency} "
            f"| {self.rps:,.0f} | "
            f"{self.pct(50):.1f} | {self.pct(90):.1f} | {self.pct(99):.1f} | "
            f"{self.latencies_ms.max():.0f} | {self.failures} |"
        )


def _run(*args: str, db: Path) -> str:
    env = os.environ | {"ASSAY_DB": str(db)}
    done = subprocess.run([ASSAY, *args], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"assay {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def build_database(folder: Path) -> tuple[Path, str]:
    """The demo knowledge base with its sources, and a reader key's token."""
    db = folder / "assay.db"
    for source_id, kind, owner, reviewed in SOURCES:
        args = ["sources", "add", source_id, "--kind", kind]
        args += ["--owner", owner] if owner else []
        args += ["--reviewed-at", reviewed] if reviewed else []
        _run(*args, db=db)
    _run("ingest", str(KB / "halden-sds-2026.md"), "--source", "halden-sds-2026", db=db)
    _run("ingest", str(KB / "support-wiki"), "--source", "support-wiki", db=db)
    _run("ingest", str(KB / "hx40-manual-2019.html"), "--source", "halden-manual-2019", db=db)
    _run("ingest", str(KB / "forum-posts.jsonl"), "--source", "community-forum", db=db)
    _run("ingest", str(KB / "field-notes.txt"), "--source", "field-notes", db=db)
    token = json.loads(_run("keys", "create", "load test", "--role", "reader", "--json", db=db))
    return db, token["token"]


def score_body() -> bytes:
    """One /v1/score request: 20 candidates from five sources, as a retriever returns them."""
    sources = [s[0] for s in SOURCES]
    texts = [
        "Charge the HX-40 only between 0 °C and 45 °C ambient temperature.",
        "A full charge takes about three hours with the supplied 65 W charger.",
        "Do not leave the pack in a parked car in summer; cabin heat exceeds the limit.",
        "Above 60 °C the cells vent; the pack's fuse cuts charging at 50 °C.",
        "Store the pack at 40 to 60 percent charge in a cool, dry place.",
    ]
    candidates = [
        {
            "id": f"chunk-{i:02d}",
            "text": f"{texts[i % 5]} (section {i}, revision {i % 3})",
            "similarity": round(0.92 - i * 0.03, 3),
            "source_id": sources[i % 5],
            "published": f"2026-{1 + i % 10:02d}-15",
            "title": f"HX-40 document {i % 5}",
        }
        for i in range(20)
    ]
    body = {
        "query": "What ambient temperature is safe for charging the HX-40?",
        "candidates": candidates,
        "policy": "safety_critical",
        "as_of": "2026-11-29",
    }
    return json.dumps(body).encode()


def request_bytes(method: str, path: str, body: bytes | None, token: str | None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    await reader.readexactly(length)
    return status


async def _connection(
    port: int, requests: list[bytes], start: float, warmup: float, stop: float, out: dict[str, Any]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    n = 0
    while (sent := time.perf_counter()) < stop:
        writer.write(requests[n % len(requests)])
        n += 1
        status = await _read_response(reader)
        done = time.perf_counter()
        if sent >= start + warmup:
            out["latencies"].append((done - sent) * 1000)
            out["failures"] += status != 200
    writer.close()


def load(
    port: int, requests: list[bytes], concurrency: int, seconds: float, warmup: float
) -> tuple[np.ndarray, int, float]:
    """Latencies (ms) of the requests sent after the warm-up, failures, measured seconds."""
    out: dict[str, Any] = {"latencies": [], "failures": 0}

    async def main() -> None:
        start = time.perf_counter()
        stop = start + warmup + seconds
        await asyncio.gather(
            *(_connection(port, requests, start, warmup, stop, out) for _ in range(concurrency))
        )

    try:
        import uvloop

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())
    return np.array(out["latencies"]), out["failures"], seconds


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(db: Path | str, workers: int) -> tuple[subprocess.Popen[bytes], int]:
    """``assay serve`` on a free port, once ``/readyz`` answers 200."""
    port = _free_port()
    server = subprocess.Popen(
        [ASSAY, "serve", "--port", str(port), "--workers", str(workers), "--log-level", "warning"],
        env=os.environ | {"ASSAY_DB": str(db)},
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as r:
                if r.status == 200:
                    # every worker loads its models before it accepts; give the others time
                    time.sleep(2.0 * (workers - 1))
                    return server, port
        except OSError:
            time.sleep(0.25)
    server.terminate()
    raise SystemExit("the server did not become ready in 120 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--backends", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"],
        help="postgres: the same database copied into a private PostgreSQL server",
    )  # fmt: skip
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--ask-concurrency", type=int, default=2)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    results: list[Result] = []
    cluster = Cluster() if "postgres" in args.backends else None
    with tempfile.TemporaryDirectory(prefix="assay-serve-bench-") as tmp:
        db, token = build_database(Path(tmp))
        targets: dict[str, Path | str] = {"sqlite": db}
        if cluster is not None:
            targets["postgres"] = cluster.new_database()
            _run("db", "copy", "--from", str(db), "--to", str(targets["postgres"]), db=db)
        scenarios = [
            ("GET /healthz", [request_bytes("GET", "/healthz", None, None)], args.concurrency),
            (
                "POST /v1/score (20 candidates)",
                [request_bytes("POST", "/v1/score", score_body(), token)],
                args.concurrency,
            ),
            (
                "POST /v1/ask",
                [
                    request_bytes(
                        "POST", "/v1/ask",
                        json.dumps({"question": q, "as_of": "2026-11-29"}).encode(), token,
                    )
                    for q in QUESTIONS
                ],
                args.ask_concurrency,
            ),
        ]  # fmt: skip
        try:
            for backend in args.backends:
                for workers in args.workers:
                    results += run_scenarios(targets[backend], backend, workers, scenarios, args)
        finally:
            if cluster is not None:
                cluster.stop()
    section = render(results, args)
    print(section)
    if args.write:
        write_section(SECTION, section)


def run_scenarios(
    db: Path | str,
    backend: str,
    workers: int,
    scenarios: list[tuple[str, list[bytes], int]],
    args: argparse.Namespace,
) -> list[Result]:
    """Every scenario against one ``assay serve`` on ``db`` with ``workers`` workers."""
    results = []
    server, port = serve(db, workers)
    try:
        for name, requests, concurrency in scenarios:
            latencies, failures, seconds = load(
                port, requests, concurrency, args.seconds, args.warmup
            )
            result = Result(
                name, backend, workers, concurrency, len(latencies), seconds, latencies, failures
            )
            print(result.row(), flush=True)
            results.append(result)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return results


def render(results: list[Result], args: argparse.Namespace) -> str:
    score = [r for r in results if r.endpoint.startswith("POST /v1/score")]
    health = {(r.backend, r.workers): r for r in results if r.endpoint == "GET /healthz"}
    verdicts = [
        f"- {r.backend}, {r.workers} worker(s): **{r.rps:,.0f} requests/s** "
        f"(target >= {TARGET_RPS:.0f}: {'PASS' if r.rps >= TARGET_RPS else 'MISS'}), "
        f"p99 **{r.pct(99):.1f} ms** (target <= {TARGET_P99_MS:.0f}: "
        f"{'PASS' if r.pct(99) <= TARGET_P99_MS else 'MISS'}); "
        f"{r.rps / health[r.backend, r.workers].rps:.2f}x /healthz's throughput in the same run"
        for r in score
    ]
    return "\n".join(
        [
            SECTION,
            "",
            "`python bench/serve.py --write` (`make bench-serve`): `assay serve` in its own "
            "process on 127.0.0.1 over the demo knowledge base, loaded from the benchmark's "
            f"process by a closed-loop asyncio client (keep-alive connections; "
            f"{args.warmup:g} s warm-up, then {args.seconds:g} s measured per row). "
            "`/v1/score` scores, gates and corroborates 20 candidates from five sources under "
            "`safety_critical` and appends a hash-chained audit event per request; `/v1/ask` "
            "cycles through four demo questions (retrieval, relevance model, answer, judge, "
            "audit). `/healthz` is the HTTP stack's own floor, measured in the same run. "
            "`postgres` rows serve the same database copied into a private PostgreSQL + "
            "pgvector server on the same machine (`assay db copy`). "
            f"Machine: {os.cpu_count()} cores, {platform.python_implementation()} "
            f"{platform.python_version()}; the client shares the cores with the server.",
            "",
            "| endpoint | database | workers | connections | requests/s | p50 ms | p90 ms "
            "| p99 ms | max ms | non-200 |",
            "|---|---|---|---|---|---|---|---|---|---|",
            *(r.row() for r in results),
            "",
            "Target for `/v1/score` with 20 candidates (>= 300 requests/s, p99 <= 50 ms on "
            "2 cores):",
            *verdicts,
            "",
            f"`/v1/ask` throughput as workers are added (target: >= {TARGET_ASK_SCALING}x from "
            "1 to 2 workers; the model work runs in the thread pool, never on the event loop):",
            *ask_scaling(results),
            "",
        ]
    )


def ask_scaling(results: list[Result]) -> list[str]:
    """One line per backend: each worker count's /v1/ask throughput against 1 worker's."""
    ask = {(r.backend, r.workers): r for r in results if r.endpoint == "POST /v1/ask"}
    lines = []
    for backend in dict.fromkeys(b for b, _ in ask):
        one = ask.get((backend, 1))
        if one is None or one.rps == 0:
            continue
        ratios = {w: r.rps / one.rps for (b, w), r in ask.items() if b == backend and w > 1}
        verdict = ""
        if 2 in ratios:
            verdict = f" ({'PASS' if ratios[2] >= TARGET_ASK_SCALING else 'MISS'})"
        shown = ", ".join(f"{w} workers {x:.2f}x" for w, x in sorted(ratios.items()))
        lines.append(f"- {backend}: {shown}{verdict}")
    return lines


if __name__ == "__main__":
    main()
