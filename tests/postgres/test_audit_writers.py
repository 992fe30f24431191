"""The audit log on PostgreSQL: one unbroken chain however many processes append, and
append-only enforced by the database itself."""

from __future__ import annotations

import multiprocessing

import psycopg
import pytest

from assay import Assay
from assay.audit.log import AuditLog
from assay.errors import StorageError
from assay.events import AlertRecord
from assay.store import open_database
from assay.store.postgres.migrations import MIGRATIONS
from tests.conftest import run_cli
from tests.pgcluster import Cluster

WRITERS = 8
APPENDS = 25


def _append_many(url: str, writer: int) -> None:
    db = open_database(url)
    log = AuditLog(db, actor=f"writer-{writer}")
    for n in range(APPENDS):
        record = AlertRecord(action="opened", reason="test", alert={"writer": writer, "n": n})
        log.append(record, query=f"w{writer}-{n}", policy_name="-", policy_version="-")
    db.close()


def test_b2_eight_processes_append_one_unbroken_chain(postgres_url: str) -> None:
    """8 processes append concurrently: no row lost, no gap, no fork; verify passes."""
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_append_many, args=(postgres_url, w)) for w in range(WRITERS)]
    for process in writers:
        process.start()
    for process in writers:
        process.join(timeout=300)
        assert process.exitcode == 0
    with Assay(postgres_url) as engine:
        report = engine.audit.verify()
        seqs = [e.seq for e in engine.audit.iter_all()]
        queries = {e.query for e in engine.audit.iter_all()}
    assert report.ok, report.problems
    assert report.events == WRITERS * APPENDS
    assert seqs == list(range(1, WRITERS * APPENDS + 1))
    assert len(queries) == WRITERS * APPENDS  # every append landed once
    result = run_cli("audit", "verify", db=postgres_url)
    assert result.exit_code == 0 and f"{WRITERS * APPENDS} events" in result.output


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_events SET query = 'edited'",
        "DELETE FROM audit_events",
        "TRUNCATE audit_events",
        "TRUNCATE calibration_maps",
        "DELETE FROM source_history",
    ],
)
def test_b2_the_database_refuses_to_change_the_append_only_tables(
    postgres_url: str, statement: str
) -> None:
    with Assay(postgres_url) as engine:
        engine.sources.add("wiki", "internal_wiki")
        AuditLog(engine.db).append(
            AlertRecord(action="opened", reason="test", alert={}),
            query="q",
            policy_name="-",
            policy_version="-",
        )
    with (
        psycopg.connect(postgres_url, autocommit=True) as conn,
        pytest.raises(psycopg.errors.RaiseException, match="append-only"),
    ):
        conn.execute(statement)  # type: ignore[arg-type]


def test_a_database_behind_the_schema_names_the_command(postgres_cluster: Cluster) -> None:
    with postgres_cluster.empty_database() as url:
        with pytest.raises(StorageError, match="assay db migrate"):
            Assay(url)
        assert run_cli("db", "migrate", db=url).output.startswith(
            f"applied {len(MIGRATIONS)} migration(s): m001_assay_schema"
        )
        with Assay(url) as engine:
            assert engine.sources.list() == []


def test_a_database_of_another_application_is_refused(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("DROP TABLE _assay_migrations")
    with pytest.raises(StorageError, match="not an assay database"):
        Assay(postgres_url)


def test_another_database_scheme_is_refused_with_the_fix() -> None:
    result = run_cli("sources", "list", "--db", "mysql://u@h/db")
    assert result.exit_code != 0
    assert "postgresql://" in result.output + (result.stderr or "")
