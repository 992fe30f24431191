"""The LLM answerer and the LLM judge against a real model (``make test-llm``).

These tests need a running OpenAI-compatible server named by ``ASSAY_LLM_URL`` (and
``ASSAY_LLM_MODEL``); ``make test-llm`` starts the local one (``scripts/llm.sh``) and runs
them. They are deselected by default (marker ``llm``) and skipped without the variable.
They check what must hold for any competent model, small ones included: valid citations
(G2), a hedged answer that still cites (R8), usable query phrasings, and a J1
assessment that ranks a contradicted answer below a supported one.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

import pytest

from assay.actions import ActionThresholds
from assay.answer.base import Uncertainty
from assay.answer.citations import validate_citations
from assay.answer.llm import LLMAnswerer
from assay.judge.base import Judge, Judgment, empty_or_refusal, is_refusal
from assay.judge.llm_judge import LLMJudge
from assay.judge.schema import Assessment, Context
from assay.models.llm import ChatClient, client_from_environment

pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(
        not os.environ.get("ASSAY_LLM_URL", "").strip(),
        reason="ASSAY_LLM_URL is not set: run `make test-llm` (starts the local LLM server)",
    ),
]

EVIDENCE = [
    Context(
        "kb-battery-7",
        "The X200 battery may be charged at temperatures between 0 and 45 degrees Celsius.",
    ),
    Context("sds-x200#3", "Charging the X200 battery below 0 degrees Celsius damages the cells."),
]
QUESTION = "At what temperatures may the X200 battery be charged?"
SUPPORTED = (
    "The X200 battery may be charged between 0 and 45 degrees Celsius [Source: kb-battery-7]."
)
CONTRADICTED = (
    "The X200 battery may be charged at up to 90 degrees Celsius, and charging below freezing "
    "is recommended [Source: kb-battery-7]."
)


@pytest.fixture(scope="module")
def client() -> ChatClient:
    configured = client_from_environment()
    assert configured is not None
    # a small model on a few CPU threads may need more than the default 30 s per reply
    return dataclasses.replace(configured, timeout=max(configured.timeout, 180.0))


class _SimpleJudge:
    """The fallback when the model judge is not available: 0.5 for anything."""

    name = "simple-fallback"

    def judge(
        self,
        query: str,
        answer: str,
        contexts: Sequence[Context],
        thresholds: ActionThresholds,
    ) -> Judgment:
        early = empty_or_refusal(answer, self.name)
        if early is not None:
            return early
        base = empty_or_refusal("", self.name)
        assert base is not None
        update = {"confidence_score": 0.5, "recommended_action": thresholds.action(0.5)}
        return dataclasses.replace(base, assessment=base.assessment.model_copy(update=update))


def _fallback() -> Judge:
    try:
        from assay.judge.model_judge import ModelJudge
    except ImportError:
        return _SimpleJudge()
    return ModelJudge()


def test_g2_answers_from_two_contexts_with_valid_citations_only(client: ChatClient) -> None:
    draft = LLMAnswerer(client).answer(QUESTION, EVIDENCE)
    assert not is_refusal(draft.text), draft.text
    check = validate_citations(draft.text, [c.id for c in EVIDENCE])
    assert check.ok, (check.problem, draft.text)
    assert "45" in draft.text


def test_r8_a_hedged_answer_cites_its_sources(client: ChatClient) -> None:
    uncertainty = Uncertainty(0.62, "medium", ("the sources are two years old",))
    draft = LLMAnswerer(client).answer(QUESTION, EVIDENCE, mode="hedged", uncertainty=uncertainty)
    assert validate_citations(draft.text, [c.id for c in EVIDENCE]).ok, draft.text
    assert "45" in draft.text


def test_expansion_returns_at_least_one_phrasing(client: ChatClient) -> None:
    phrasings = LLMAnswerer(client).expand(QUESTION, EVIDENCE, n=3)
    assert 1 <= len(phrasings) <= 3
    assert all(p.strip() and p.strip().lower() != QUESTION.lower() for p in phrasings)


def test_j1_the_judge_ranks_a_contradicted_answer_below_a_supported_one(
    client: ChatClient,
) -> None:
    judge = LLMJudge(client, _fallback())
    thresholds = ActionThresholds()
    supported = judge.judge(QUESTION, SUPPORTED, EVIDENCE, thresholds)
    contradicted = judge.judge(QUESTION, CONTRADICTED, EVIDENCE, thresholds)
    for judgment in (supported, contradicted):
        # directly from the model or through the fallback, the J1 object validates
        Assessment.model_validate_json(judgment.assessment.model_dump_json(), strict=True)
        assert 1 <= judgment.attempts <= 3
        if judgment.fallback_reason is None:  # the thresholds set the action (J6)
            assert judgment.judge == judge.name
            assert judgment.assessment.recommended_action == thresholds.action(
                judgment.assessment.confidence_score
            )
    assert contradicted.assessment.confidence_score < supported.assessment.confidence_score, (
        supported.to_dict(),
        contradicted.to_dict(),
    )
