"""The database as someone with its owner's rights reaches it, on either backend: plain
SQL on a connection of its own, past assay, with the append-only triggers out of the way
(SQLite: dropped; PostgreSQL: ``session_replication_role = replica``) unless asked to keep
them. The tamper tests edit the audit log through it and expect ``verify`` to notice."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

from assay.store.postgres.connection import translate


class RawDatabase:
    """One raw connection; ``execute`` takes SQLite's parameter style on both backends."""

    def __init__(self, db: Path | str, *, triggers: bool = False) -> None:
        self._url: str | None = None
        self._triggers = triggers
        self._sqlite: sqlite3.Connection | None = None
        if isinstance(db, str):
            self._url = db  # a connection per statement: nothing is left open
        else:
            self._sqlite = sqlite3.connect(db, isolation_level=None)
            self._sqlite.row_factory = sqlite3.Row
            if not triggers:
                self._sqlite.execute("DROP TRIGGER IF EXISTS audit_events_no_update")
                self._sqlite.execute("DROP TRIGGER IF EXISTS audit_events_no_delete")

    def execute(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        """Run one statement; the rows it returns, as dicts."""
        if self._sqlite is not None:
            return [dict(r) for r in self._sqlite.execute(sql, params).fetchall()]
        assert self._url is not None
        with psycopg.connect(self._url, autocommit=True, row_factory=dict_row) as conn:
            if not self._triggers:
                conn.execute("SET session_replication_role = replica")
            cursor = conn.execute(translate(sql), params) if params else conn.execute(sql)  # type: ignore[arg-type]
            return list(cursor.fetchall()) if cursor.description else []

    def one(self, sql: str, params: Any = ()) -> Any:
        """The first column of the first row."""
        return next(iter(self.execute(sql, params)[0].values()))

    def close(self) -> None:
        if self._sqlite is not None:
            self._sqlite.close()
