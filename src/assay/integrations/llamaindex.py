"""assay inside a LlamaIndex pipeline (extra ``assay[llamaindex]``).

* :class:`AssayPostprocessor` is a node postprocessor: it scores and gates the retrieved
  ``NodeWithScore``\\ s under a policy (or a severity), logs one audit event, and keeps
  only the admitted nodes, strongest first, each annotated in ``node.metadata["assay"]``
  (``confidence``, ``label``, sub-scores, finding, ``event_id``); the node's score
  becomes its confidence.
* :class:`AssayEvaluator` rates a response against its contexts with assay's judge: an
  ``EvaluationResult`` whose score is the J1 confidence score, passing when the
  recommended action is ``publish`` or ``append_caveat``, with the whole J1 assessment
  as its feedback (JSON). ``evaluate_response`` reads who stated each source node and
  when from its metadata (``source_id``, ``source_kind``, ``published``), and
  ``evaluate`` takes the same per context as ``sources=``: the judge weighs an official
  document above a chat message that contradicts it.
* :class:`AssayEmbedding` is assay's own embedder behind LlamaIndex's ``BaseEmbedding``.

A node's relevance is its retriever score when that is a relevance in [0, 1]; a node
without a score is scored by the engine's relevance model. Its source comes from its
metadata (``source_id`` or ``source_kind``, see :func:`assay.to_candidates`), else from
the ``source_id`` / ``source_kind`` given here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from llama_index.core.base.response.schema import Response
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.evaluation import BaseEvaluator, EvaluationResult
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.prompts.mixin import PromptDictType
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import ConfigDict, PrivateAttr

from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.integrations._gate import Found, Rules, ThreadEngines, admitted, judge_context, judged
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
    grants: list[str] | None = None  #: the asking user's access labels (see ``Rules``)

    @classmethod
    def class_name(cls) -> str:
        return "AssayPostprocessor"

    _engines: ThreadEngines = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._engines = ThreadEngines(self.engine)

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            raise InvalidInputError("query", None, "pass the query (query_str=...)")
        rules = Rules(self.policy, self.severity, self.source_id, self.source_kind,
                      self.similarity, self.grants)  # fmt: skip
        found = [Found(n.node.get_content(), n.score, n.node.metadata, n.node.node_id)
                 for n in nodes]  # fmt: skip
        kept = admitted(
            self._engines.get(), query_bundle.query_str, found, rules, "llamaindex retriever"
        )
        return [_annotated(nodes[i], governed) for i, governed in kept]


def _annotated(found: NodeWithScore, governed: dict[str, Any]) -> NodeWithScore:
    """A copy of the node with ``metadata["assay"]`` (kept out of the LLM's context and
    the embedding text) and its confidence as its score."""
    node = found.node.model_copy()
    node.metadata = dict(node.metadata) | {"assay": governed}
    for keys in (node.excluded_llm_metadata_keys, node.excluded_embed_metadata_keys):
        if "assay" not in keys:
            keys.append("assay")
    return NodeWithScore(node=node, score=float(governed["confidence"]))


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

    def evaluate_response(
        self, query: str | None = None, response: Response | None = None, **kwargs: Any
    ) -> EvaluationResult:
        """As :meth:`evaluate`, with the response's text and its source nodes' texts as
        contexts and their metadata as ``sources``."""
        if response is None:
            return self.evaluate(query, None, None, **kwargs)
        nodes = response.source_nodes
        return self.evaluate(
            query, response.response, [n.node.get_content() for n in nodes],
            sources=[n.node.metadata for n in nodes], **kwargs,
        )  # fmt: skip

    async def aevaluate_response(
        self, query: str | None = None, response: Response | None = None, **kwargs: Any
    ) -> EvaluationResult:
        """As :meth:`evaluate_response` (the judge is not asynchronous)."""
        return self.evaluate_response(query, response, **kwargs)

    def evaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        *,
        sources: Sequence[Mapping[str, Any] | None] | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """The J1 assessment of ``response`` to ``query`` against ``contexts``. Done here,
        not through LlamaIndex's ``asyncio_run``, which leaves an event loop open.

        ``sources``: per context (in order), the metadata that says who stated it and
        when (``source_id``, ``source_kind``, ``published``)."""
        if query is None or response is None or not contexts:
            raise InvalidInputError(
                "evaluate", None, "pass query, response and at least one context",
                problem="is missing an input",
            )  # fmt: skip
        if sources is not None and len(sources) != len(contexts):
            raise InvalidInputError(
                "sources", f"{len(sources)} items", f"give one per context ({len(contexts)})",
                problem="does not match the contexts",
            )  # fmt: skip
        metadata = sources or [None] * len(contexts)
        assessment = judged(
            self.engine, self.policy, query, response,
            [judge_context(i, text, meta or {})
             for i, (text, meta) in enumerate(zip(contexts, metadata, strict=True), 1)],
        ).assessment  # fmt: skip
        return EvaluationResult(
            query=query,
            contexts=list(contexts),
            response=response,
            passing=assessment.recommended_action in _PASSING,
            score=assessment.confidence_score,
            feedback=json.dumps(assessment.to_dict(), ensure_ascii=False),
        )
