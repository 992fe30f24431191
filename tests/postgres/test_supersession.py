"""Supersession on PostgreSQL: the migration that adds it to a registry written before it,
and two curators who link two sources each way at once (a cycle neither check sees alone)."""

from __future__ import annotations

import threading
import time

import pytest

from assay import Assay, InvalidInputError
from assay.store import migrate_database
from assay.store.postgres.connection import PostgresSession, close_pools
from assay.store.postgres.migrations import MIGRATIONS
from tests.pgcluster import Cluster


def test_m003_adds_supersedes_to_a_registry_written_before_it(postgres_cluster: Cluster) -> None:
    with postgres_cluster.empty_database() as url:
        session = PostgresSession(url, pool_size=2)
        before = [n for n, _ in MIGRATIONS].index("m003_source_supersedes")
        for name, migrate in MIGRATIONS[:before]:
            with session.unit_of_work():
                session.execute(
                    "CREATE TABLE IF NOT EXISTS _assay_migrations ("
                    " name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
                )
                migrate(session)
                session.execute("INSERT INTO _assay_migrations (name) VALUES (?)", (name,))
        with session.unit_of_work():
            session.execute(
                "INSERT INTO sources (id, kind, reliability, review_interval_days, version,"
                " created_at, updated_at) VALUES ('src', 'official', 1.0, 365, 1, 'then', 'then')"
            )
        close_pools(url)
        assert migrate_database(url) == [n for n, _ in MIGRATIONS[before:]]
        with Assay(url) as engine:
            assert engine.sources.get("src").supersedes is None
            engine.sources.add("src-2", "official", supersedes="src")
            assert engine.sources.superseded_by("src") == ("src-2",)


def test_two_curators_cannot_close_a_cycle_between_them(postgres_url: str) -> None:
    """A links to B in a transaction still open while B links to A in another: the
    second waits for the first and then sees its link, so it is refused as a cycle."""
    with Assay(postgres_url) as first, Assay(postgres_url) as second:
        first.sources.add("a", "official")
        first.sources.add("b", "official")
        outcome: list[BaseException | None] = []

        def link_b_to_a() -> None:
            try:
                second.sources.update("b", supersedes="a")
                outcome.append(None)
            except BaseException as exc:  # handed to the test's thread
                outcome.append(exc)

        with first.db.unit_of_work():
            first.sources.update("a", supersedes="b")
            other = threading.Thread(target=link_b_to_a)
            other.start()
            time.sleep(0.5)
            assert other.is_alive() and not outcome  # waiting on the supersession lock
        other.join(timeout=30)
        (error,) = outcome
        assert isinstance(error, InvalidInputError)
        with pytest.raises(InvalidInputError, match="would make a cycle"):
            raise error
        assert first.sources.supersessions() == {"a": "b"}
