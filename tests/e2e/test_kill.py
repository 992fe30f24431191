"""B4 faults: ``kill -9`` in the middle of ingestion and of concurrent audit writes
leaves no half document, no broken chain and a database that opens and verifies.

Real processes of the installed ``assay`` command, killed at varied moments.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import candidate_record, write_jsonl

ASSAY = [sys.executable, "-m", "assay"]


def start(args: list[str], db: Path) -> subprocess.Popen[bytes]:
    env = os.environ | {"ASSAY_DB": str(db), "ASSAY_EMBEDDER": "hashing"}
    return subprocess.Popen(
        ASSAY + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def assay(args: list[str], db: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"ASSAY_DB": str(db), "ASSAY_EMBEDDER": "hashing"}
    return subprocess.run(ASSAY + args, env=env, capture_output=True, text=True, timeout=300)


def check_database(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    counted = conn.execute(
        "SELECT d.id, d.chunk_count, COUNT(c.id) FROM kb_documents d"
        " LEFT JOIN kb_chunks c ON c.document_id = d.id GROUP BY d.id"
    ).fetchall()
    assert all(expected == found for _, expected, found in counted), counted  # no half document
    verify = assay(["audit", "verify"], db)
    assert verify.returncode == 0, verify.stderr
    return conn


def test_b4_kill_9_during_ingestion_leaves_whole_documents_only(tmp_path: Path) -> None:
    db, docs = tmp_path / "assay.db", tmp_path / "docs"
    docs.mkdir()
    for i in range(40):
        body = "\n\n".join(f"Section {i}.{j}: charge the pack for {j} hours." for j in range(1500))
        (docs / f"manual-{i:02}.md").write_text(f"# Manual {i}\n\n{body}\n")
    assert assay(["sources", "add", "manual", "--kind", "official"], db).returncode == 0
    stored = []
    for delay in (1.0, 1.4, 1.8, 2.2, 2.6):  # a whole run takes about 5 s
        process = start(["ingest", str(docs), "--source", "manual"], db)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        conn = check_database(db)
        stored.append(conn.execute("SELECT COUNT(*) FROM kb_documents").fetchone()[0])
        conn.close()
    finished = assay(["ingest", str(docs), "--source", "manual"], db)  # resumes, adds the rest
    assert finished.returncode == 0, finished.stderr
    conn = check_database(db)
    assert conn.execute("SELECT COUNT(*) FROM kb_documents").fetchone()[0] == 40
    assert stored[0] < 40, stored  # the first kill, at least, hit mid-run


def test_b4_kill_9_during_concurrent_audit_writes_keeps_one_chain(tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    assert assay(["sources", "add", "sds", "--kind", "official"], db).returncode == 0
    candidates = write_jsonl(tmp_path / "c.jsonl", [candidate_record("a", 0.8)])
    loop = (
        "import sys\nfrom assay.cli.main import cli\n"
        "for _ in range(10_000):\n"
        "    try:\n"
        f"        cli(['score', '--query', 'q', '--candidates', {str(candidates)!r},"
        " '--as-of', '2026-11-29'], standalone_mode=False)\n"
        "    except SystemExit:\n"
        "        pass\n"
    )
    env = os.environ | {"ASSAY_DB": str(db)}
    writers = [
        subprocess.Popen([sys.executable, "-c", loop], env=env, stdout=subprocess.DEVNULL)
        for _ in range(4)
    ]
    try:
        time.sleep(4)
        for process in writers[:2]:  # two die mid-write; the others go on
            process.send_signal(signal.SIGKILL)
        time.sleep(2)
    finally:
        for process in writers:
            process.send_signal(signal.SIGKILL)
            process.wait()
    conn = check_database(db)
    events = conn.execute("SELECT COUNT(*), MAX(seq) FROM audit_events").fetchone()
    assert events[0] == events[1] and events[0] > 10  # no gap, and they did write


@pytest.fixture(autouse=True)
def _no_stray_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_AUDIT_KEY_FILE", raising=False)
