"""Hybrid retrieval: dense and lexical results fused, each hit given a similarity in [0, 1].

Dense search (exact cosine over the store's vectors) finds passages that mean the
same thing in other words; lexical search (BM25) finds exact names, codes and
numbers that embeddings blur. The two ranked lists are fused by reciprocal rank
fusion (Cormack, Clarke & Buettcher, SIGIR 2009): ``fused(d) = sum 1 / (rrf_k + rank)``
over the lists that returned ``d``; rank fusion needs no score normalisation, which
BM25's unbounded, query-dependent scale would otherwise demand.

The *similarity* handed to the scoring core comes from the query-chunk cosine, for
every hit however it was found: cosine is bounded and comparable across queries, BM25
is neither, so BM25 only decides which chunks are retrieved and in which order. The
cosine is rescaled linearly and clipped, ``(cosine - 0.18) / (0.71 - 0.18)``: 0.18 is
the 95th percentile of MiniLM cosines between SQuAD questions and off-topic paragraphs,
0.71 the 90th percentile between questions and their own paragraph
(``bench/similarity_map.py``; on held-out articles a floor of 0.5 keeps 83% of the own
paragraphs and 0.1% of off-topic ones).

Cosine cannot tell a passage that answers from one on the same topic that does not
(AUROC 0.64 on SQuAD 2.0). When a relevance model is configured (the default),
:func:`apply_relevance` makes each hit's similarity the even blend
``0.5 * relevance + 0.5 * mapped cosine``: the model's probability that the chunk
answers lowers on-topic passages that do not, while the cosine keeps a passage that
answers in other words (the model leans on shared words, so alone it would drop
"disconnects the cells above 60 °C" for "what happens if the pack overheats?"). Both
parts stay in the audit row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from assay.access import Access
from assay.documents import Chunk
from assay.errors import InvalidInputError
from assay.models.embedder import Embedder
from assay.models.encodings import embed_through_cache
from assay.store.base import Store, Vectors
from assay.types import Candidate

SearchMode = Literal["hybrid", "dense", "lexical"]
COSINE_OFF_TOPIC = 0.18
COSINE_STRONG_MATCH = 0.71
SIMILARITY_MAPPING = (
    f"(cosine - {COSINE_OFF_TOPIC}) / ({COSINE_STRONG_MATCH} - {COSINE_OFF_TOPIC}), clipped"
)
RELEVANCE_WEIGHT = 0.5  #: share of the relevance probability in a hit's similarity


@dataclass(frozen=True, slots=True)
class Retrieved:
    """One retrieved chunk with how it was found."""

    chunk: Chunk
    cosine: float
    similarity: float
    fused: float
    dense_rank: int | None = None
    lexical_rank: int | None = None
    relevance: float | None = None  #: the relevance model's score, when one ran

    def to_candidate(self) -> Candidate:
        """The chunk as a candidate for the scoring core (dates and source from ingestion)."""
        c = self.chunk
        return Candidate(
            id=c.id,
            text=c.text,
            similarity=self.similarity,
            source_id=c.source_id,
            published=c.published,
            verified=c.verified,
            title=c.title,
            uri=c.uri,
            metadata={
                "location": c.location,
                "document_id": c.document_id,
                "cosine": round(self.cosine, 6),
                "dense_rank": self.dense_rank,
                "lexical_rank": self.lexical_rank,
                "fused": round(self.fused, 6),
                "relevance": None if self.relevance is None else round(self.relevance, 6),
            },
        )


@dataclass(frozen=True, slots=True)
class Retrieval:
    """The hits of one query, best first, with their vectors (rows in hit order)."""

    query: str
    hits: list[Retrieved]
    vectors: Vectors = field(repr=False)
    mode: SearchMode
    embedder: str
    similarity_from: str = SIMILARITY_MAPPING  #: how hits got their similarity
    access: Access | None = None  #: what the caller could read; ``None``: every chunk


def blended_similarity(relevance: float, cosine: float) -> float:
    """The similarity of a hit scored by a relevance model; see the module docstring."""
    relevance = min(1.0, max(0.0, relevance))
    return RELEVANCE_WEIGHT * relevance + (1 - RELEVANCE_WEIGHT) * cosine_to_similarity(cosine)


def apply_relevance(retrieval: Retrieval, scores: list[float], model: str) -> Retrieval:
    """``retrieval`` with each hit's relevance from ``model`` blended into its similarity."""
    if len(scores) != len(retrieval.hits):
        raise ValueError(f"{len(scores)} relevance scores for {len(retrieval.hits)} hits")
    hits = [
        replace(hit, similarity=blended_similarity(s, hit.cosine), relevance=float(s))
        for hit, s in zip(retrieval.hits, scores, strict=True)
    ]
    how = (
        f"{RELEVANCE_WEIGHT} * relevance ({model}) + {1 - RELEVANCE_WEIGHT} * {SIMILARITY_MAPPING}"
    )
    return replace(retrieval, hits=hits, similarity_from=how)


