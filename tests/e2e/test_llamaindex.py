"""assay inside a real LlamaIndex pipeline: a VectorStoreIndex embedded with assay's own
embedder, a query engine whose nodes AssayPostprocessor gates, and AssayEvaluator's J1
verdict, all offline."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.response.schema import Response
from llama_index.core.llms.mock import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers.no_text import NoText
from llama_index.core.schema import NodeWithScore, TextNode

from assay import Assay
from assay.errors import InvalidInputError
from assay.integrations.llamaindex import AssayEmbedding, AssayEvaluator, AssayPostprocessor
from tests.conftest import AS_OF
from tests.e2e.frameworks import FORUM, HOT_CAR, OFFICIAL, OTHER, QUESTION, framework_engine


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Assay]:
    yield from framework_engine(tmp_path)


@pytest.fixture(scope="module")
def index() -> VectorStoreIndex:
    dated = {"published": AS_OF.isoformat()}
    documents = [
        Document(text=OFFICIAL, metadata={"source_id": "halden-sds"} | dated),
        Document(text=FORUM, metadata={"source_id": "forum"} | dated),
        Document(text=OTHER, metadata={"source_kind": "unverified"} | dated),
    ]
    return VectorStoreIndex.from_documents(documents, embed_model=AssayEmbedding("minilm"))


def test_b6_a_query_engine_keeps_only_the_admitted_nodes(
    engine: Assay, index: VectorStoreIndex
) -> None:
    gate = AssayPostprocessor(engine=engine, policy="financial")
    # NoText: the engine returns the gated nodes and asks no LLM (MockLLM is never called)
    query_engine = RetrieverQueryEngine(
        retriever=index.as_retriever(similarity_top_k=3),
        response_synthesizer=NoText(llm=MockLLM()),
        node_postprocessors=[gate],
    )
    response = query_engine.query(QUESTION)
    [node] = response.source_nodes
    governed = node.node.metadata["assay"]
    assert node.node.get_content() == OFFICIAL and node.score == governed["confidence"]
    assert governed["label"] in ("high", "medium")
    [event] = engine.audit.list(kind="score")
    assert event.event_id == governed["event_id"] and event.query == QUESTION
    assert engine.audit.verify().ok


def test_b6_nodes_without_scores_are_scored_by_the_relevance_model(
    engine: Assay, index: VectorStoreIndex
) -> None:
    nodes = index.as_retriever(similarity_top_k=3).retrieve(QUESTION)
    for node in nodes:
        node.score = None
    kept = AssayPostprocessor(engine=engine, policy="financial").postprocess_nodes(
        nodes, query_str=QUESTION
    )
    assert [n.node.get_content() for n in kept] == [OFFICIAL]


def test_j1_the_evaluator_returns_the_assessment(engine: Assay) -> None:
    evaluator = AssayEvaluator(engine, policy="financial")
    good = evaluator.evaluate(
        query=QUESTION, response="Between 0 °C and 45 °C.", contexts=[OFFICIAL]
    )
    bad = evaluator.evaluate(
        query=QUESTION, response="Up to 90 °C is fine in a car.", contexts=[OFFICIAL]
    )
    assert good.score is not None and bad.score is not None and good.score > bad.score
    assert good.passing and not bad.passing
    assessment = json.loads(bad.feedback or "{}")
    assert assessment["recommended_action"] in ("human_review", "suppress")
    assert set(assessment) == {
        "confidence_score", "score_rationale", "evidence_sufficiency", "source_conflicts",
        "unsupported_claims", "speculation_flags", "recommended_action",
    }  # fmt: skip


def test_b6_aquery_gates_from_a_worker_thread(engine: Assay, index: VectorStoreIndex) -> None:
    """aquery() runs the postprocessor in a worker thread: it uses its own fork of the
    engine, and the caller's nodes are left as they were."""
    import asyncio

    query_engine = RetrieverQueryEngine(
        retriever=index.as_retriever(similarity_top_k=3),
        response_synthesizer=NoText(llm=MockLLM()),
        node_postprocessors=[AssayPostprocessor(engine=engine, policy="financial")],
    )
    response = asyncio.run(query_engine.aquery(QUESTION))
    [node] = response.source_nodes
    assert node.node.get_content() == OFFICIAL and "assay" in node.node.metadata
    assert "assay" in node.node.excluded_llm_metadata_keys  # kept out of the LLM's prompt
    original = index.as_retriever(similarity_top_k=3).retrieve(QUESTION)
    assert all("assay" not in n.node.metadata for n in original)
    assert len(engine.audit.list(kind="score")) == 1


def test_j1_the_evaluator_weighs_contexts_by_their_source(engine: Assay) -> None:
    """The forum backs the response word for word, the data sheet contradicts it: with the
    sources given (``sources=``, or a response's source nodes) the data sheet wins."""
    evaluator = AssayEvaluator(engine, policy="informational")
    sources = [{"source_id": "halden-sds"}, {"source_kind": "unverified"}]
    weighed = evaluator.evaluate(
        query=QUESTION, response=HOT_CAR, contexts=[OFFICIAL, HOT_CAR], sources=sources
    )
    unweighed = evaluator.evaluate(query=QUESTION, response=HOT_CAR, contexts=[OFFICIAL, HOT_CAR])
    assert weighed.score is not None and unweighed.score is not None
    assert weighed.score < 0.2 < unweighed.score and not weighed.passing
    assert json.loads(weighed.feedback or "{}")["unsupported_claims"] == [HOT_CAR]
    nodes = [NodeWithScore(node=TextNode(text=t, metadata=m), score=0.9)
             for t, m in zip([OFFICIAL, HOT_CAR], sources, strict=True)]  # fmt: skip
    response = evaluator.evaluate_response(QUESTION, Response(HOT_CAR, source_nodes=nodes))
    assert response.score == weighed.score
    with pytest.raises(InvalidInputError, match="one per context"):
        evaluator.evaluate(query=QUESTION, response=HOT_CAR, contexts=[OFFICIAL], sources=sources)


def test_the_postprocessor_passes_grants_through(engine: Assay) -> None:
    """A node whose metadata names access labels reaches only a caller holding one."""
    meta = {"source_id": "halden-sds", "access": ["hr"], "published": AS_OF.isoformat()}
    node = NodeWithScore(node=TextNode(text=OFFICIAL, metadata=meta), score=0.9)
    for grants, kept in [(["hr"], 1), (["legal"], 0)]:
        gate = AssayPostprocessor(engine=engine, policy="financial", grants=grants)
        assert len(gate.postprocess_nodes([node], query_str=QUESTION)) == kept
