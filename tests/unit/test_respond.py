"""The responder alone (G1-G3, R8, R9): each router decision carried out, with a
scripted answerer and judge standing in for the models (a fake of one layer; the real
models run in tests/e2e/test_answers.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date

import numpy as np
import pytest

from assay.actions import ActionThresholds
from assay.answer.base import AnswerMode, Draft, Uncertainty
from assay.flow.assess import AskResult
from assay.flow.respond import Responder, Response, Status
from assay.flow.retrieval import Retrieval
from assay.flow.score import score_candidates
from assay.judge.base import ClaimGrade, Grade, Judgment
from assay.judge.schema import Assessment, Context, EvidenceSufficiency, SourceConflict
from assay.models.llm import EndpointError
from assay.policy import builtin_policies
from assay.routing import Bands, Decision, Route
from assay.scoring.agreement import Conflict
from assay.scoring.evidence import SourceFacts
from assay.scoring.signals import SetSignals
from assay.types import Candidate

AS_OF = date(2026, 11, 29)
POLICY = builtin_policies()["informational"]


def result(decision: Decision, *similarities: float, composite: float = 0.6) -> AskResult:
    """A routed question over candidates of the given similarities (official source)."""
    candidates = [
        Candidate(id=f"e{i}", text=f"Passage {i} says the pack charges at 0-45 C.",
                  similarity=s, source_id="sds", published=AS_OF)
        for i, s in enumerate(similarities)
    ]  # fmt: skip
    scored = score_candidates(
        "How warm may the anode get?", candidates, POLICY,
        lambda c: SourceFacts("official", 1.0, source_id="sds"), as_of=AS_OF,
    )  # fmt: skip
    signals = SetSignals(0.9, 0.5, 1.0, 1.0, 0.5, composite, missing_terms=("warm", "anode"))
    retrieval = Retrieval("q", [], np.zeros((0, 4), dtype=np.float32), "hybrid", "test")
    route = Route(decision, ("scripted",), Bands(0.7, 0.5, 0.3))
    return AskResult(scored, retrieval, signals, route)


@dataclass
class ScriptedAnswerer:
    text: str = "It charges at 0-45 C [Source: e0]."
    phrasings: list[str] = field(default_factory=lambda: ["pack charging temperature"])
    can_answer_without_evidence: bool = False
    name: str = "scripted"
    calls: list[str] = field(default_factory=list)
    uncertainty: Uncertainty | None = None  #: what the last hedged draft was told

    def answer(
        self,
        question: str,
        evidence: Sequence[Context],
        *,
        mode: AnswerMode = "standard",
        uncertainty: Uncertainty | None = None,
    ) -> Draft:
        self.calls.append(mode)
        self.uncertainty = uncertainty
        assert mode != "hedged" or uncertainty is not None
        return Draft(self.text, self.name, "v1", mode)

    def clarify(self, question: str, evidence: Sequence[Context], missing: Sequence[str]) -> Draft:
        self.calls.append("clarify")
        return Draft(f"What do you mean by {missing[0]}?", self.name, "v1", "clarify")

    def expand(self, question: str, evidence: Sequence[Context], n: int = 3) -> list[str]:
        self.calls.append("expand")
        return self.phrasings


@dataclass
class ScriptedJudge:
    score: float
    grades: tuple[Grade, ...] = ("supported",)
    name: str = "scripted-judge"
    contexts: list[Sequence[Context]] = field(default_factory=list)
    conflicts: tuple[SourceConflict, ...] = ()

    def judge(
        self, query: str, answer: str, contexts: Sequence[Context], thresholds: ActionThresholds
    ) -> Judgment:
        self.contexts.append(contexts)
        assessment = Assessment(
            confidence_score=self.score,
            score_rationale="scripted",
            evidence_sufficiency=EvidenceSufficiency(is_sufficient=True, missing_information=[]),
            source_conflicts=list(self.conflicts),
            unsupported_claims=[],
            speculation_flags=[],
            recommended_action=thresholds.action(self.score),
        )
        claims = tuple(ClaimGrade(f"claim {i}", g) for i, g in enumerate(self.grades))
        return Judgment(assessment, self.name, claims)


def respond(
    decision: Decision,
    answerer: ScriptedAnswerer,
    judge: ScriptedJudge,
    broaden: Callable[[Sequence[str]], AskResult] | None = None,
) -> Response:
    routed = result(decision, 0.9)
    return Responder(answerer, judge).respond(
        "How warm may the anode get?", routed, broaden=broaden
    )


def test_r9_proceed_publishes_a_well_judged_answer() -> None:
    judge = ScriptedJudge(0.95)
    response = respond(Decision.PROCEED, ScriptedAnswerer(), judge)
    assert response.status is Status.ANSWERED
    assert response.answer == "It charges at 0-45 C [Source: e0]."
    assert response.fallbacks == () and response.fallback_type is None
    assert response.citations is not None and response.citations.valid == ("e0",)
    assert [c.confidence for c in judge.contexts[0]] == [
        response.result.scored.admitted[0].confidence
    ]
    out = response.as_dict()
    assert out["fallback_activated"] is False and out["confidence"]["label"] in (
        "high",
        "medium",
        "low",
    )
    assert out["sources"][0]["cited"] is True


def test_r8_hedge_states_the_confidence_before_the_answer() -> None:
    answerer = ScriptedAnswerer()
    response = respond(Decision.HEDGE, answerer, ScriptedJudge(0.95))
    assert answerer.calls == ["hedged"]
    assert response.answer.startswith("With ") and "0.60" in response.answer
    # the reason: the evidence does not mention the subject; "warm" only asks for a
    # temperature, which the evidence states
    assert "does not mention 'anode'." in response.answer and "warm" not in response.answer
    assert response.fallback_type == "hedge" and response.status is Status.ANSWERED


@pytest.mark.parametrize("bears_on_the_answer", [True, False])
def test_r8_a_hedge_names_a_disagreement_only_where_it_bears_on_the_answer(
    bears_on_the_answer: bool,
) -> None:
    """Two passages that disagree about charging time are told to the answerer, but the
    hedge of an answer about temperature does not give them as a reason."""
    routed = result(Decision.HEDGE, 0.9, 0.85)
    charging_time = ("It takes 3 hours.", "It takes 5 hours.")
    routed = replace(routed, conflicts=(Conflict("e0", "e1", "figures", charging_time),))
    bearing = SourceConflict(
        claim="It charges at 0-45 C", source_a="e0", source_b="e1", nature="direct contradiction"
    )
    judge = ScriptedJudge(0.95, conflicts=(bearing,) if bears_on_the_answer else ())
    answerer = ScriptedAnswerer()
    response = Responder(answerer, judge).respond("How warm may the anode get?", routed)
    assert answerer.uncertainty is not None
    assert "some sources disagree" in answerer.uncertainty.reasons
    preamble = response.answer.split(" It charges")[0]
    assert ("some sources disagree" in preamble) is bears_on_the_answer


def test_g3_partial_support_adds_an_incompleteness_note() -> None:
    judge = ScriptedJudge(0.9, ("supported", "partially supported"))
    response = respond(Decision.PROCEED, ScriptedAnswerer(), judge)
    assert response.status is Status.ANSWERED
    assert "may be incomplete" in response.answer and '"claim 1"' in response.answer


def test_j6_a_caveat_is_appended_in_the_caveat_band() -> None:
    response = respond(Decision.PROCEED, ScriptedAnswerer(), ScriptedJudge(0.6))
    assert response.status is Status.ANSWERED
    caveat = "Caveat (answer confidence 0.60): the evidence supports it only loosely."
    assert response.answer.endswith(caveat)


@pytest.mark.parametrize(("score", "queued"), [(0.4, True), (0.1, False)])
def test_g3_j6_a_low_judgment_withholds_the_answer(score: float, queued: bool) -> None:
    response = respond(Decision.PROCEED, ScriptedAnswerer(), ScriptedJudge(score))
    assert response.status is Status.ABSTAINED_JUDGE
    assert "withheld" in response.answer and "0-45 C" not in response.answer
    assert (response.review is not None) == queued
    assert response.assessment.confidence_score == score  # the draft's assessment is kept


def test_j6_high_stakes_policies_queue_suppressed_answers_too() -> None:
    strict = replace(POLICY, judge=replace(POLICY.judge, queue_suppressed=True))
    routed = result(Decision.PROCEED, 0.9)
    routed = replace(routed, scored=replace(routed.scored, policy=strict))
    response = Responder(ScriptedAnswerer(), ScriptedJudge(0.1)).respond("q?", routed)
    assert response.status is Status.ABSTAINED_JUDGE
    assert response.review == "recommended_action suppress"


@pytest.mark.parametrize(
    "text", ["It charges at 0-45 C.", "It charges at 0-45 C [Source: e7].", "[Source: e0, x]"]
)
def test_g2_missing_or_unknown_citations_abstain_before_the_judge(text: str) -> None:
    judge = ScriptedJudge(0.95)
    response = respond(Decision.PROCEED, ScriptedAnswerer(text=text), judge)
    assert response.status is Status.ABSTAINED_CITATION
    assert judge.contexts == [] and response.judgment is None
    assert response.assessment.recommended_action == "suppress"


def test_r8_an_answerer_that_declines_ends_in_a_refusal_with_next_steps() -> None:
    answerer = ScriptedAnswerer(text="I cannot answer this question from the knowledge base.")
    judge = ScriptedJudge(0.0)
    response = Responder(answerer, judge).respond("q?", result(Decision.PROCEED, 0.9))
    assert response.status is Status.REFUSED and "Next steps" in response.answer
    assert response.review is None and judge.contexts == []  # not judged, not queued
    assert response.draft is not None  # the declining draft is kept for the audit row


@dataclass
class BrokenAnswerer(ScriptedAnswerer):
    """An LLM answerer whose endpoint is down."""

    def answer(self, *args: object, **kwargs: object) -> Draft:  # type: ignore[override]
        raise EndpointError("http://127.0.0.1:9/v1 failed after 3 attempts")

    def clarify(self, *args: object, **kwargs: object) -> Draft:  # type: ignore[override]
        raise EndpointError("http://127.0.0.1:9/v1 failed after 3 attempts")


def test_r8_a_failing_endpoint_falls_back_to_the_offline_answerer() -> None:
    broken = BrokenAnswerer(name="llm:down", can_answer_without_evidence=True)
    offline = ScriptedAnswerer(name="offline")
    responder = Responder(broken, ScriptedJudge(0.95), fallback=offline)
    answered = responder.respond("q?", result(Decision.PROCEED, 0.9))
    assert answered.status is Status.ANSWERED and answered.fallbacks == ("offline_answerer",)
    assert answered.problems == ("llm:down failed: http://127.0.0.1:9/v1 failed after 3 attempts",)
    assert answered.draft is not None and answered.draft.answerer == "offline"
    clarified = responder.respond("q?", result(Decision.CLARIFY, 0.9))
    assert clarified.status is Status.CLARIFICATION and clarified.draft is not None
    llm_only = responder.respond("q?", result(Decision.LLM_ONLY, 0.9))
    assert llm_only.status is Status.REFUSED and "did not answer" in llm_only.answer
    alone = Responder(broken, ScriptedJudge(0.95)).respond("q?", result(Decision.PROCEED, 0.9))
    assert alone.status is Status.REFUSED and alone.problems


def test_r8_clarify_asks_back() -> None:
    answerer = ScriptedAnswerer()
    response = respond(Decision.CLARIFY, answerer, ScriptedJudge(1.0))
    assert response.status is Status.CLARIFICATION
    assert response.answer == "What do you mean by anode?" and response.fallback_type == "clarify"
    assert answerer.calls == ["clarify"]


def test_g1_refuse_without_admitted_evidence_abstains_at_retrieval() -> None:
    routed = result(Decision.REFUSE, 0.01)
    assert routed.scored.admitted == []
    response = Responder(ScriptedAnswerer(), ScriptedJudge(1.0)).respond("q?", routed)
    assert response.status is Status.ABSTAINED_RETRIEVAL
    assert "Next steps" in response.answer and "cover 'anode'" in response.answer


def test_r8_llm_only_needs_an_answerer_that_can_write_without_evidence() -> None:
    refused = respond(Decision.LLM_ONLY, ScriptedAnswerer(), ScriptedJudge(1.0))
    assert refused.status is Status.REFUSED and "no language model" in refused.answer
    capable = ScriptedAnswerer(text="Not from the knowledge base: 40 C.")
    capable.can_answer_without_evidence = True
    answered = respond(Decision.LLM_ONLY, capable, ScriptedJudge(1.0))
    assert answered.status is Status.ANSWERED and answered.fallback_type == "llm_only"
    assert capable.calls == ["llm_only"]
    assert answered.assessment.confidence_score == 0.0  # nothing in it is from the evidence
    assert answered.assessment.recommended_action == "append_caveat"  # the policy allows it


def test_r8_broaden_keeps_the_stronger_set_and_routes_it_again() -> None:
    asked: list[Sequence[str]] = []

    def broaden(phrasings: Sequence[str]) -> AskResult:
        asked.append(phrasings)
        return result(Decision.PROCEED, 0.95, composite=0.8)

    answerer = ScriptedAnswerer()
    response = respond(Decision.BROADEN, answerer, ScriptedJudge(0.95), broaden=broaden)
    assert asked == [["pack charging temperature"]]
    assert response.status is Status.ANSWERED and response.fallbacks == ("broaden",)
    assert response.broadening is not None and response.broadening.kept == "broadened"
    assert response.result.signals.composite == 0.8


def test_r8_broaden_that_finds_nothing_better_refuses() -> None:
    def broaden(phrasings: Sequence[str]) -> AskResult:
        return result(Decision.BROADEN, 0.5, composite=0.4)

    answerer = ScriptedAnswerer(phrasings=[])  # no model phrasings: offline feedback instead
    response = respond(Decision.BROADEN, answerer, ScriptedJudge(0.95), broaden=broaden)
    assert response.status is Status.REFUSED
    assert response.fallbacks == ("broaden", "refuse")
    assert response.broadening is not None and response.broadening.kept == "original"
    assert response.broadening.phrasings  # pseudo-relevance feedback stood in


def test_j1_the_assessment_names_the_disagreement_the_answer_states() -> None:
    """Issue 43 (second pass): the answer said "Sources disagree: forum ... states 'no
    receipt needed'" while the JSON's source_conflicts was empty and the rationale read
    "consistent, sufficient evidence"; API clients and the audit row missed it."""
    from assay.answer.base import Draft
    from assay.flow.respond import with_stated_conflicts
    from assay.judge.schema import Assessment, EvidenceSufficiency, SourceConflict

    judged = Assessment(
        confidence_score=0.8, score_rationale="consistent, sufficient evidence.",
        evidence_sufficiency=EvidenceSufficiency(is_sufficient=True, missing_information=[]),
        source_conflicts=[], unsupported_claims=[], speculation_flags=[],
        recommended_action="publish",
    )  # fmt: skip
    stated = SourceConflict(
        claim="no receipt needed", source_a="forum-1", source_b="policy-1",
        nature="direct contradiction",
    )  # fmt: skip
    draft = Draft("A receipt is required [policy-1]", "extractive", conflicts=(stated,))
    merged = with_stated_conflicts(judged, draft)
    assert merged.source_conflicts == [stated]
    assert merged.score_rationale.startswith("consistent, sufficient evidence; 1 weaker")
    assert (merged.confidence_score, merged.recommended_action) == (0.8, "publish")
    assert with_stated_conflicts(merged, draft) == merged  # the judge's own pair is kept once
    assert with_stated_conflicts(judged, Draft("x", "extractive")) == judged
