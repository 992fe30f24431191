"""The LLM judge (J1, J4, J5, J6) against a real HTTP server playing back scripted replies."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from assay.actions import ActionThresholds
from assay.answer.prompts import JUDGE
from assay.errors import InvalidInputError
from assay.judge.base import Judge, Judgment
from assay.judge.contexts import check_contexts
from assay.judge.llm_judge import LLMJudge, extract_json
from assay.judge.schema import Assessment, Context, EvidenceSufficiency
from tests.fake_llm import Endpoint, Reply, serve, text_reply

CONTEXTS = [
    Context("kb-battery-7", "The X200 battery may be charged between 0 and 45 degrees Celsius."),
    Context("sds-x200#3", "Charging the X200 above 40 degrees Celsius shortens its life."),
]
QUERY = "At what temperatures may the X200 battery be charged?"
ANSWER = "The X200 may be charged between 0 and 45 degrees Celsius [Source: kb-battery-7]."
THRESHOLDS = ActionThresholds()


class FixedJudge:
    """A deterministic stand-in for the model judge: 0.42 for anything, counted."""

    name = "fixed-judge"

    def __init__(self) -> None:
        self.calls = 0

    def judge(
        self,
        query: str,
        answer: str,
        contexts: Sequence[Context],
        thresholds: ActionThresholds,
    ) -> Judgment:
        self.calls += 1
        return Judgment(
            Assessment(
                confidence_score=0.42,
                score_rationale="the fixed fallback",
                evidence_sufficiency=EvidenceSufficiency(
                    is_sufficient=False, missing_information=["anything"]
                ),
                source_conflicts=[],
                unsupported_claims=[],
                speculation_flags=[],
                recommended_action=thresholds.action(0.42),
            ),
            judge=self.name,
            notes=("fixed",),
        )


def assessment(**changes: Any) -> dict[str, Any]:
    """A valid J1 reply for ANSWER, with ``changes`` applied (``None`` deletes a key)."""
    reply: dict[str, Any] = {
        "confidence_score": 0.9,
        "score_rationale": "The answer is stated by kb-battery-7.",
        "evidence_sufficiency": {"is_sufficient": True, "missing_information": []},
        "source_conflicts": [],
        "unsupported_claims": [],
        "speculation_flags": [],
        "recommended_action": "publish",
    }
    for key, value in changes.items():
        if value is None:
            del reply[key]
        else:
            reply[key] = value
    return reply


def reply(payload: dict[str, Any] | str) -> Reply:
    text = payload if isinstance(payload, str) else json.dumps(payload, indent=2)
    return Reply(text_reply(text))


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with serve() as ep:
        yield ep


@pytest.fixture
def fallback() -> FixedJudge:
    return FixedJudge()


def make_judge(endpoint: Endpoint, fallback: Judge, **options: Any) -> LLMJudge:
    client_options = options.pop("client", {})
    return LLMJudge(endpoint.client(model="judge", **client_options), fallback, **options)


def test_j1_a_valid_reply_is_the_judgment(endpoint: Endpoint, fallback: FixedJudge) -> None:
    endpoint.script(reply(assessment()))
    judge = make_judge(endpoint, fallback)
    assert isinstance(judge, Judge)
    judgment = judge.judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert judgment.judge == judge.name and judge.name.startswith("llm-judge:judge@127.0.0.1:")
    assert judgment.assessment == Assessment.model_validate(assessment())
    assert (judgment.prompt_version, judgment.attempts) == (JUDGE.version, 1)
    assert judgment.fallback_reason is None and judgment.claims == ()
    assert fallback.calls == 0
    system, user = (m["content"] for m in endpoint.messages(0))
    assert system == JUDGE.system and "0.8 to 0.99" in system and "Never invent an id" in system
    assert f"Query: {QUERY}" in user and f"Answer: {ANSWER}" in user
    assert "[id: kb-battery-7]\nThe X200 battery" in user and "[id: sds-x200#3]" in user


def test_j6_the_thresholds_decide_the_action(endpoint: Endpoint, fallback: FixedJudge) -> None:
    endpoint.script(reply(assessment(confidence_score=0.6, recommended_action="publish")))
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert judgment.assessment.recommended_action == "append_caveat"
    assert judgment.assessment.confidence_score == 0.6
    assert judgment.notes == ("the model recommended publish; the thresholds give append_caveat",)
    strict = ActionThresholds(publish=0.95, caveat=0.7, human_review=0.5)
    endpoint.script(reply(assessment(confidence_score=0.9)))
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, CONTEXTS, strict)
    assert judgment.assessment.recommended_action == "append_caveat"


@pytest.mark.parametrize(
    "text",
    [
        "```json\n{payload}\n```",
        "```\n{payload}\n```",
        "Here is the assessment:\n{payload}\nThanks.",
    ],
)
def test_j5_code_fences_and_chatter_are_tolerated(
    endpoint: Endpoint, fallback: FixedJudge, text: str
) -> None:
    endpoint.script(reply(text.replace("{payload}", json.dumps(assessment()))))
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert judgment.attempts == 1 and judgment.fallback_reason is None


def test_j5_malformed_json_is_corrected_in_the_conversation(
    endpoint: Endpoint, fallback: FixedJudge
) -> None:
    bad = '{"confidence_score": 0.9, "score_rationale": "unfinished'
    endpoint.script(reply(bad), reply(assessment()))
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert judgment.attempts == 2 and judgment.fallback_reason is None
    assert judgment.judge.startswith("llm-judge:")
    first, second = endpoint.messages(0), endpoint.messages(1)
    assert second[:2] == first  # the same system prompt and question ...
    assert second[2] == {"role": "assistant", "content": bad}  # ... the rejected reply ...
    correction = second[3]
    assert correction["role"] == "user" and "not valid JSON" in correction["content"]
    assert "seven keys" in correction["content"]  # ... and what to fix


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"recommended_action": None}, "recommended_action: Field required"),
        ({"verdict": "supported"}, "verdict: Extra inputs are not permitted"),
        ({"confidence_score": 1.7}, "confidence_score: Input should be less than or equal to 1"),
        ({"confidence_score": "0.9"}, "confidence_score: Input should be a valid number"),
        ({"recommended_action": "ship it"}, "recommended_action: Input should be"),
        (
            {
                "source_conflicts": [
                    {
                        "claim": "charged between 0 and 45 degrees",
                        "source_a": "kb-battery-7",
                        "source_b": "sds-x200#3",
                        "nature": "a disagreement",
                    }
                ]
            },
            "source_conflicts.0.nature: Input should be 'direct contradiction'",
        ),
        (
            {"evidence_sufficiency": {"is_sufficient": True, "missing_information": ["dates"]}},
            "missing_information must be empty when is_sufficient is true",
        ),
    ],
)
def test_j1_j5_a_reply_off_the_schema_is_retried(
    endpoint: Endpoint, fallback: FixedJudge, changes: dict[str, Any], error: str
) -> None:
    endpoint.script(reply(assessment(**changes)), reply(assessment()))
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert judgment.attempts == 2 and judgment.fallback_reason is None
    assert judgment.assessment.confidence_score == 0.9
    assert error in endpoint.messages(1)[-1]["content"]


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        (
            {
                "source_conflicts": [
                    {
                        "claim": "charged between 0 and 45 degrees",
                        "source_a": "kb-battery-7",
                        "source_b": "doc-42",
                        "nature": "direct contradiction",
                    }
                ]
            },
            "source_conflicts[0].source_b 'doc-42' is neither a context id",
        ),
        (
            {"unsupported_claims": ["The X200 charges in ten minutes."]},
            "unsupported_claims[0] 'The X200 charges in ten minutes.' is not an exact excerpt",
        ),
    ],
)
def test_j1_j5_invented_sources_and_quotes_are_retried(
    endpoint: Endpoint, fallback: FixedJudge, changes: dict[str, Any], error: str
) -> None:
    endpoint.script(reply(assessment(**changes)), reply(assessment()))
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert judgment.attempts == 2 and judgment.fallback_reason is None
    assert error in endpoint.messages(1)[-1]["content"]


def test_j1_real_ids_and_exact_quotes_pass(endpoint: Endpoint, fallback: FixedJudge) -> None:
    conflict = {
        "claim": "between 0 and 45 degrees Celsius",
        "source_a": "kb-battery-7",
        "source_b": "Charging the X200 above 40 degrees  Celsius",  # an excerpt, spaces aside
        "nature": "definitional conflict",
    }
    endpoint.script(
        reply(
            assessment(
                confidence_score=0.55,
                source_conflicts=[conflict],
                speculation_flags=["may be charged between 0 and 45"],
            )
        )
    )
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert judgment.attempts == 1 and len(judgment.assessment.source_conflicts) == 1


def test_j5_three_bad_replies_fall_back(endpoint: Endpoint, fallback: FixedJudge) -> None:
    endpoint.script(
        reply("not json at all"),
        reply(assessment(confidence_score=1.7)),
        reply(assessment(extra="key")),
        reply(assessment()),  # never asked for: two retries at most
    )
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert len(endpoint.requests) == 3 and fallback.calls == 1
    assert judgment.judge == "fixed-judge" and judgment.assessment.confidence_score == 0.42
    assert judgment.attempts == 3
    assert judgment.fallback_reason is not None
    assert "no valid assessment after 3 replies" in judgment.fallback_reason
    assert "extra: Extra inputs are not permitted" in judgment.fallback_reason
    assert judgment.notes[0] == "fixed" and "gave no usable assessment" in judgment.notes[-1]
    third = endpoint.messages(2)  # the whole conversation, both corrections included
    assert [m["role"] for m in third] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert (
        "not valid JSON" in third[3]["content"] and "less than or equal to 1" in third[5]["content"]
    )


def test_j5_max_retries_zero_asks_once(endpoint: Endpoint, fallback: FixedJudge) -> None:
    endpoint.script(reply("nope"))
    judgment = make_judge(endpoint, fallback, max_retries=0).judge(
        QUERY, ANSWER, CONTEXTS, THRESHOLDS
    )
    assert len(endpoint.requests) == 1 and judgment.attempts == 1
    assert judgment.fallback_reason is not None and "after 1 replies" in judgment.fallback_reason


def test_j5_server_errors_fall_back(endpoint: Endpoint, fallback: FixedJudge) -> None:
    endpoint.script(*[Reply({"error": "down"}, status=500) for _ in range(2)])
    judge = make_judge(endpoint, fallback, client={"retries": 1})
    judgment = judge.judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert judgment.judge == "fixed-judge" and judgment.attempts == 1
    assert judgment.fallback_reason is not None
    assert judgment.fallback_reason.startswith("endpoint failed:")
    assert "failed after 2 attempts" in judgment.fallback_reason
    assert len(endpoint.requests) == 2


def test_j5_a_server_error_during_the_retry_falls_back(
    endpoint: Endpoint, fallback: FixedJudge
) -> None:
    endpoint.script(reply("{broken"), Reply({"error": "no such model"}, status=404))
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert judgment.judge == "fixed-judge" and judgment.attempts == 2
    assert judgment.fallback_reason is not None and "404" in judgment.fallback_reason


def test_j5_a_timeout_falls_back(endpoint: Endpoint, fallback: FixedJudge) -> None:
    endpoint.script(Reply(text_reply(json.dumps(assessment())), delay=2.0))
    judge = make_judge(endpoint, fallback, client={"timeout": 0.2, "retries": 0})
    started = time.monotonic()
    judgment = judge.judge(QUERY, ANSWER, CONTEXTS, THRESHOLDS)
    assert time.monotonic() - started < 1.5
    assert judgment.judge == "fixed-judge" and judgment.attempts == 1
    assert judgment.fallback_reason is not None and "endpoint failed" in judgment.fallback_reason


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   \n",
        "I don't have enough information to answer that.",
        "Sorry, I cannot answer that.",
    ],
)
def test_j4_an_empty_answer_or_a_refusal_never_calls_the_server(
    endpoint: Endpoint, fallback: FixedJudge, answer: str
) -> None:
    judgment = make_judge(endpoint, fallback).judge(QUERY, answer, CONTEXTS, THRESHOLDS)
    assert endpoint.requests == [] and fallback.calls == 0
    assert judgment.assessment.confidence_score == 0.0
    assert judgment.assessment.recommended_action == "suppress"
    assert judgment.attempts == 0 and judgment.judge.startswith("llm-judge:")
    assert judgment.prompt_version is None  # no prompt was sent


def test_long_contexts_are_cut_but_quotes_are_checked_against_the_whole(
    endpoint: Endpoint, fallback: FixedJudge
) -> None:
    long = Context("long", "filler " * 100 + "The X200 may also be charged at 50 degrees.")
    conflict = {
        "claim": "The X200 may also be charged at 50 degrees.",
        "source_a": "kb-battery-7",
        "source_b": "long",
        "nature": "direct contradiction",
    }
    endpoint.script(reply(assessment(confidence_score=0.3, source_conflicts=[conflict])))
    judge = make_judge(endpoint, fallback, max_context_chars=100)
    judgment = judge.judge(QUERY, ANSWER, [*CONTEXTS, long], THRESHOLDS)
    assert judgment.attempts == 1 and judgment.assessment.recommended_action == "human_review"
    user = endpoint.messages(0)[1]["content"]
    assert "50 degrees" not in user and "filler filler" in user


@pytest.mark.parametrize(
    "options", [{"max_retries": -1}, {"max_retries": True}, {"max_context_chars": 0}]
)
def test_bad_settings_are_invalid_input(
    endpoint: Endpoint, fallback: FixedJudge, options: dict[str, Any]
) -> None:
    with pytest.raises(InvalidInputError):
        make_judge(endpoint, fallback, **options)


def test_extract_json() -> None:
    assert extract_json('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert extract_json('Sure: {"a": {"b": 2}} done') == '{"a": {"b": 2}}'
    assert extract_json("no braces") == "no braces"


def test_j8_the_prompt_says_who_stated_each_context_and_when(
    endpoint: Endpoint, fallback: FixedJudge
) -> None:
    """judge-v2: each context is headed by its source, kind (with its reliability) and
    date where known, and the system prompt says how to weigh contexts that disagree."""
    endpoint.script(reply(assessment()))
    contexts = check_contexts(
        [
            {"id": "kb-battery-7", "text": CONTEXTS[0].text, "source_id": "halden-sds",
             "source_kind": "official", "published": "2026-03-02"},
            {"id": "forum-3", "text": "I charge mine at 60 degrees Celsius.",
             "source_kind": "unverified"},
            {"id": "sds-x200#3", "text": CONTEXTS[1].text},
        ]
    )  # fmt: skip
    judgment = make_judge(endpoint, fallback).judge(QUERY, ANSWER, contexts, THRESHOLDS)
    assert judgment.prompt_version == JUDGE.version == "judge-v2"
    system, user = (m["content"] for m in endpoint.messages(0))
    assert "clearly stronger" in system and "published later" in system
    assert (
        "[id: kb-battery-7 | source: halden-sds | kind: official, reliability 1.00 | "
        "published: 2026-03-02]\nThe X200 battery" in user
    )
    assert "[id: forum-3 | kind: unverified, reliability 0.30]\nI charge" in user
    assert "[id: sds-x200#3]\nCharging" in user  # no source: as before
