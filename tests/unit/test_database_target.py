"""Choosing the backend: a path is SQLite, a ``postgresql://`` URL is PostgreSQL; the
PostgreSQL session's translation of the shared SQL; passwords kept out of messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import InvalidInputError
from assay.settings import load_settings
from assay.store import open_database
from assay.store.postgres.connection import redacted, translate
from tests.conftest import run_cli


def test_a_url_selects_postgresql_and_a_path_stays_sqlite(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASSAY_DB", "postgresql://app:s3cret@db.internal:5432/assay?sslmode=require")
    settings = load_settings()
    assert settings.database_url == "postgresql://app:s3cret@db.internal:5432/assay?sslmode=require"
    assert settings.db_file is None
    assert settings.database_label == "postgresql database assay"  # no host, no password
    local = load_settings(db="kb/assay.db")
    assert local.database_url is None and local.db == Path("kb/assay.db")
    assert local.database_label == "assay.db"


@pytest.mark.parametrize("url", ["mysql://u@h/db", "sqlite:///tmp/x.db", "http://h/db"])
def test_another_scheme_is_refused_with_the_fix(url: str) -> None:
    with pytest.raises(InvalidInputError, match="postgresql://"):
        load_settings(db=url)
    result = run_cli("sources", "list", db=url)
    assert result.exit_code == 2 and "postgresql://" in result.stderr


def test_open_database_refuses_an_unknown_scheme() -> None:
    with pytest.raises(InvalidInputError, match="is not a supported database"):
        open_database("mongodb://h/db")


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT * FROM t WHERE a = ? AND b = ?", "SELECT * FROM t WHERE a = %s AND b = %s"),
        ("INSERT INTO t VALUES (:id, :name)", "INSERT INTO t VALUES (%(id)s, %(name)s)"),
        ("SELECT x FROM t WHERE v NOT LIKE '%+tightened%' AND k = ?",
         "SELECT x FROM t WHERE v NOT LIKE '%%+tightened%%' AND k = %s"),
        ("SELECT payload::jsonb ->> 'a' FROM t WHERE seq > ?",
         "SELECT payload::jsonb ->> 'a' FROM t WHERE seq > %s"),
        ("SELECT 'it''s ? :not' || ?", "SELECT 'it''s ? :not' || %s"),
        ("SELECT ?::vector", "SELECT %s::vector"),
    ],
)  # fmt: skip
def test_the_shared_sql_is_translated_to_psycopg_style(sql: str, expected: str) -> None:
    assert translate(sql) == expected


def test_a_password_never_reaches_a_message() -> None:
    assert redacted("postgresql://app:s3cret@h:5432/db") == "postgresql://app:***@h:5432/db"
    assert redacted("postgresql://app@h/db") == "postgresql://app@h/db"
