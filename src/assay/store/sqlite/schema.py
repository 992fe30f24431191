"""The knowledge-base tables of the embedded store, created by migration m003.

``kb_documents`` has one row per ingested document (``file`` is the file it came from,
so records removed from a file can be dropped); ``kb_chunks`` holds text, metadata and
the float32 vector of each chunk; ``kb_chunks_fts`` is an external-content FTS5 index
kept in step by triggers; ``kb_meta`` holds the embedder the vectors came from and a
generation counter bumped by every write. Migration m012 replaced the FTS5 index with
the postings of :mod:`assay.store.sql.lexicon` (``kb_postings``, ``kb_lexicon_blocks``).
"""

from __future__ import annotations

import sqlite3


def create_schema(conn: sqlite3.Connection) -> None:
    """The knowledge-base tables (run once, by the numbered migrations)."""
    conn.execute(
        """CREATE TABLE kb_documents (
            id TEXT PRIMARY KEY,
            source_id TEXT NOT NULL REFERENCES sources(id),
            file TEXT NOT NULL,
            uri TEXT NOT NULL,
            title TEXT,
            content_hash TEXT NOT NULL,
            published TEXT,
            verified TEXT,
            chunk_count INTEGER NOT NULL,
            embedder TEXT NOT NULL,
            ingested_at TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX kb_documents_file ON kb_documents(file)")
    conn.execute(
        """CREATE TABLE kb_chunks (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            document_id TEXT NOT NULL REFERENCES kb_documents(id) ON DELETE CASCADE,
            source_id TEXT NOT NULL,
            ordinal INTEGER NOT NULL,
            text TEXT NOT NULL,
            title TEXT,
            location TEXT NOT NULL,
            uri TEXT NOT NULL,
            published TEXT,
            verified TEXT,
            metadata TEXT NOT NULL DEFAULT '{}',
            embedding BLOB NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX kb_chunks_document ON kb_chunks(document_id)")
    conn.execute(
        """CREATE VIRTUAL TABLE kb_chunks_fts USING fts5(
            text, title, content='kb_chunks', content_rowid='seq',
            tokenize='porter unicode61 remove_diacritics 2'
        )"""
    )
    conn.execute(
        """CREATE TRIGGER kb_chunks_fts_insert AFTER INSERT ON kb_chunks BEGIN
            INSERT INTO kb_chunks_fts(rowid, text, title) VALUES (new.seq, new.text, new.title);
        END"""
    )
    conn.execute(
        """CREATE TRIGGER kb_chunks_fts_delete AFTER DELETE ON kb_chunks BEGIN
            INSERT INTO kb_chunks_fts(kb_chunks_fts, rowid, text, title)
            VALUES ('delete', old.seq, old.text, old.title);
        END"""
    )
    conn.execute("CREATE TABLE kb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO kb_meta VALUES ('generation', '0')")
