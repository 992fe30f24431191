"""Shared fixtures: a fresh database per test, a registry with typical sources, the CLI."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from assay import Assay
from assay.cli.main import cli
from assay.policy import builtin_policies
from tests.pgcluster import Cluster, fresh_database

AS_OF = date(2026, 11, 29)
#: the shipped financial policy's version (audit rows and tightened versions carry it)
FINANCIAL_VERSION = builtin_policies()["financial"].version


@pytest.fixture(autouse=True)
def _isolated_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's ASSAY_* variables or an assay.toml lying around."""
    for name in (
        "ASSAY_DB",
        "ASSAY_CONFIG",
        "ASSAY_POLICY_DIRS",
        "ASSAY_DEFAULT_POLICY",
        "ASSAY_SEVERITY_POLICIES",
        "ASSAY_AUTO_TIGHTEN",
        "ASSAY_MONITOR_WINDOW",
        "ASSAY_MONITOR_BASELINE",
        "ASSAY_AUDIT_KEY_FILE",
        "ASSAY_AUDIT_RETIRED_KEY_FILES",
        "ASSAY_INGEST_MAX_FILE_MB",
        "ASSAY_INGEST_MAX_FILE_SECONDS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """The test run's PostgreSQL + pgvector server, started on first use."""
    cluster = Cluster(Path(tempfile.mkdtemp(prefix="assay-pg-")))
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(cluster.folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database of its own for one test."""
    yield from fresh_database(postgres_cluster)


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    """A fresh assay database on each backend in turn: an SQLite file, a PostgreSQL URL."""
    if request.param == "sqlite":
        yield tmp_path / "assay.db"
    else:
        yield request.getfixturevalue("postgres_url")


@pytest.fixture
def db_path(database: Path | str) -> Path | str:
    """The test's database (each backend in turn): a file path or a PostgreSQL URL."""
    return database


def sqlite_only(db: Path | str) -> Path:
    """Skip on PostgreSQL a test of the SQLite file itself (its bytes, its folder)."""
    if isinstance(db, str):
        pytest.skip("a test of the SQLite file itself")
    return db


@pytest.fixture
def engine(db_path: Path | str) -> Iterator[Assay]:
    """An engine on a fresh database holding four typical sources."""
    with Assay(db_path) as eng:
        eng.sources.add("sds", "official", owner="Acme", reviewed_at="2026-10-01")
        eng.sources.add("kb", "verified_kb", owner="Acme Support")
        eng.sources.add("wiki", "internal_wiki", owner="Team Wiki")
        eng.sources.add("forum", "customer", owner="forum user")
        yield eng


def candidate_record(id: str, similarity: float, **fields: Any) -> dict[str, Any]:
    """A JSON candidate with sensible defaults: official source, published a month ago."""
    record: dict[str, Any] = {
        "id": id,
        "text": fields.pop("text", f"Passage {id} about charging temperature limits."),
        "similarity": similarity,
        "published": "2026-10-29",
    }
    if "source_kind" not in fields:
        record["source_id"] = "sds"
    record.update(fields)
    return record


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def run_cli(*args: str, db: Path | str | None = None, input: str | None = None) -> Result:
    """Invoke the real ``assay`` command in-process; stdout and stderr kept apart."""
    argv = list(args) + (["--db", str(db)] if db is not None else [])
    return CliRunner().invoke(cli, argv, input=input, catch_exceptions=False)
