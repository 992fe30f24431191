"""The embedded SQLite database file: opening it, and its unit of work.

Connections run in autocommit mode; every write goes through :func:`transaction`,
which takes the write lock up front (``BEGIN IMMEDIATE``) so two writers can never
interleave and a failure rolls back whole. A transaction opened inside another on the
same connection joins it: a service that writes a row and its audit event in one unit
of work calls other services' writes inside it, and everything lands together or not
at all. The file is opened in WAL mode, so readers do not block the writer. Schema
changes are the numbered functions of :mod:`assay.store.sqlite.migrations`, each
applied in its own transaction.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from assay.errors import StorageError
from assay.store.sqlite.migrations import migrate


def connect(path: str | Path, *, create: bool = True) -> sqlite3.Connection:
    """Open (creating it if ``create``) the assay database at ``path`` and migrate it.

    ``":memory:"`` gives a private in-memory database, useful in tests. With
    ``create=False`` a missing file is an error instead of a new empty database, so a
    mistyped ``--db`` on a read-only command cannot report on nothing.
    """
    target = str(path)
    if target != ":memory:" and not create and not Path(target).expanduser().is_file():
        raise StorageError(
            f"no assay database at {target!r}; check --db / ASSAY_DB "
            "(a database is created by the first command that writes, e.g. `assay sources add`)"
        )
    if target != ":memory:":
        parent = Path(target).expanduser().resolve().parent
        if not parent.is_dir():
            raise StorageError(
                f"database path {target!r} is in a folder that does not exist; "
                f"create {str(parent)!r} or set --db / ASSAY_DB to another file"
            )
    for attempt in range(_OPEN_ATTEMPTS):
        try:
            return _open(target)
        except sqlite3.OperationalError as exc:
            # Switching a brand-new file to WAL while other processes open it can report
            # "locked" without waiting on the busy timeout: back off and try again.
            if "locked" not in str(exc) or attempt == _OPEN_ATTEMPTS - 1:
                raise _open_error(target, exc) from exc
            time.sleep(0.05 * 2**attempt)
        except sqlite3.DatabaseError as exc:
            raise _open_error(target, exc) from exc
    raise AssertionError("unreachable")


_OPEN_ATTEMPTS = 6


class _Connection(sqlite3.Connection):
    """A connection that knows the lock file its process takes before each write, and
    how deep the unit of work it is in is nested (0: none open)."""

    write_lock: Path | None = None
    depth: int = 0
    applied: list[str] = []  # noqa: RUF012 (set per connection by _open)
    #: what to run once the open transaction commits (:func:`after_commit`)
    committed: list[Callable[[], None]] = []  # noqa: RUF012 (set per connection by _open)


def _open(target: str) -> sqlite3.Connection:
    conn = sqlite3.connect(target, isolation_level=None, timeout=30.0, factory=_Connection)
    conn.committed = []
    if target != ":memory:":
        conn.write_lock = (
            Path(target).expanduser().resolve().with_name(Path(target).name + "-writelock")
        )
    try:
        conn.row_factory = sqlite3.Row
        # A damaged or hand-edited file may hold invalid UTF-8: read it, never crash on it.
        # (Audit verification reads raw bytes instead; see AuditLog.verify.)
        conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.applied = migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _open_error(target: str, exc: sqlite3.Error) -> StorageError:
    return StorageError(
        f"cannot open assay database {target!r}: {exc}; "
        "check that it is an assay database (or point --db / ASSAY_DB elsewhere)"
    )


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block as one write transaction: all of it lands, or none of it.

    Inside another transaction of the same connection the block is a savepoint of it: a
    failure inside rolls back the block's own writes (and propagates), the outer
    transaction commits or rolls back the rest. A database failure inside the block is
    re-raised as :class:`StorageError`. Writers queue first, the threads of a process on
    a lock and processes on an ``flock`` of the ``<db>-writelock`` file: SQLite's own
    wait for a busy database polls with sleeps of up to 100 ms, which a server's
    workers would otherwise pay on every collision.
    """
    depth = getattr(conn, "depth", 0)
    if depth > 0:
        with _savepoint(conn, f"unit_{depth}"):
            yield conn
        return
    with _WRITE_LOCK, _file_lock(getattr(conn, "write_lock", None)):
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StorageError(f"cannot start a write on the assay database: {exc}") from exc
        _nest(conn, +1)
        try:
            yield conn
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise StorageError(f"database write failed and was rolled back: {exc}") from exc
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        finally:
            _nest(conn, -1)
            waiting = _take_committed(conn)
        conn.execute("COMMIT")
        for callback in waiting:
            callback()


def _take_committed(conn: sqlite3.Connection) -> list[Callable[[], None]]:
    """The callbacks waiting for the transaction's end, cleared from the connection."""
    if not isinstance(conn, _Connection):
        return []
    waiting, conn.committed = conn.committed, []
    return waiting


def after_commit(conn: sqlite3.Connection, callback: Callable[[], None]) -> None:
    """Run ``callback`` once the open transaction commits (now, when none is open); a
    transaction or savepoint that rolls back drops the callbacks registered inside it."""
    if getattr(conn, "depth", 0) == 0 or not isinstance(conn, _Connection):
        callback()
    else:
        conn.committed.append(callback)


@contextmanager
def _savepoint(conn: sqlite3.Connection, name: str) -> Iterator[None]:
    """A nested unit of work: its writes are undone alone when it fails."""
    conn.execute(f"SAVEPOINT {name}")
    _nest(conn, +1)
    waiting = len(getattr(conn, "committed", ()))
    try:
        yield
    except BaseException:
        conn.execute(f"ROLLBACK TO {name}")
        conn.execute(f"RELEASE {name}")
        if isinstance(conn, _Connection):
            del conn.committed[waiting:]
        raise
    finally:
        _nest(conn, -1)
    conn.execute(f"RELEASE {name}")


def _nest(conn: sqlite3.Connection, step: int) -> None:
    if isinstance(conn, _Connection):
        conn.depth += step


_WRITE_LOCK = threading.RLock()
_held = threading.local()


@contextmanager
def _file_lock(path: Path | None) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` (re-entrant within a thread; none for ``None``)."""
    if path is None or getattr(_held, "path", None) == path:
        yield
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # a read-only folder: fall back to SQLite's own waiting
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _held.path = path
        yield
    finally:
        _held.path = None
        os.close(fd)  # closing the descriptor releases the lock
