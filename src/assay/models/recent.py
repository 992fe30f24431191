"""The last results of a model, kept so that the same input is not run twice.

:class:`Recent` is a thread-safe mapping of at most ``size`` entries; the least recently
used goes first. The cross-encoder keeps pair scores in one, the reader its readings.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping
from typing import Generic, TypeVar

__all__ = ["Recent"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most ``size`` results by key, least recently used evicted first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def found(self, keys: Iterable[K]) -> dict[K, V]:
        """The results kept for ``keys`` (those not kept are absent), now the newest."""
        with self._lock:
            hits = {k: self._items[k] for k in keys if k in self._items}
            for key in hits:
                self._items.move_to_end(key)
        return hits

    def keep(self, results: Mapping[K, V]) -> None:
        """Keep ``results``, evicting the oldest beyond the size."""
        with self._lock:
            self._items.update(results)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._items.clear()
