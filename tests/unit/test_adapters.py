"""Drop-in scoring of other retrievers' results (B6), against the real LangChain and
LlamaIndex types."""

from __future__ import annotations

from datetime import date

import pytest
from langchain_core.documents import Document
from llama_index.core.schema import NodeWithScore, TextNode

from assay import Assay, InvalidInputError
from assay.adapters import to_candidates
from tests.conftest import AS_OF


def test_b6_text_score_pairs_get_stable_content_ids() -> None:
    first = to_candidates([("Charge between 0 and 45 C.", 0.8)], source_kind="unverified")
    again = to_candidates([("Charge between 0 and 45 C.", 0.8)], source_kind="unverified")
    assert first == again
    assert first[0].id.startswith("sha256:") and first[0].similarity == 0.8


def test_b6_dicts_with_common_key_names() -> None:
    [c] = to_candidates(
        [
            {
                "content": "text",
                "score": 0.6,
                "id": "d1",
                "metadata": {"url": "https://x", "lang": "en"},
            }
        ],
        source_id="kb",
    )
    assert (c.id, c.text, c.similarity, c.source_id, c.uri) == (
        "d1",
        "text",
        0.6,
        "kb",
        "https://x",
    )
    assert c.metadata == {"lang": "en"}


def test_b6_langchain_documents_with_relevance_scores() -> None:
    doc = Document(
        page_content="Charge only between 0 and 45 degrees.",
        metadata={"source": "sds.pdf", "source_id": "sds", "published": "2026-10-01", "page": 7},
        id="sds-p7",
    )
    [c] = to_candidates([(doc, 0.83)])
    assert (c.id, c.source_id, c.uri, c.published) == (
        "sds-p7",
        "sds",
        "sds.pdf",
        date(2026, 10, 1),
    )
    assert c.similarity == 0.83 and c.metadata == {"page": 7}


def test_b6_llamaindex_nodes_with_score() -> None:
    node = TextNode(
        text="Charge only between 0 and 45 degrees.",
        id_="n-1",
        metadata={"source_kind": "internal_wiki", "last_verified": "2026-11-01"},
    )
    [c] = to_candidates([NodeWithScore(node=node, score=0.71)])
    assert (c.id, c.source_kind, c.verified, c.similarity) == (
        "n-1",
        "internal_wiki",
        date(2026, 11, 1),
        0.71,
    )


def test_b6_distances_need_an_explicit_mapping() -> None:
    with pytest.raises(InvalidInputError, match=r"1 - d for a cosine distance"):
        to_candidates([("text", 1.4)], source_kind="unverified")
    [c] = to_candidates([("text", 0.25)], source_kind="unverified", similarity=lambda d: 1 - d)
    assert c.similarity == 0.75


def test_b6_unknown_objects_and_missing_scores_are_named() -> None:
    with pytest.raises(InvalidInputError, match="is not a retriever result assay knows"):
        to_candidates([object()], source_kind="unverified")
    with pytest.raises(InvalidInputError, match="item 0: score=None is missing"):
        to_candidates([Document(page_content="x")], source_kind="unverified")


def test_b6_langchain_results_score_end_to_end(engine: Assay) -> None:
    docs = [
        (
            Document(
                page_content="Charge only between 0 and 45 degrees.",
                metadata={"source_id": "sds", "published": "2026-11-01"},
            ),
            0.9,
        ),
        (
            Document(
                page_content="Pythons migrate in winter.", metadata={"source_kind": "unverified"}
            ),
            0.2,
        ),
    ]
    result = engine.score("charging range?", to_candidates(docs), policy="financial", as_of=AS_OF)
    assert [e.candidate.source_id for e in result.admitted] == ["sds"]
    assert [e.reason.value for e in result.excluded if e.reason] == ["below_similarity_floor"]
