"""Token states of texts, kept so that no text is run through the same model twice.

The relevance model reads MiniLM's contextual token vectors of the question and of
each retrieved passage. Ingest already ran every chunk through MiniLM to embed it; a
question that encoded the chunks again spent most of its time on work done before.
:class:`EncodingCache` keeps :class:`~assay.models.embedder.TokenWindow` lists in two
tiers, both sized in bytes and keyed by a hash of the model's name and the exact text
(so one text has one entry whoever asks for it, and a new model version never reads
an old one's states):

* memory: least recently used goes first (``encoding_cache_mb``);
* disk: an SQLite file beside the database (``encoding_store_mb``; 0 turns it off),
  filled at ingest and by questions, shared by every process on the machine, least
  recently used rows deleted when it outgrows its size. It is a cache: a disk that
  fails (full, locked, corrupted) turns the tier off with one warning, never an error.

Token vectors are kept as float16 (half the bytes; a cosine moves by less than 0.001)
and handed out as float32, the same from either tier; the pooled vector stays float32.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import struct
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from assay.errors import InvalidInputError
from assay.models.embedder import Embedder, MiniLMEmbedder, TokenWindow, Vectors
from assay.models.encoding_settings import (
    MIB,
    EncodingSizes,
    configure_encodings,
    wanted_encodings,
)

__all__ = ["EncodingCache", "configure_encodings", "embed_through_cache", "shared_encodings"]

log = logging.getLogger(__name__)
T = TypeVar("T")
Encode = Callable[[list[str]], list[list[TokenWindow]]]
_HEADER = struct.Struct("<III")  # tokens, state columns, pooled length of one window
_PER_QUERY = 500  # keys looked up per SQL query
_PER_TOKEN = 120  # bytes of Python objects per token beside the arrays (offset tuples)


@dataclass(frozen=True, slots=True)
class _Entry:
    """One text's windows as stored: states float16."""

    windows: tuple[TokenWindow, ...]
    nbytes: int

    @classmethod
    def of(cls, windows: Sequence[TokenWindow]) -> _Entry:
        kept = tuple(
            TokenWindow(w.ids, w.offsets, w.states.astype(np.float16), w.pooled) for w in windows
        )
        size = sum(
            w.ids.nbytes + w.states.nbytes + w.pooled.nbytes + _PER_TOKEN * len(w.offsets)
            for w in kept
        )
        return cls(kept, size)

    def unpacked(self) -> list[TokenWindow]:
        """The windows with float32 states, as the models read them."""
        return [
            TokenWindow(w.ids, w.offsets, w.states.astype(np.float32), w.pooled)
            for w in self.windows
        ]

    def pack(self) -> bytes:
        parts = [struct.pack("<I", len(self.windows))]
        for w in self.windows:
            parts.append(_HEADER.pack(len(w.ids), w.states.shape[1], len(w.pooled)))
            parts.append(w.ids.astype("<i4").tobytes())
            parts.append(np.asarray(w.offsets, dtype="<i4").reshape(-1, 2).tobytes())
            parts.append(w.states.astype("<f2").tobytes())
            parts.append(w.pooled.astype("<f4").tobytes())
        return b"".join(parts)

    @classmethod
    def unpack(cls, data: bytes) -> _Entry:
        (count,) = struct.unpack_from("<I", data)
        at, windows = 4, []
        for _ in range(count):
            n, dim, pooled = _HEADER.unpack_from(data, at)
            at += _HEADER.size
            ids = np.frombuffer(data, "<i4", n, at).astype(np.int64)
            at += 4 * n
            offsets = np.frombuffer(data, "<i4", 2 * n, at).reshape(n, 2).tolist()
            at += 8 * n
            states = np.frombuffer(data, "<f2", n * dim, at).reshape(n, dim)
            at += 2 * n * dim
            vector = np.frombuffer(data, "<f4", pooled, at).astype(np.float32)
            at += 4 * pooled
            windows.append(TokenWindow(ids, [(a, b) for a, b in offsets], states, vector))
        return cls.of(windows)


