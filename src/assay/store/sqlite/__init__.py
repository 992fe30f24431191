"""The embedded backend: every repository of assay in one SQLite file.

``connection`` (opening, WAL, the re-entrant write transaction), ``migrations`` (the
numbered schema), ``schema`` (the knowledge-base tables), ``knowledge`` (chunks and
exact vectors), ``vectors`` (the matrix file beside the database), what differs from
the shared SQL of :mod:`assay.store.sql` (``audit``, ``monitor``, ``tables``) and
``database`` (every repository on one connection).
"""

from assay.store.sqlite.database import SQLiteDatabase

__all__ = ["SQLiteDatabase"]  # the knowledge store loads with its first use (it needs numpy)
