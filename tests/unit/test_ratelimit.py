"""Requests per minute per API key (issue 45): token buckets on a clock the test turns."""

from __future__ import annotations

from assay.server.ratelimit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_key_gets_its_minute_then_waits_for_the_next_request() -> None:
    clock = Clock()
    limiter = RateLimiter(2, clock)
    assert limiter.take("a") is None and limiter.take("a") is None
    wait = limiter.take("a")
    assert wait is not None and abs(wait - 30.0) < 1e-9  # 2 a minute: one every 30 s
    assert RateLimiter.retry_after(wait) == "30"
    assert limiter.take("b") is None  # another key has its own bucket
    clock.now += 30.0
    assert limiter.take("a") is None and limiter.take("a") is not None


def test_an_idle_key_saves_up_no_more_than_one_minute() -> None:
    clock = Clock()
    limiter = RateLimiter(3, clock)
    assert limiter.take("a") is None
    clock.now += 3600.0
    assert [limiter.take("a") for _ in range(3)] == [None, None, None]
    assert limiter.take("a") is not None


def test_no_limit_admits_everything_and_retry_after_is_at_least_one_second() -> None:
    limiter = RateLimiter(0)
    assert all(limiter.take("a") is None for _ in range(10_000))
    assert RateLimiter.retry_after(0.01) == "1"
