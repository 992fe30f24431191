"""assay inside a LlamaIndex pipeline (extra ``assay[llamaindex]``).

* :class:`AssayPostprocessor` is a node postprocessor: it scores and gates the retrieved
  ``NodeWithScore``\\ s under a policy (or a severity), logs one audit event, and keeps
  only the admitted nodes, strongest first, each annotated in ``node.metadata["assay"]``
  (``confidence``, ``label``, sub-scores, finding, ``event_id``); the node's score
  becomes its confidence.
* :class:`AssayEvaluator` rates a response against its contexts with assay's judge: an
  ``EvaluationResult`` whose score is the J1 confidence score, passing when the
  recommended action is ``publish`` or ``append_caveat``, with the whole J1 assessment
  as its feedback (JSON).
* :class:`AssayEmbedding` is assay's own embedder behind LlamaIndex's ``BaseEmbedding``.

A node's relevance is its retriever score when that is a relevance in [0, 1]; a node
without a score is scored by the engine's relevance model. Its source comes from its
metadata (``source_id`` or ``source_kind``, see :func:`assay.to_candidates`), else from
the ``source_id`` / ``source_kind`` given here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.evaluation import BaseEvaluator, EvaluationResult
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.prompts.mixin import PromptDictType
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import ConfigDict, PrivateAttr

from assay.adapters import to_candidates
from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.judge.evaluate import evaluate
from assay.models.embedder import Embedder, get_embedder

__all__ = ["AssayEmbedding", "AssayEvaluator", "AssayPostprocessor"]

_PASSING = ("publish", "append_caveat")


class AssayEmbedding(BaseEmbedding):
    """assay's embedder (``minilm`` by default) through LlamaIndex's interface."""

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder | str = "minilm", **kwargs: Any) -> None:
        chosen = get_embedder(embedder)
        super().__init__(model_name=chosen.name, **kwargs)
        self._embedder = chosen

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self._embedder.embed(list(texts))]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embedding(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


class AssayPostprocessor(BaseNodePostprocessor):
    """Gates retrieved nodes with assay (see the module)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    engine: Assay
    policy: str | None = None
    severity: str | None = None
    source_id: str | None = None
    source_kind: str | None = None
    similarity: Callable[[float], float] | None = None

    @classmethod
    def class_name(cls) -> str:
        return "AssayPostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            raise InvalidInputError("query", None, "pass the query (query_str=...)")
        query = query_bundle.query_str
        if not nodes:
            return []
        scored = self._with_relevance(query, nodes)
        candidates = to_candidates(
            scored, source_id=self.source_id, source_kind=self.source_kind,
            similarity=self.similarity,
        )  # fmt: skip
        result = self.engine.score(
            query, candidates, policy=self.policy, severity=self.severity,
            models={"similarity": "llamaindex retriever"},
        )  # fmt: skip
        by_id = {c.id: n for c, n in zip(candidates, scored, strict=True)}
        finding_of = {e: f.id for f in result.findings for e in f.evidence_ids}
        kept = []
        for item in result.evidence:
            if not item.admitted:
                continue
            node = by_id[item.id]
            node.node.metadata["assay"] = {
                "confidence": item.confidence,
                "label": item.label.value,
                "scores": item.scores.as_dict(),
                "finding": finding_of.get(item.id),
                "evidence_id": item.id,
                "event_id": result.event_id,
                "policy": f"{item.policy_name} v{item.policy_version}",
            }
            kept.append(NodeWithScore(node=node.node, score=item.confidence))
        return sorted(kept, key=lambda n: -(n.score or 0.0))

    def _with_relevance(self, query: str, nodes: list[NodeWithScore]) -> list[NodeWithScore]:
        """The nodes, each with a relevance score (the engine's model scores those without)."""
        missing = [n for n in nodes if n.score is None]
        if not missing:
            return nodes
        model = self.engine.relevance
        if model is None:
            raise InvalidInputError(
                "score", None, "retrieve with scores, or give the engine a relevance model",
                problem="is missing from a node",
            )  # fmt: skip
        values = iter(model.score(query, [n.node.get_content() for n in missing]))
        return [n if n.score is not None else NodeWithScore(node=n.node, score=next(values))
                for n in nodes]  # fmt: skip


class AssayEvaluator(BaseEvaluator):
    """A response rated against its contexts by assay's judge (see the module)."""

    def __init__(self, engine: Assay, *, policy: str | None = None) -> None:
        self.engine = engine
        self.policy = policy

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts_dict: PromptDictType) -> None:
        """assay's judge has no LlamaIndex prompts to update."""

    async def aevaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """As :meth:`evaluate` (the judge is not asynchronous)."""
        return self.evaluate(query, response, contexts, **kwargs)

    def evaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """The J1 assessment of ``response`` to ``query`` against ``contexts``. Done here,
        not through LlamaIndex's ``asyncio_run``, which leaves an event loop open."""
        if query is None or response is None or not contexts:
            raise InvalidInputError(
                "evaluate", None, "pass query, response and at least one context",
                problem="is missing an input",
            )  # fmt: skip
        chosen = self.policy or self.engine.settings.default_policy
        policy = self.engine.policies.resolve(name=chosen)
        assessment = evaluate(
            query,
            response,
            [{"id": f"context-{i}", "text": text} for i, text in enumerate(contexts, 1)],
            judge=self.engine.judge,
            thresholds=policy.judge.thresholds,
        ).assessment
        return EvaluationResult(
            query=query,
            contexts=list(contexts),
            response=response,
            passing=assessment.recommended_action in _PASSING,
            score=assessment.confidence_score,
            feedback=json.dumps(assessment.to_dict(), ensure_ascii=False),
        )
