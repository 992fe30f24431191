"""A private PostgreSQL + pgvector cluster for the test run, and a fresh database per test.

The cluster is started by ``scripts/postgres.sh`` (``make test`` installs the server and
pgvector first) in a temporary folder on a free loopback port, once per test session and
only if a test asks for it. Each test gets its own database, copied from a migrated
template, and dropped afterwards.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from assay.store import migrate_database
from assay.store.postgres.connection import close_pools

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "postgres.sh"
TEMPLATE = "assay_template"


class Cluster:
    """A running cluster: its admin URL, and databases made from the template."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        started = subprocess.run(
            ["bash", str(SCRIPT), "start", str(folder)],
            capture_output=True,
            text=True,
            env=os.environ | {"ASSAY_PG_SERVER_OPTIONS": "-c fsync=off"},
        )
        if started.returncode != 0:
            raise RuntimeError(
                "cannot start the test PostgreSQL cluster (run `make postgres` or "
                f"`scripts/postgres.sh install` first): {started.stderr.strip()}"
            )
        self.url = started.stdout.strip().splitlines()[-1]
        self._admin("CREATE DATABASE " + TEMPLATE)
        migrate_database(self.database_url(TEMPLATE))
        close_pools(self.database_url(TEMPLATE))

    def database_url(self, name: str) -> str:
        return self.url.rsplit("/", 1)[0] + "/" + name

    def new_database(self) -> str:
        """A fresh, migrated database; its URL."""
        name = "t_" + uuid.uuid4().hex[:16]
        self._admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return self.database_url(name)

    @contextmanager
    def empty_database(self) -> Iterator[str]:
        """A database with nothing in it, not even assay's schema; its URL."""
        url = self.database_url("e_" + uuid.uuid4().hex[:16])
        self._admin(f"CREATE DATABASE {url.rsplit('/', 1)[-1]}")
        try:
            yield url
        finally:
            self.drop(url)

    def drop(self, url: str) -> None:
        close_pools(url)
        self._admin(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[-1]} WITH (FORCE)")

    def stop(self) -> None:
        close_pools()
        subprocess.run(["bash", str(SCRIPT), "stop", str(self.folder)], check=False)

    def _admin(self, sql: str) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]


def fresh_database(cluster: Cluster) -> Iterator[str]:
    url = cluster.new_database()
    try:
        yield url
    finally:
        cluster.drop(url)
