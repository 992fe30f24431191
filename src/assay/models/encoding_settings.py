"""Which encoding cache the process wants: its sizes and its file.

Opening an :class:`~assay.Assay` states them here; :func:`assay.models.encodings.shared_encodings`
builds the cache from them on first use. Kept apart from the cache itself, which needs
numpy and the embedder, so that opening an engine to score candidates loads neither.
"""

from __future__ import annotations

import threading
from pathlib import Path

from assay.errors import InvalidInputError

MIB = 2**20

#: (memory bytes, disk file or None, disk bytes)
EncodingSizes = tuple[int, Path | None, int]

_wanted: EncodingSizes = (256 * MIB, None, 1024 * MIB)
_lock = threading.Lock()


def configure_encodings(memory_bytes: int, disk: Path | None, disk_bytes: int) -> None:
    """Make the process's cache hold ``memory_bytes`` in memory and use the ``disk`` file
    (``None`` or ``disk_bytes == 0``: memory only); unchanged settings keep it as it is."""
    global _wanted
    for name, value in (("memory_bytes", memory_bytes), ("disk_bytes", disk_bytes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidInputError(name, value, "use a size in bytes of at least 0")
    with _lock:
        _wanted = (memory_bytes, disk if disk_bytes else None, disk_bytes)


def wanted_encodings() -> EncodingSizes:
    """The sizes and file last configured (the defaults before any)."""
    with _lock:
        return _wanted
