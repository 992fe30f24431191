"""PostgreSQL connections: one pool per URL and process, one session per database object.

A :class:`PostgresSession` runs the portable SQL of :mod:`assay.store.sql`, translated
from SQLite's parameter style (``?``, ``:name``) to psycopg's (``%s``, ``%(name)s``), on
autocommit connections borrowed from the pool for one statement or one unit of work. Its
unit of work is a transaction; opened inside another it is a savepoint, whose failure
undoes only its own writes.
Writers of the same thing queue on advisory locks (:func:`PostgresSession.lock`) held to
the end of the transaction: the audit log's appends, knowledge-base writes, migrations.
Every driver error leaves as :class:`~assay.errors.StorageError`, naming the server and
never the password.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from assay.errors import StorageError
from assay.store.sql.session import Params

# Advisory lock keys (one bigint namespace per database): who may write what, one at a time.
AUDIT_APPEND_LOCK = 0x61737361_79000001
KNOWLEDGE_WRITE_LOCK = 0x61737361_79000002
MIGRATION_LOCK = 0x61737361_79000003
SUPERSESSION_LOCK = 0x61737361_79000004

_TOKEN = re.compile(r"'(?:[^']|'')*'|\?|(?<![:\w]):([A-Za-z_]\w*)|%")


@lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """``sql`` in psycopg's parameter style: ``?`` -> ``%s``, ``:name`` -> ``%(name)s``,
    a literal ``%`` (also inside quotes) -> ``%%``; ``::type`` casts are left alone."""

    def one(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith("'"):
            return token.replace("%", "%%")
        if token == "?":
            return "%s"
        if token == "%":
            return "%%"
        return f"%({match.group(1)})s"

    return _TOKEN.sub(one, sql)


def redacted(url: str) -> str:
    """``url`` without its password, fit for an error message or a log."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


_POOLS: dict[tuple[int, str], ConnectionPool[Any]] = {}
_POOLS_LOCK = threading.Lock()


def pool(url: str, *, size: int) -> ConnectionPool[Any]:
    """The process's pool of connections to ``url`` (created on first use).

    Sessions borrow a connection for a statement or a unit of work; ``size`` caps how
    many a process holds at once (a further borrower waits up to 30 s for one).
    """
    key = (os.getpid(), url)  # a forked worker must not share its parent's sockets
    with _POOLS_LOCK:
        found = _POOLS.get(key)
        if found is None:
            _probe(url)  # a wrong URL fails now, with the server's reason, not after a wait
            found = ConnectionPool(
                url,
                min_size=0,
                max_size=size,
                kwargs={"autocommit": True, "row_factory": dict_row},
                timeout=30.0,
                open=True,
                name="assay",
            )
            _POOLS[key] = found
        return found


def _probe(url: str) -> None:
    try:
        psycopg.connect(url, connect_timeout=10).close()
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split())
        raise StorageError(
            f"cannot connect to the assay database at {redacted(url)} ({reason}); check that "
            "the server runs and that --db / ASSAY_DB names it"
        ) from exc


def close_pools(url: str | None = None) -> None:
    """Close this process's pool of ``url`` (every pool when ``None``): its idle
    connections end; a later session opens a new pool."""
    with _POOLS_LOCK:
        keys = [k for k in _POOLS if url is None or k[1] == url]
        closing = [_POOLS.pop(k) for k in keys]
    for found in closing:
        found.close()


class Rows:
    """A statement's result, read whole before its connection went back to the pool."""

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PostgresSession:
    """Statements, units of work and advisory locks on connections borrowed from the pool.

    Outside a unit of work each statement borrows a connection and gives it back with
    its rows read; a unit of work (or a snapshot) holds one connection until it ends. So
    a process holds as many connections as it runs statements at once, however many
    threads have a session (a server keeps one engine, hence one session, per thread).
    """

    def __init__(self, url: str, *, pool_size: int) -> None:
        self.url = url
        self._pool = pool(url, size=pool_size)
        self._held: psycopg.Connection[Any] | None = None
        self._committed: list[Callable[[], None]] = []  # run once the unit of work commits

    def execute(self, sql: str, params: Params = (), /) -> psycopg.Cursor[Any] | Rows:
        """Run one statement (SQLite's parameter style when ``params`` are given)."""
        query = translate(sql) if params else sql
        try:
            if self._held is not None:
                return self._held.execute(query, params or None)
            with self._borrowed() as conn:
                cursor = conn.execute(query, params or None)
                return Rows(cursor.fetchall() if cursor.description else [], cursor.rowcount)
        except psycopg.Error as exc:  # inside a unit of work, the whole unit rolls back
            raise _storage_error(exc, rolled_back=self.in_transaction) from exc

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]], /) -> None:
        """Run one statement once per row of parameters, inside the open unit of work."""
        if self._held is None:
            raise StorageError("a batch of writes was asked for outside a unit of work")
        try:
            with self._held.cursor() as cursor:
                cursor.executemany(translate(sql), rows)
        except psycopg.Error as exc:
            raise _storage_error(exc, rolled_back=True) from exc

    @property
    def in_transaction(self) -> bool:
        """True inside a unit of work or a snapshot."""
        return self._held is not None

    @contextmanager
    def unit_of_work(self) -> Iterator[PostgresSession]:
        """One transaction (a savepoint inside another): all of it lands, or none of it."""
        done: list[Callable[[], None]] = []
        try:
            if self._held is not None:
                waiting = len(self._committed)
                try:
                    with self._held.transaction():
                        yield self
                except BaseException:
                    del self._committed[waiting:]  # the savepoint's writes are gone
                    raise
                return
            with self._borrowed() as conn:
                self._held = conn
                try:
                    with conn.transaction():
                        yield self
                finally:
                    self._held = None
                    done, self._committed = self._committed, []
        except psycopg.Error as exc:
            raise _storage_error(exc, rolled_back=True) from exc
        for callback in done:  # reached only when the transaction committed
            callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the open unit of work commits (now, when none is open);
        a unit of work or savepoint that rolls back drops those registered inside it."""
        if self._held is None:
            callback()
        else:
            self._committed.append(callback)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One consistent, read-only view for several reads (joins an open transaction)."""
        if self.in_transaction:
            yield
            return
        with self.unit_of_work():
            self.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield

    def lock(self, key: int) -> None:
        """Hold the advisory lock ``key`` until the current transaction ends (waiting for
        it while another transaction, in any process, holds it)."""
        if not self.in_transaction:
            raise StorageError("an advisory lock was asked for outside a unit of work")
        self.execute("SELECT pg_advisory_xact_lock(?)", (key,))

    def close(self) -> None:
        """Nothing is held between statements; kept for the Database protocol."""

    @contextmanager
    def _borrowed(self) -> Iterator[psycopg.Connection[Any]]:
        try:
            conn = self._pool.getconn()
        except Exception as exc:  # PoolTimeout: every connection busy for 30 s
            raise StorageError(
                f"no free connection to the assay database at {redacted(self.url)} in 30 s "
                f"({exc}); raise ASSAY_PG_POOL_SIZE or the server's max_connections"
            ) from exc
        try:
            yield conn
        finally:
            self._pool.putconn(conn)


def _storage_error(exc: psycopg.Error, *, rolled_back: bool = False) -> StorageError:
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if rolled_back:
        return StorageError(f"database write failed and was rolled back: {message}")
    return StorageError(f"database error: {message}")
