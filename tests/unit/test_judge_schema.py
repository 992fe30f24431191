"""The J1 assessment contract, its grounding checks and the J6 action thresholds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from assay.actions import ActionThresholds
from assay.errors import InvalidInputError
from assay.judge.base import empty_or_refusal, is_refusal
from assay.judge.schema import Assessment, Context, grounding_problems, is_excerpt

CONTEXTS = [
    Context("sds", "Charge the pack only between 0 °C and 45 °C."),
    Context("forum", "I charge mine at 70 °C and it is fine."),
]
ANSWER = "Charge the pack between 0 °C and 45 °C [Source: sds]. It is always safe."


def valid(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "confidence_score": 0.4,
        "score_rationale": "a conflict over the charging limit",
        "evidence_sufficiency": {"is_sufficient": True, "missing_information": []},
        "source_conflicts": [
            {
                "claim": "I charge mine at 70 °C",
                "source_a": "forum",
                "source_b": "sds",
                "nature": "direct contradiction",
            }
        ],
        "unsupported_claims": ["It is always safe."],
        "speculation_flags": ["It is always safe."],
        "recommended_action": "human_review",
    }
    data.update(changes)
    return data


def test_j1_a_valid_object_round_trips_with_exactly_seven_keys() -> None:
    assessment = Assessment.model_validate_json(json.dumps(valid()))
    assert list(assessment.to_dict()) == [
        "confidence_score",
        "score_rationale",
        "evidence_sufficiency",
        "source_conflicts",
        "unsupported_claims",
        "speculation_flags",
        "recommended_action",
    ]
    assert grounding_problems(assessment, ANSWER, CONTEXTS) == []


@pytest.mark.parametrize(
    "changes",
    [
        {"confidence_score": 1.7},
        {"confidence_score": "0.9"},
        {"recommended_action": "publish_now"},
        {"evidence_sufficiency": {"is_sufficient": True, "missing_information": ["a date"]}},
        {"evidence_sufficiency": {"is_sufficient": "yes", "missing_information": []}},
        {"source_conflicts": [{"claim": "x", "source_a": "a", "source_b": "b", "nature": "odd"}]},
        {"extra": 1},
    ],
)
def test_j1_schema_violations_are_rejected(changes: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Assessment.model_validate_json(json.dumps(valid(**changes)))


def test_j1_a_missing_key_is_rejected() -> None:
    data = valid()
    del data["speculation_flags"]
    with pytest.raises(ValidationError, match="speculation_flags"):
        Assessment.model_validate_json(json.dumps(data))


def test_j1_invented_source_ids_and_paraphrased_quotes_are_found() -> None:
    assessment = Assessment.model_validate(
        valid(
            source_conflicts=[
                {
                    "claim": "the forum says 70 degrees",
                    "source_a": "doc_42.md",
                    "source_b": "sds",
                    "nature": "direct contradiction",
                }
            ],
            unsupported_claims=["it's always safe"],
        )
    )
    problems = grounding_problems(assessment, ANSWER, CONTEXTS)
    assert any("doc_42.md" in p and "neither a context id" in p for p in problems)
    assert any("the forum says 70 degrees" in p for p in problems)
    assert any("it's always safe" in p for p in problems)


def test_j1_an_exact_excerpt_may_stand_in_for_a_source_id() -> None:
    assessment = Assessment.model_validate(
        valid(
            source_conflicts=[
                {
                    "claim": "I charge mine at 70 °C",
                    "source_a": "I charge mine at  70 °C",  # spacing aside, verbatim
                    "source_b": "sds",
                    "nature": "temporal inconsistency",
                }
            ]
        )
    )
    assert grounding_problems(assessment, ANSWER, CONTEXTS) == []
    assert not is_excerpt("", ["anything"])


def test_j6_thresholds_map_scores_to_actions() -> None:
    t = ActionThresholds()
    assert [t.action(s) for s in (0.95, 0.8, 0.79, 0.5, 0.49, 0.3, 0.29, 0.0)] == [
        "publish",
        "publish",
        "append_caveat",
        "append_caveat",
        "human_review",
        "human_review",
        "suppress",
        "suppress",
    ]


def test_j6_thresholds_must_descend() -> None:
    with pytest.raises(InvalidInputError, match="keep publish >= caveat > human_review"):
        ActionThresholds(publish=0.5, caveat=0.6, human_review=0.3)
    with pytest.raises(InvalidInputError, match="are not descending"):
        ActionThresholds(publish=0.8, caveat=0.5, human_review=0.5)
    no_caveat_band = ActionThresholds(publish=0.9, caveat=0.9, human_review=0.5)
    assert [no_caveat_band.action(s) for s in (0.9, 0.89)] == ["publish", "human_review"]
    with pytest.raises(InvalidInputError, match=r"judge\.caveat"):
        ActionThresholds(caveat=1.5)


@given(
    st.lists(st.floats(0, 1), min_size=3, max_size=3, unique=True),
    st.floats(0, 1),
    st.floats(0, 1),
)
def test_j6_a_higher_score_never_gets_a_harsher_action(
    cuts: list[float], low: float, high: float
) -> None:
    review, caveat, publish = sorted(cuts)
    t = ActionThresholds(publish, caveat, review)
    low, high = min(low, high), max(low, high)
    order = ["suppress", "human_review", "append_caveat", "publish"]
    assert order.index(t.action(high)) >= order.index(t.action(low))
    assert t.action(publish) == "publish" and t.action(review) == "human_review"


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   ",
        "I don't have enough information to answer this question.",
        "I cannot answer that from the documents.",
        "Sorry, the context does not say.",
        "There is no information about contractors.",
        "The context does not mention the warranty.",
    ],
)
def test_j4_empty_answers_and_refusals_score_zero_and_suppress(answer: str) -> None:
    judgment = empty_or_refusal(answer, "test-judge")
    assert judgment is not None
    assert judgment.assessment.confidence_score == 0.0
    assert judgment.assessment.recommended_action == "suppress"
    assert judgment.attempts == 0


@pytest.mark.parametrize(
    "answer",
    [
        "Charge between 0 and 45 °C.",
        "No more than 45 °C is allowed while charging.",
        "No.",
        "Unfortunately, a full charge takes about 3 hours [Source: sds].",
        "I don't have enough information on contractors; employees get 12 weeks [Source: hr].",
    ],
)
def test_j4_an_answer_is_not_a_refusal(answer: str) -> None:
    assert not is_refusal(answer)
    assert empty_or_refusal(answer, "t") is None


def test_j1_a_source_id_is_a_context_id_or_a_real_quote_and_two_sides_differ() -> None:
    def conflict(a: str, b: str) -> Assessment:
        return Assessment.model_validate(
            valid(
                source_conflicts=[
                    {"claim": "I charge mine at 70 °C", "source_a": a, "source_b": b,
                     "nature": "direct contradiction"}
                ]
            )
        )  # fmt: skip

    assert grounding_problems(conflict("e", "T"), ANSWER, CONTEXTS)  # letters of a context
    assert grounding_problems(conflict("sds", "sds"), ANSWER, CONTEXTS) == [
        "source_conflicts[0] names the same source twice"
    ]
    assert grounding_problems(conflict("I charge mine", "sds"), ANSWER, CONTEXTS) == []
