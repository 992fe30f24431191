"""Where assay keeps everything: the repository protocols and their backends.

``base`` (the knowledge-base :class:`~assay.store.base.Store` interface),
``repositories`` (one protocol per aggregate and the :class:`Database` holding them),
``records`` (the rows they keep), ``sql`` (the SQL every backend shares), and the
backends: ``sqlite`` (the embedded default, one file) and ``postgres`` (PostgreSQL +
pgvector, for many workers and machines).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError
from assay.settings import POSTGRES_SCHEMES, is_database_url
from assay.store.base import VectorIndexOptions
from assay.store.repositories import Database


def open_database(
    target: str | Path,
    *,
    create: bool = True,
    index: VectorIndexOptions | None = None,
    pool_size: int = 10,
) -> Database:
    """The assay database at ``target``: a file path or ``":memory:"`` (SQLite, migrated
    on open), or a ``postgresql://`` URL (whose schema ``assay db migrate`` keeps current).

    ``create=False``: an SQLite file must already exist (a mistyped ``--db`` is an error,
    not a new empty database). ``index`` and ``pool_size`` apply to PostgreSQL.
    """
    if not is_database_url(target):
        from assay.store.sqlite import SQLiteDatabase  # a backend loads with its first use

        return SQLiteDatabase(target, create=create)
    url = str(target)
    _check_scheme(url)
    postgres = _postgres_backend()
    database: Database = postgres.PostgresDatabase(url, index=index, pool_size=pool_size)
    return database


def migrate_database(target: str | Path) -> list[str]:
    """Bring the schema of the database at ``target`` up to this version of assay (an
    SQLite file is created if missing); returns the names of the migrations applied."""
    if not is_database_url(target):
        from assay.store.sqlite import SQLiteDatabase

        database = SQLiteDatabase(target)
        database.close()
        return database.applied
    url = str(target)
    _check_scheme(url)
    postgres = _postgres_backend()
    session = postgres.PostgresSession(url, pool_size=10)  # as open_database's default
    applied: list[str] = postgres.migrate(session)  # the session holds no connection after
    return applied


def _check_scheme(url: str) -> None:
    if not url.startswith(POSTGRES_SCHEMES):
        raise InvalidInputError(
            "database", url.split("://")[0] + "://...",
            "give a file path (SQLite) or a postgresql://user@host:port/db URL",
            problem="is not a supported database",
        )  # fmt: skip


def _postgres_backend() -> Any:
    try:
        import assay.store.postgres as postgres
    except ImportError as exc:  # psycopg is the `postgres` extra
        raise InvalidInputError(
            "database", "postgresql://...", "install the driver: pip install 'assay[postgres]'",
            problem=f"needs psycopg, which is not installed ({exc.name})",
        ) from None  # fmt: skip
    return postgres


__all__ = [
    "Database",
    "VectorIndexOptions",
    "is_database_url",
    "migrate_database",
    "open_database",
]
