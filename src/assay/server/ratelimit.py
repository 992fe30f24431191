"""Requests per minute per API key (B4): one key cannot take the service from the others.

A token bucket per key: ``per_minute`` requests in a burst, refilled at ``per_minute``
a minute. The middleware (:mod:`assay.server.middleware`) takes one token per request
once the key is known, before the body is read; without one the caller gets 429 with
``Retry-After`` (whole seconds until a token is back), counted in ``/metrics``
(``assay_rate_limited_total``). Each worker process keeps its own buckets (``assay serve
--workers 4 --rate-limit 600`` lets a key make up to 2,400 a minute across them). The
buckets live in memory, on the event loop's thread: no lock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

__all__ = ["RateLimiter"]


class RateLimiter:
    """Token buckets keyed by API key id; ``per_minute`` 0 admits everything."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key id -> (tokens, at)

    def take(self, key_id: str) -> float | None:
        """Take one request for ``key_id``: ``None`` when admitted, else the seconds
        until the next one would be."""
        if self.per_minute <= 0:
            return None
        now, rate = self._clock(), self.per_minute / 60.0
        tokens, at = self._buckets.get(key_id, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - at) * rate)
        if tokens >= 1.0:
            self._buckets[key_id] = (tokens - 1.0, now)
            return None
        self._buckets[key_id] = (tokens, now)
        return (1.0 - tokens) / rate

    @staticmethod
    def retry_after(seconds: float) -> str:
        """The ``Retry-After`` header value: whole seconds, at least one."""
        return str(max(1, math.ceil(seconds)))
