"""Sessions borrow pooled connections per statement or unit of work: many engines on
many threads share a small pool, as the threads of one ``assay serve`` worker do."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from assay.audit.log import AuditLog
from assay.events import AlertRecord
from assay.store import open_database


def test_twenty_threads_share_a_pool_of_two(postgres_url: str) -> None:
    databases = [open_database(postgres_url, pool_size=2) for _ in range(20)]

    def work(n: int) -> int:
        db = databases[n]
        log = AuditLog(db, actor=f"thread-{n}")
        for i in range(5):
            record = AlertRecord(action="opened", reason="pool", alert={"n": n, "i": i})
            log.append(record, query=f"{n}-{i}", policy_name="-", policy_version="-")
        return len(db.sources.all())

    with ThreadPoolExecutor(max_workers=20) as threads:
        assert all(kinds == 0 for kinds in threads.map(work, range(20)))
    report = AuditLog(databases[0]).verify()
    assert report.ok and report.events == 100
    for db in databases:
        db.close()
