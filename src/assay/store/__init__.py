"""Where assay keeps everything: the repository protocols and their backends.

``base`` (the knowledge-base :class:`~assay.store.base.Store` interface),
``repositories`` (one protocol per aggregate and the :class:`Database` holding them),
``records`` (the rows they keep), ``sqlite`` (the embedded backend, all of assay's SQL).
"""

from __future__ import annotations

from pathlib import Path

from assay.store.repositories import Database


def open_database(target: str | Path, *, create: bool = True) -> Database:
    """The assay database at ``target`` (a file path, or ``":memory:"``), migrated.

    ``create=False``: it must already exist (a mistyped ``--db`` is an error, not a new
    empty database).
    """
    from assay.store.sqlite import SQLiteDatabase  # the backend loads with its first use

    return SQLiteDatabase(target, create=create)


__all__ = ["Database", "open_database"]
