"""A process that starts now, for benchmarks that time a first pass: what ingest left on
disk stays (as it would for a new process), nothing the models kept in memory does."""

from __future__ import annotations

from assay.models.encodings import shared_encodings
from assay.models.pair_classifier import shipped_pair_classifier
from assay.models.reader import SpanReader


def forget_models_caches(reader: SpanReader | None = None) -> None:
    """Forget the token states, the cross-encoder's results and ``reader``'s readings
    kept in memory."""
    shared_encodings().clear_memory()
    shipped_pair_classifier()._cache.clear()
    kept = getattr(reader, "_cache", None)
    if kept is not None:
        kept.clear()
