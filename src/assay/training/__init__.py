"""Data for the small models assay trains itself: pair builders and a BM25 index.

Not part of the user-facing API of :mod:`assay`; used by training and evaluation scripts.
"""

from assay.training.bm25 import BM25, tokenize
from assay.training.datasets import (
    SPLITS,
    SUPPORT_LABELS,
    RelevancePair,
    SupportPair,
    answer_word_count,
    halueval_pairs,
    relevance_pairs,
    scifact_pairs,
    squad_splits,
)

__all__ = [
    "BM25",
    "SPLITS",
    "SUPPORT_LABELS",
    "RelevancePair",
    "SupportPair",
    "answer_word_count",
    "halueval_pairs",
    "relevance_pairs",
    "scifact_pairs",
    "squad_splits",
    "tokenize",
]
