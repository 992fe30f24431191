"""assay inside a real LangChain pipeline: an in-memory vector store embedded with
assay's own embedder, its results gated by AssayRetriever, a runnable chain over it, and
AssayCompressor on documents another retriever found."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda
from langchain_core.vectorstores import InMemoryVectorStore

from assay import Assay
from assay.errors import InvalidInputError
from assay.integrations.langchain import (
    AssayCompressor,
    AssayEmbeddings,
    AssayJudge,
    AssayRetriever,
)
from tests.conftest import AS_OF
from tests.e2e.frameworks import FORUM, HOT_CAR, OFFICIAL, OTHER, QUESTION, framework_engine


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Assay]:
    yield from framework_engine(tmp_path)


@pytest.fixture(scope="module")
def embeddings() -> AssayEmbeddings:
    return AssayEmbeddings("minilm")


@pytest.fixture
def store(embeddings: AssayEmbeddings) -> InMemoryVectorStore:
    store = InMemoryVectorStore(embedding=embeddings)
    dated = {"published": AS_OF.isoformat()}
    store.add_documents(
        [
            Document(OFFICIAL, metadata={"source_id": "halden-sds", "title": "SDS"} | dated),
            Document(FORUM, metadata={"source_id": "forum"} | dated),
            Document(OTHER, metadata={"source_kind": "unverified"} | dated),
        ]
    )
    return store


def test_b6_the_retriever_returns_only_admitted_documents_annotated(
    engine: Assay, store: InMemoryVectorStore
) -> None:
    retriever = AssayRetriever(base=store, engine=engine, policy="financial", k=3)
    docs = retriever.invoke(QUESTION)
    assert [d.page_content for d in docs] == [OFFICIAL]  # the forum and the snakes stay out
    governed = docs[0].metadata["assay"]
    assert governed["label"] in ("high", "medium") and 0 < governed["confidence"] <= 1
    assert set(governed["scores"]) == {"similarity", "source", "freshness"}
    assert docs[0].metadata["title"] == "SDS"  # the document's own metadata is kept
    [event] = engine.audit.list(kind="score")
    assert event.event_id == governed["event_id"] and event.query == QUESTION
    excluded = [e for e in event.record().evidence if not e.admitted]  # type: ignore[attr-defined]
    assert len(excluded) == 2 and engine.audit.verify().ok


def test_b6_a_chain_runs_over_the_governed_retriever(
    engine: Assay, store: InMemoryVectorStore
) -> None:
    retriever = AssayRetriever(base=store, engine=engine, severity="informational", k=3)
    chain = retriever | RunnableLambda(
        lambda docs: "\n".join(f"[{d.metadata['assay']['label']}] {d.page_content}" for d in docs)
    )
    context = chain.invoke(QUESTION)
    assert OFFICIAL in context and OTHER not in context


def test_b6_the_compressor_gates_another_retrievers_documents(
    engine: Assay, store: InMemoryVectorStore
) -> None:
    """Documents without a score are scored by the engine's relevance model."""
    found = store.as_retriever(search_kwargs={"k": 3}).invoke(QUESTION)
    assert all("score" not in d.metadata for d in found)
    kept = AssayCompressor(engine=engine, policy="financial").compress_documents(found, QUESTION)
    assert [d.page_content for d in kept] == [OFFICIAL]
    assert kept[0].metadata["assay"]["event_id"] == engine.audit.list(kind="score")[0].event_id


def test_j1_a_chain_ends_in_the_judges_assessment(
    engine: Assay, store: InMemoryVectorStore
) -> None:
    retriever = AssayRetriever(base=store, engine=engine, policy="financial", k=3)
    judged = (
        RunnableLambda(lambda q: {"question": q, "documents": retriever.invoke(q)})
        | RunnableLambda(lambda x: x | {"answer": "Up to 90 °C is fine in a car."})
        | AssayJudge(engine=engine, policy="financial")
    )
    assessment = judged.invoke(QUESTION)
    assert assessment["recommended_action"] in ("human_review", "suppress")
    assert assessment["confidence_score"] < 0.5 and len(assessment) == 7


def test_b6_the_retriever_works_from_langchains_thread_pools(
    engine: Assay, store: InMemoryVectorStore
) -> None:
    """batch() and ainvoke() call the retriever from worker threads: each thread gets
    its own fork of the engine (a connection stays in its thread)."""
    import asyncio

    retriever = AssayRetriever(base=store, engine=engine, policy="financial", k=3)
    batched = retriever.batch([QUESTION, QUESTION], config={"max_concurrency": 2})
    later = asyncio.run(retriever.ainvoke(QUESTION))
    assert [[d.page_content for d in docs] for docs in [*batched, later]] == [[OFFICIAL]] * 3
    assert len(engine.audit.list(kind="score")) == 3 and engine.audit.verify().ok


def test_j1_the_judge_weighs_documents_by_the_source_in_their_metadata(engine: Assay) -> None:
    """The forum backs the answer word for word, the data sheet contradicts it: with the
    sources in the metadata the data sheet's contradiction wins; without, nobody settles it."""
    judge = AssayJudge(engine=engine, policy="informational")
    documents = [
        Document(page_content=OFFICIAL, metadata={"source_id": "halden-sds"}),
        Document(page_content=HOT_CAR, metadata={"source_id": "forum", "date": "2026-11-02"}),
    ]
    weighed = judge.invoke({"question": QUESTION, "answer": HOT_CAR, "documents": documents})
    assert weighed["unsupported_claims"] == [HOT_CAR] and weighed["confidence_score"] < 0.2
    texts = [OFFICIAL, HOT_CAR]
    unweighed = judge.invoke({"question": QUESTION, "answer": HOT_CAR, "contexts": texts})
    assert unweighed["unsupported_claims"] == [] and unweighed["source_conflicts"]
    with pytest.raises(InvalidInputError, match="source_kind='chat' is not a known source kind"):
        judge.invoke({"question": QUESTION, "answer": HOT_CAR, "documents": [
            Document(page_content=HOT_CAR, metadata={"source_kind": "chat"})]})  # fmt: skip


def test_grants_pass_through_the_components(engine: Assay, store: InMemoryVectorStore) -> None:
    """A document labelled in its metadata (``access``) reaches only a caller holding the
    label: the engine's key's grants, narrowed per component, never widened; the thread
    pools' forks act for the same key."""
    labelled = [Document(OFFICIAL, metadata={"source_id": "halden-sds", "access": ["hr"],
                                             "published": AS_OF.isoformat()})]  # fmt: skip
    plain_key, _ = engine.keys.create("plain app", ["reader"])
    hr = AssayCompressor(engine=engine, policy="financial", grants=["hr"])
    assert [d.page_content for d in hr.compress_documents(labelled, QUESTION)] == [OFFICIAL]
    legal = AssayCompressor(engine=engine, policy="financial", grants=["legal"])
    assert legal.compress_documents(labelled, QUESTION) == []
    as_plain = engine.acting_as_key(plain_key.id)
    widened = AssayCompressor(engine=as_plain, policy="financial", grants=["hr"])
    assert widened.compress_documents(labelled, QUESTION) == []
    forked = as_plain.fork()  # what a thread pool's worker gets
    assert (forked.access, forked.audit.actor) == (as_plain.access, plain_key.id)
    forked.close()
