"""The embedded backend: every repository of assay in one SQLite file.

``connection`` (opening, WAL, the re-entrant write transaction), ``migrations`` (the
numbered schema), ``schema`` (the knowledge-base tables), ``knowledge`` (chunks, FTS5,
exact vectors), one module per repository (``sources``, ``audit``, ``review``, ``keys``,
``calibration``, ``monitor``) and ``database`` (all of them on one connection). All of
assay's SQL lives in this package.
"""

from assay.store.sqlite.database import SQLiteDatabase
from assay.store.sqlite.knowledge import SQLiteStore

__all__ = ["SQLiteDatabase", "SQLiteStore"]
