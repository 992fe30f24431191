"""assay inside a Haystack 2 pipeline (extra ``assay[haystack]``).

* :class:`AssayGate` scores and gates the documents a retriever found, under a policy (or
  a severity), logs one audit event, and passes on only the admitted ``Document``\\ s,
  strongest first, each annotated in ``meta["assay"]`` (``confidence``, ``label``,
  sub-scores, finding, ``event_id``), its ``score`` now its confidence.
* :class:`AssayJudge` rates an answer against the documents: the J1 assessment out. A
  document's ``meta`` may say who stated it and when (``source_id``, ``source_kind``,
  ``published``): the judge weighs an official document above a chat message that
  contradicts it.
* :class:`AssayTextEmbedder` and :class:`AssayDocumentEmbedder` are assay's own embedder
  as Haystack embedders.

A document's relevance is its retriever ``score`` when that is a relevance in [0, 1]
(``scale_score=True`` on Haystack's in-memory retrievers over a store built with
``embedding_similarity_function="cosine"``: the default dot product scales every unit
vector to about 0.5); a document without one is scored by the engine's relevance model.
Its source comes from its ``meta`` (``source_id`` or ``source_kind``), else from the
``source_id`` / ``source_kind`` given.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from haystack import Document, component

from assay.engine import Assay
from assay.integrations._gate import Found, Rules, ThreadEngines, admitted, judge_context, judged
from assay.models.embedder import Embedder, get_embedder

__all__ = ["AssayDocumentEmbedder", "AssayGate", "AssayJudge", "AssayTextEmbedder"]


@component
class AssayGate:
    """Keeps the documents assay admits (see the module)."""

    def __init__(
        self,
        engine: Assay,
        *,
        policy: str | None = None,
        severity: str | None = None,
        source_id: str | None = None,
        source_kind: str | None = None,
        grants: list[str] | None = None,
    ) -> None:
        """``grants``: the asking user's access labels (see ``Rules``)."""
        self._engines = ThreadEngines(engine)
        self._rules = Rules(policy, severity, source_id, source_kind, grants=grants)

    @component.output_types(documents=list[Document])
    def run(self, query: str, documents: list[Document]) -> dict[str, list[Document]]:
        """The admitted documents of ``documents`` for ``query``, annotated copies."""
        found = [Found(d.content or "", d.score, d.meta, d.id) for d in documents]
        kept = admitted(self._engines.get(), query, found, self._rules, "haystack retriever")
        return {
            "documents": [
                replace(
                    documents[i],
                    meta=dict(documents[i].meta) | {"assay": governed},
                    score=float(governed["confidence"]),
                )
                for i, governed in kept
            ]
        }


@component
class AssayJudge:
    """The J1 assessment of an answer against the documents it rests on."""

    def __init__(self, engine: Assay, *, policy: str | None = None) -> None:
        self.engine, self.policy = engine, policy

    @component.output_types(assessment=dict[str, Any])
    def run(self, query: str, answer: str, documents: list[Document]) -> dict[str, dict[str, Any]]:
        """``{"assessment": <the seven-key J1 object>}``."""
        contexts = [judge_context(i, d.content, d.meta or {})
                    for i, d in enumerate(documents, 1) if d.content]  # fmt: skip
        judgment = judged(self.engine, self.policy, query, answer, contexts)
        return {"assessment": judgment.assessment.to_dict()}


@component
class AssayTextEmbedder:
    """A query's vector from assay's embedder (``minilm`` by default)."""

    def __init__(self, embedder: Embedder | str = "minilm") -> None:
        self.embedder = get_embedder(embedder)

    @component.output_types(embedding=list[float])
    def run(self, text: str) -> dict[str, list[float]]:
        """``{"embedding": <unit vector>}``."""
        return {"embedding": [float(x) for x in self.embedder.embed([text])[0]]}


@component
class AssayDocumentEmbedder:
    """Documents with their vectors from assay's embedder (``minilm`` by default)."""

    def __init__(self, embedder: Embedder | str = "minilm") -> None:
        self.embedder = get_embedder(embedder)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        """The documents, each with its ``embedding``."""
        vectors = self.embedder.embed([d.content or "" for d in documents])
        return {
            "documents": [
                replace(d, embedding=[float(x) for x in row])
                for d, row in zip(documents, vectors, strict=True)
            ]
        }
