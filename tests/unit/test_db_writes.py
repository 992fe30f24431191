"""Concurrent writers: threads and processes appending to one audit log all land, in
one unbroken chain (what `assay serve --workers N` beside a command line does)."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

from assay.audit import AuditLog
from assay.events import ReviewRecord
from assay.store.sqlite import SQLiteDatabase


def _append(db: Path, writer: str, n: int) -> None:
    database = SQLiteDatabase(db)
    log = AuditLog(database, actor=writer)
    for i in range(n):
        record = ReviewRecord(
            review_item=i, event_id=writer, verdict="correct", note=None, confidence_score=1
        )
        log.append(record, query=f"{writer} {i}", policy_name="p", policy_version="1")
    database.close()


def test_b2_threads_and_processes_append_without_loss(tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    SQLiteDatabase(db).close()
    fork = multiprocessing.get_context("fork")
    processes = [fork.Process(target=_append, args=(db, f"p{i}", 40)) for i in range(3)]
    threads = [threading.Thread(target=_append, args=(db, f"t{i}", 40)) for i in range(3)]
    for worker in [*processes, *threads]:
        worker.start()
    for worker in [*processes, *threads]:
        worker.join(timeout=120)
    assert all(p.exitcode == 0 for p in processes)
    log = AuditLog(SQLiteDatabase(db))
    report = log.verify(replay=False)
    assert report.ok and report.events == 240
    per_writer = {f"{k}{i}": 0 for k in "pt" for i in range(3)}
    for event in log.iter_all():
        per_writer[str(event.actor)] += 1
    assert set(per_writer.values()) == {40}
    assert (tmp_path / "assay.db-writelock").exists()
