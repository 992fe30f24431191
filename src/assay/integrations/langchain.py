"""assay inside a LangChain pipeline (extra ``assay[langchain]``).

* :class:`AssayRetriever` wraps any vector store or retriever: it fetches the usual
  results, scores and gates them under a policy (or a severity), logs one audit event,
  and returns only the admitted ``Document``\\ s, each carrying its ``confidence``,
  ``label``, sub-scores, finding and ``event_id`` in its metadata.
* :class:`AssayCompressor` does the same to documents another retriever found, as the
  ``base_compressor`` of a ``ContextualCompressionRetriever``.
* :class:`AssayEmbeddings` is assay's own embedder behind LangChain's ``Embeddings``.
* :class:`AssayJudge` is a runnable that rates a chain's answer against the documents it
  rests on: ``{"question", "answer", "documents"}`` in, the J1 assessment out. A
  document's metadata may say who stated it and when (``source_id``, ``source_kind``,
  ``published``): the judge weighs an official document above a chat message that
  contradicts it.

A result's relevance is the store's relevance score
(``similarity_search_with_relevance_scores``), or a ``score`` / ``relevance_score`` in
the document's metadata; a document without one (a store with no relevance scale, such
as ``InMemoryVectorStore``) is scored by the engine's relevance model. The source of
each document comes from its metadata (``source_id`` or ``source_kind``, see
:func:`assay.to_candidates`), else from the ``source_id`` / ``source_kind`` given here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun, Callbacks
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from langchain_core.vectorstores import VectorStore
from pydantic import ConfigDict, PrivateAttr

from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.integrations._gate import Found, Rules, ThreadEngines, admitted, judge_context, judged
from assay.models.embedder import Embedder, get_embedder

__all__ = ["AssayCompressor", "AssayEmbeddings", "AssayJudge", "AssayRetriever"]

_SCORE_KEYS = ("score", "relevance_score", "similarity")


class AssayEmbeddings(Embeddings):
    """assay's embedder (``minilm`` by default) through LangChain's interface."""

    def __init__(self, embedder: Embedder | str = "minilm") -> None:
        self.embedder = get_embedder(embedder)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One unit vector per text."""
        return [[float(x) for x in row] for row in self.embedder.embed(list(texts))]

    def embed_query(self, text: str) -> list[float]:
        """The unit vector of one query."""
        return self.embed_documents([text])[0]


def _gate(
    engine: Assay,
    rules: Rules,
    query: str,
    scored: Sequence[tuple[Document, float | None]],
    origin: str,
) -> list[Document]:
    """The admitted documents of ``scored``, best first, each a copy annotated in
    ``metadata["assay"]``; one audit event naming ``origin`` as the scores' source."""
    found = [Found(d.page_content, s, d.metadata, d.id) for d, s in scored]
    return [
        Document(
            page_content=scored[i][0].page_content,
            metadata=dict(scored[i][0].metadata) | {"assay": governed},
            id=scored[i][0].id,
        )
        for i, governed in admitted(engine, query, found, rules, f"langchain {origin}")
    ]


class AssayRetriever(BaseRetriever):
    """Any vector store or retriever, its results gated by assay (see the module)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    base: VectorStore | BaseRetriever
    engine: Assay
    policy: str | None = None
    severity: str | None = None
    k: int = 8
    source_id: str | None = None
    source_kind: str | None = None
    similarity: Callable[[float], float] | None = None
    grants: list[str] | None = None  #: the asking user's access labels (see ``Rules``)
    _engines: ThreadEngines = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._engines = ThreadEngines(self.engine)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        scored: list[tuple[Document, float | None]]
        if isinstance(self.base, VectorStore):
            try:
                found = self.base.similarity_search_with_relevance_scores(query, k=self.k)
                scored = [(d, s) for d, s in found]
            except NotImplementedError:  # a store with no relevance scale: the model scores
                scored = [(d, None) for d in self.base.similarity_search(query, k=self.k)]
        else:
            docs = self.base.invoke(query, config={"callbacks": run_manager.get_child()})
            scored = [(d, _metadata_score(d)) for d in docs]
        rules = Rules(self.policy, self.severity, self.source_id, self.source_kind,
                      self.similarity, self.grants)  # fmt: skip
        return _gate(self._engines.get(), rules, query, scored, type(self.base).__name__)


class AssayCompressor(BaseDocumentCompressor):
    """Gates documents found by another retriever (a ``ContextualCompressionRetriever``'s
    ``base_compressor``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    engine: Assay
    policy: str | None = None
    severity: str | None = None
    source_id: str | None = None
    source_kind: str | None = None
    similarity: Callable[[float], float] | None = None
    grants: list[str] | None = None  #: the asking user's access labels (see ``Rules``)
    _engines: ThreadEngines = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._engines = ThreadEngines(self.engine)

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        """The admitted documents, best first, annotated (see the module)."""
        rules = Rules(self.policy, self.severity, self.source_id, self.source_kind,
                      self.similarity, self.grants)  # fmt: skip
        scored = [(d, _metadata_score(d)) for d in documents]
        return _gate(self._engines.get(), rules, query, scored, "documents")


def _metadata_score(doc: Document) -> float | None:
    value = next((doc.metadata[k] for k in _SCORE_KEYS if k in doc.metadata), None)
    return None if value is None else float(value)


class AssayJudge(RunnableSerializable[dict[str, Any], dict[str, Any]]):
    """The J1 assessment of a chain's answer, by the engine's judge under ``policy``'s
    thresholds: ``{"question": str, "answer": str, "documents": [Document, ...]}`` in
    (``contexts``, a list of texts, instead of ``documents`` also works), the seven-key
    J1 object out (``recommended_action``, ``confidence_score``, ...)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    engine: Assay
    policy: str | None = None

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The J1 object of ``input``'s answer (see the class)."""
        if not isinstance(input, dict) or not {"question", "answer"} <= set(input):
            raise InvalidInputError(
                "input", input, 'pass {"question": ..., "answer": ..., "documents": [...]}'
            )
        documents = input.get("documents") or []
        found = [(d.page_content, d.metadata or {}) for d in documents] or [
            (text, {}) for text in input.get("contexts") or []
        ]
        contexts = [judge_context(i, text, meta) for i, (text, meta) in enumerate(found, 1)]
        judgment = judged(self.engine, self.policy, input["question"], input["answer"], contexts)
        return judgment.assessment.to_dict()
