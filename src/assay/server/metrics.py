"""Prometheus metrics of the service (B4, R10), served at ``/metrics``.

With several worker processes (``assay serve --workers N``) each worker writes its
samples to ``PROMETHEUS_MULTIPROC_DIR`` (set by ``assay serve``) and ``/metrics``
merges them, so a scrape sees the whole service, not one worker.
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_CONFIDENCE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

REQUEST_SECONDS = Histogram(
    "assay_http_request_duration_seconds",
    "Time to answer an HTTP request, by method, route template and status.",
    ("method", "route", "status"),
    buckets=_LATENCY_BUCKETS,
)
DECISIONS = Counter(
    "assay_decisions_total",
    "Routing decisions (ask: the router's band; score: admitted or abstained).",
    ("endpoint", "policy", "decision"),
)
ABSTENTIONS = Counter(
    "assay_abstentions_total",
    "Requests that ended without evidence-backed output, by status.",
    ("endpoint", "policy", "status"),
)
RATE_LIMITED = Counter(
    "assay_rate_limited_total",
    "Requests refused with 429: the key's requests per minute were used up.",
    ("key",),
)
CONFIDENCE = Histogram(
    "assay_confidence",
    "Confidence of each request (ask: set confidence; score: best admitted item).",
    ("endpoint", "policy"),
    buckets=_CONFIDENCE_BUCKETS,
)

CONTENT_TYPE = CONTENT_TYPE_LATEST


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    """Record one request's latency."""
    REQUEST_SECONDS.labels(method, route, str(status)).observe(seconds)


def observe_outcome(
    endpoint: str, policy: str, decision: str, confidence: float, abstained: str | None
) -> None:
    """Record what one ask or score request decided; ``abstained`` is its status if it did."""
    DECISIONS.labels(endpoint, policy, decision).inc()
    CONFIDENCE.labels(endpoint, policy).observe(confidence)
    if abstained is not None:
        ABSTENTIONS.labels(endpoint, policy, abstained).inc()


def exposition() -> bytes:
    """The text format of every metric (merged across workers when there are several)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest()