def cosine_to_similarity(cosine: float) -> float:
    """The documented mapping from MiniLM cosine to the scoring core's similarity."""
    scaled = (cosine - COSINE_OFF_TOPIC) / (COSINE_STRONG_MATCH - COSINE_OFF_TOPIC)
    return min(1.0, max(0.0, scaled))


def search(
    store: Store,
    embedder: Embedder,
    query: str,
    *,
    k: int = 8,
    mode: SearchMode = "hybrid",
    depth: int = 50,
    rrf_k: int = 60,
    variants: Sequence[str] = (),
    access: Access | None = None,
) -> Retrieval:
    """The ``k`` best chunks for ``query`` by dense, lexical or fused (hybrid) ranking.

    ``depth`` is how many results each list contributes before fusion. ``variants`` are
    other phrasings of the query (broadening, R8): each adds its own dense and lexical
    lists to the fusion, while every hit's cosine is still measured against ``query``,
    so a phrasing can bring passages in but cannot make them look closer to the question.
    ``access``: only chunks it may read are searched (``None``: every chunk).
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query", query, "give the question to search for")
    for i, variant in enumerate(variants):
        if not isinstance(variant, str) or not variant.strip():
            raise InvalidInputError(f"variants[{i}]", variant, "give each phrasing as text")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 200:
        raise InvalidInputError("top_k", k, "give a whole number between 1 and 200")
    if mode not in ("hybrid", "dense", "lexical"):
        raise InvalidInputError("mode", mode, "use hybrid, dense or lexical")
    texts = [query, *variants]
    query_vectors = embed_through_cache(embedder, texts)
    with store.snapshot():  # ids, chunks and vectors from one state of the store
        return _search(
            store, embedder.name, list(zip(texts, query_vectors, strict=True)), k, mode, depth,
            rrf_k, access,
        )  # fmt: skip


def _search(
    store: Store,
    embedder: str,
    queries: list[tuple[str, Vectors]],
    k: int,
    mode: SearchMode,
    depth: int,
    rrf_k: int,
    access: Access | None,
) -> Retrieval:
    """Fuse the dense and lexical lists of every (text, vector) in ``queries``; the
    first is the question itself, which every cosine is measured against."""
    lists: dict[str, dict[str, list[int]]] = {}
    for text, vector in queries:
        if mode in ("hybrid", "dense"):
            for rank, hit in enumerate(store.dense_search(vector, max(depth, k), access), start=1):
                lists.setdefault(hit.chunk_id, {}).setdefault("dense", []).append(rank)
        if mode in ("hybrid", "lexical"):
            for rank, hit in enumerate(store.lexical_search(text, max(depth, k), access), start=1):
                lists.setdefault(hit.chunk_id, {}).setdefault("lexical", []).append(rank)
    fused = {
        cid: sum(1.0 / (rrf_k + r) for found in kinds.values() for r in found)
        for cid, kinds in lists.items()
    }
    ranks = {
        cid: {kind: min(found) for kind, found in kinds.items()} for cid, kinds in lists.items()
    }
    last = depth + 1  # rank of a list that did not return the chunk, for tie-breaking

    def order(cid: str) -> tuple[float, int, int]:
        found = ranks[cid]
        return (-fused[cid], found.get("dense", last), found.get("lexical", last))

    query, query_vector = queries[0]

    ids = sorted(fused, key=order)[:k]
    chunks = store.get(ids)
    vectors = store.vectors(ids) if ids else np.zeros((0, len(query_vector)), dtype=np.float32)
    cosines = vectors @ query_vector if ids else np.zeros(0, dtype=np.float32)
    hits = [
        Retrieved(
            chunk=chunk,
            cosine=float(cos),
            similarity=cosine_to_similarity(float(cos)),
            fused=fused[chunk.id],
            dense_rank=ranks[chunk.id].get("dense"),
            lexical_rank=ranks[chunk.id].get("lexical"),
        )
        for chunk, cos in zip(chunks, cosines, strict=True)
    ]
    return Retrieval(query, hits, vectors, mode, embedder, access=access)