class _Disk:
    """The SQLite tier: rows of (key, last use, size, packed windows)."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path, self.max_bytes = path, max_bytes
        self._db = sqlite3.connect(path, timeout=2.0, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=OFF")  # a cache: a crash loses rows, not truth
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS encodings (key BLOB PRIMARY KEY, used INTEGER NOT NULL,"
            " size INTEGER NOT NULL, data BLOB NOT NULL)"
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS encodings_used ON encodings (used)")
        self._db.commit()
        (total,) = self._db.execute("SELECT coalesce(sum(size), 0) FROM encodings").fetchone()
        self.total = int(total)

    def get(self, keys: list[bytes]) -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        now = time.time_ns()
        for start in range(0, len(keys), _PER_QUERY):  # SQLite caps a query's parameters
            part = keys[start : start + _PER_QUERY]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(f"SELECT key, data FROM encodings WHERE key IN ({marks})", part)
            hits = {bytes(k): bytes(d) for k, d in rows}
            if hits:
                with self._db:
                    self._db.execute(
                        f"UPDATE encodings SET used = ? WHERE key IN ({','.join('?' * len(hits))})",
                        [now, *hits],
                    )
            found |= hits
        return found

    def put(self, rows: list[tuple[bytes, bytes]]) -> None:
        now = time.time_ns()
        with self._db:
            for key, data in rows:
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO encodings VALUES (?, ?, ?, ?)",
                    (key, now, len(data), data),
                )
                self.total += len(data) * cursor.rowcount
            if self.total > self.max_bytes:
                self._evict()

    def _evict(self) -> None:
        """Delete the least recently used rows down to 90% of the size."""
        goal, freed = self.total - int(0.9 * self.max_bytes), 0
        doomed = []
        for key, size in self._db.execute("SELECT key, size FROM encodings ORDER BY used"):
            if freed >= goal:
                break
            doomed.append(key)
            freed += size
        self._db.executemany("DELETE FROM encodings WHERE key = ?", [(k,) for k in doomed])
        self.total -= freed

    def close(self) -> None:
        self._db.close()


class EncodingCache:
    """Token windows by (model, text), in memory and optionally on disk; thread-safe."""

    def __init__(
        self, memory_bytes: int = 256 * MIB, disk: Path | None = None, disk_bytes: int = 1024 * MIB
    ) -> None:
        """``memory_bytes`` of windows in memory; a ``disk`` file of at most ``disk_bytes``."""
        for name, value in (("memory_bytes", memory_bytes), ("disk_bytes", disk_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidInputError(name, value, "use a size in bytes of at least 0")
        self.memory_bytes, self.disk_bytes = memory_bytes, disk_bytes
        self._memory: OrderedDict[bytes, _Entry] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()
        self._disk: _Disk | None = None
        self.disk_path = disk if disk_bytes else None
        if disk is not None and disk_bytes > 0:
            try:
                self._disk = _Disk(disk, disk_bytes)
            except sqlite3.Error as exc:
                log.warning("encoding cache %s is unusable (%s); keeping memory only", disk, exc)
        self.hits = {"memory": 0, "disk": 0, "encoded": 0}

    @property
    def sizes(self) -> EncodingSizes:
        """(memory bytes, disk file or None, disk bytes), as configured."""
        return self.memory_bytes, self.disk_path, self.disk_bytes

    @staticmethod
    def key(model: str, text: str) -> bytes:
        """The entry of ``text`` under ``model``: 16 bytes of sha256."""
        return hashlib.sha256(f"{model}\0{text}".encode()).digest()[:16]

    def windows(self, model: str, texts: Sequence[str], encode: Encode) -> list[list[TokenWindow]]:
        """The windows of each text: memory, then disk, then ``encode`` (missing texts
        only, each once) whose results are kept in both tiers."""
        keys = {text: self.key(model, text) for text in texts}
        found: dict[str, _Entry] = {}
        with self._lock:
            for text, key in keys.items():
                entry = self._memory.get(key)
                if entry is not None:
                    self._memory.move_to_end(key)
                    found[text] = entry
            self.hits["memory"] += len(found)
        missing = [t for t in keys if t not in found]
        if missing and self._disk is not None:
            none: dict[bytes, bytes] = {}
            stored = self._disk_call(lambda d: d.get([keys[t] for t in missing]), none)
            loaded = {t: _Entry.unpack(stored[keys[t]]) for t in missing if keys[t] in stored}
            self._remember([(keys[t], e) for t, e in loaded.items()])
            found |= loaded
            self.hits["disk"] += len(loaded)
            missing = [t for t in missing if t not in loaded]
        if missing:
            found |= self.put(model, missing, encode(missing))
            self.hits["encoded"] += len(missing)
        unpacked = {t: found[t].unpacked() for t in keys}  # a repeated text: the same arrays
        return [unpacked[t] for t in texts]

    def put(
        self, model: str, texts: Sequence[str], windows: Sequence[Sequence[TokenWindow]]
    ) -> dict[str, _Entry]:
        """Keep ``windows[i]`` as the windows of ``texts[i]`` in both tiers."""
        entries = {t: _Entry.of(w) for t, w in zip(texts, windows, strict=True)}
        rows = [(self.key(model, t), e) for t, e in entries.items()]
        self._remember(rows)
        if self._disk is not None:
            packed = [(k, e.pack()) for k, e in rows]
            self._disk_call(lambda d: d.put(packed), None)
        return entries

    def clear_memory(self) -> None:
        """Forget the memory tier (benchmarks measure a process that starts cold)."""
        with self._lock:
            self._memory.clear()
            self._held = 0

    def close(self) -> None:
        """Close the disk tier's file."""
        with self._lock:
            if self._disk is not None:
                self._disk.close()
                self._disk = None

    def _remember(self, rows: list[tuple[bytes, _Entry]]) -> None:
        with self._lock:
            for key, entry in rows:
                if key in self._memory or entry.nbytes > self.memory_bytes:
                    continue
                self._memory[key] = entry
                self._held += entry.nbytes
            while self._held > self.memory_bytes:
                _, gone = self._memory.popitem(last=False)
                self._held -= gone.nbytes

    def _disk_call(self, call: Callable[[_Disk], T], fallback: T) -> T:
        """``call`` on the disk tier; a failing disk is turned off with one warning."""
        with self._lock:
            disk = self._disk
            if disk is None:
                return fallback
            try:
                return call(disk)
            except sqlite3.Error as exc:
                log.warning("encoding cache %s failed (%s); keeping memory only", disk.path, exc)
                self._disk = None
                return fallback


_shared: EncodingCache | None = None
_shared_lock = threading.Lock()


def shared_encodings() -> EncodingCache:
    """The process's cache, used by every shipped model that reads token states; built
    on first use as :func:`~assay.models.encoding_settings.configure_encodings` last
    said, and built again (the old one closed) when that changed."""
    global _shared
    wanted = wanted_encodings()
    with _shared_lock:
        current = _shared
        if current is None or current.sizes != wanted:
            if current is not None:
                current.close()
            _shared = current = EncodingCache(*wanted)
        return current


def embed_through_cache(
    embedder: Embedder, texts: Sequence[str], cache: EncodingCache | None = None
) -> Vectors:
    """``embedder.embed(texts)``, with MiniLM's token states kept in ``cache`` (default:
    the process's): the relevance model then reads the question, or a chunk ingest
    embedded, without running the network again; a text already there is not re-run."""
    if not isinstance(embedder, MiniLMEmbedder) or not texts:
        return embedder.embed(texts)
    cache = cache or shared_encodings()
    windows = cache.windows(embedder.name, texts, embedder.encode_tokens)
    return np.stack([w[0].pooled for w in windows])  # what embed() keeps: the first window
