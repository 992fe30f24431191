"""What the portable repositories need of a backend's connection: ``execute``.

The SQL in :mod:`assay.store.sql` is written once, in SQLite's parameter style (``?``
and ``:name``), and uses only what SQLite and PostgreSQL both understand (``RETURNING``,
``COALESCE``, ``LIMIT``; no casts, no JSON functions). SQLite's connection runs it as it
is; the PostgreSQL session (:mod:`assay.store.postgres.connection`) translates the
parameter style to its driver's first. Rows are read by column name only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

Row = Mapping[str, Any]
Params = Sequence[Any] | Mapping[str, Any]


class Cursor(Protocol):
    """The result of one statement."""

    @property
    def rowcount(self) -> int:
        """Rows changed by an INSERT, UPDATE or DELETE."""
        ...

    def fetchone(self) -> Any:
        """The next row (read by column name), or ``None``."""
        ...

    def fetchall(self) -> list[Any]:
        """Every remaining row."""
        ...

    def __iter__(self) -> Iterator[Any]: ...


class Session(Protocol):
    """A connection that runs one statement at a time, inside the caller's unit of work."""

    def execute(self, sql: str, params: Params = ..., /) -> Cursor:
        """Run ``sql`` with ``params`` (``?`` positional or ``:name`` named)."""
        ...
