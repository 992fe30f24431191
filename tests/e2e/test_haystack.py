"""assay inside a real Haystack 2 pipeline: an in-memory document store embedded with
assay's own embedder, a retriever whose documents AssayGate gates, and AssayJudge."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # before haystack is imported

import pytest
from haystack import Document, Pipeline
from haystack.components.retrievers.in_memory import InMemoryEmbeddingRetriever
from haystack.document_stores.in_memory import InMemoryDocumentStore

from assay import Assay
from assay.integrations.haystack import (
    AssayDocumentEmbedder,
    AssayGate,
    AssayJudge,
    AssayTextEmbedder,
)
from tests.conftest import AS_OF
from tests.e2e.frameworks import FORUM, HOT_CAR, OFFICIAL, OTHER, QUESTION, framework_engine


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Assay]:
    yield from framework_engine(tmp_path)


@pytest.fixture(scope="module")
def store() -> InMemoryDocumentStore:
    dated = {"published": AS_OF.isoformat()}
    documents = [
        Document(content=OFFICIAL, meta={"source_id": "halden-sds"} | dated),
        Document(content=FORUM, meta={"source_id": "forum"} | dated),
        Document(content=OTHER, meta={"source_kind": "unverified"} | dated),
    ]
    store = InMemoryDocumentStore(embedding_similarity_function="cosine")
    store.write_documents(AssayDocumentEmbedder("minilm").run(documents)["documents"])
    return store


def test_b6_a_pipeline_passes_on_only_the_admitted_documents(
    engine: Assay, store: InMemoryDocumentStore
) -> None:
    pipeline = Pipeline()
    pipeline.add_component("embed", AssayTextEmbedder("minilm"))
    pipeline.add_component("retrieve", InMemoryEmbeddingRetriever(store, top_k=3, scale_score=True))
    pipeline.add_component("gate", AssayGate(engine, policy="financial"))
    pipeline.connect("embed.embedding", "retrieve.query_embedding")
    pipeline.connect("retrieve.documents", "gate.documents")
    out = pipeline.run({"embed": {"text": QUESTION}, "gate": {"query": QUESTION}})
    [doc] = out["gate"]["documents"]
    governed = doc.meta["assay"]
    assert doc.content == OFFICIAL and doc.score == governed["confidence"]
    [event] = engine.audit.list(kind="score")
    assert event.event_id == governed["event_id"] and engine.audit.verify().ok


def test_j1_the_judge_component_returns_the_assessment(engine: Assay) -> None:
    judged = AssayJudge(engine, policy="financial").run(
        query=QUESTION, answer="Up to 90 °C is fine.", documents=[Document(content=OFFICIAL)]
    )["assessment"]
    assert judged["recommended_action"] in ("human_review", "suppress") and len(judged) == 7


def test_j1_the_judge_weighs_documents_by_the_source_in_their_meta(engine: Assay) -> None:
    """The forum backs the answer word for word, the data sheet contradicts it: with the
    sources in ``meta`` the data sheet's contradiction wins; without, nobody settles it."""
    judge = AssayJudge(engine, policy="informational")
    sourced = [
        Document(content=OFFICIAL, meta={"source_id": "halden-sds", "published": "2026-03-02"}),
        Document(content=HOT_CAR, meta={"source_kind": "customer"}),
    ]
    weighed = judge.run(query=QUESTION, answer=HOT_CAR, documents=sourced)["assessment"]
    assert weighed["unsupported_claims"] == [HOT_CAR] and weighed["confidence_score"] < 0.2
    assert weighed["recommended_action"] == "suppress"
    bare = [Document(content=d.content) for d in sourced]
    unweighed = judge.run(query=QUESTION, answer=HOT_CAR, documents=bare)["assessment"]
    assert unweighed["unsupported_claims"] == [] and unweighed["source_conflicts"]
    assert unweighed["confidence_score"] > weighed["confidence_score"]


def test_the_gate_passes_grants_through(engine: Assay) -> None:
    """A document whose meta names access labels reaches only a caller holding one."""
    meta = {"source_id": "halden-sds", "access": "hr", "published": AS_OF.isoformat()}
    labelled = Document(content=OFFICIAL, score=0.9, meta=meta)
    for grants, kept in [(["hr"], 1), (["legal"], 0)]:
        gate = AssayGate(engine, policy="financial", grants=grants)
        assert len(gate.run(QUESTION, [labelled])["documents"]) == kept
