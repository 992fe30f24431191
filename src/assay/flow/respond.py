"""From a routed question to what the user receives (G1-G3, R8, R9).

:class:`Responder` carries out the router's decision with an answerer and a judge:

==========  ===============================================================================
decision    what happens
==========  ===============================================================================
broaden     phrasings of the question (the answerer's, else pseudo-relevance feedback) are
            searched together with it, the new set is scored against the original
            question, and the stronger set is kept and routed again; still ``broaden``
            means ``refused``
proceed     answer from the admitted evidence, citing it inline
hedge       the same, opened by a statement of the set confidence and why it is not higher
clarify     a clarifying question (``clarification``)
llm_only    an answer marked as not from the knowledge base, only where the policy allows
            it and the answerer has a language model; otherwise refused
refuse      ``abstained_retrieval`` when no evidence cleared the gate, else ``refused``;
            both say what to do next
==========  ===============================================================================

An answer is then checked twice. Citations (G2): none, or one that names evidence that
was not admitted, gives ``abstained_citation``. The judge (G3, J1), its support score
capped by the answer-correctness model's P(right) where one applies
(:mod:`assay.answer.correctness`): the ``recommended_action`` under the policy's
thresholds decides -- ``publish`` answers,
``append_caveat`` answers with a caveat saying what lowered the confidence, in plain
words (:mod:`assay.flow.caveats`), ``human_review`` and ``suppress`` withhold the
answer (``abstained_judge``) and say the same; human review, and under
high-stakes policies suppression too, queue the draft for a reviewer. Claims the judge
found only partly supported add an incompleteness note.

A draft that declines to answer ends as ``refused``, with next steps. When an LLM
answerer's endpoint fails, the offline answerer writes instead (fallback
``offline_answerer``, the failure in ``problems``); an ``llm_only`` answer that cannot be
written is refused.

``assessment`` is the judge's J1 object of the drafted answer whenever one was judged;
for an ``llm_only`` answer it scores 0.0 (nothing in it is from the evidence) with
``append_caveat``, since the policy chose to give such answers marked as what they are;
for every other outcome it is the J4 object of the non-answer returned (score 0.0,
``suppress``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from enum import StrEnum
from typing import Any

from assay.answer.base import Answerer, AnswerMode, Draft, Uncertainty
from assay.answer.citations import CitationCheck, validate_citations
from assay.answer.correctness import CorrectnessRater
from assay.answer.expansion import pseudo_relevance_phrasings
from assay.answer.gaps import evidence_gaps, subject_terms
from assay.answer.qualifiers import with_years
from assay.calibration.apply import Calibrator
from assay.errors import EndpointError
from assay.events import AnswerPart, build
from assay.flow.assess import AskResult
from assay.flow.caveats import caveat, passed_by, standing, withheld
from assay.judge.base import Judge, Judgment, empty_or_refusal, is_refusal
from assay.judge.claims import split_claims
from assay.judge.evaluate import check_contexts
from assay.judge.schema import Assessment, Context, EvidenceSufficiency
from assay.judge.strength import passed_over, weak_alone
from assay.routing import Decision
from assay.scoring.gate import IN_FORCE, kept_out_as_stale
from assay.scoring.signals import coverage_score
from assay.text import titled
from assay.types import Evidence, ExclusionReason

__all__ = ["Broadening", "Responder", "Response", "Status"]


class Status(StrEnum):
    """How a request ended (G1-G3)."""

    ANSWERED = "answered"
    ABSTAINED_RETRIEVAL = "abstained_retrieval"
    ABSTAINED_CITATION = "abstained_citation"
    ABSTAINED_JUDGE = "abstained_judge"
    CLARIFICATION = "clarification"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class Broadening:
    """One broadening attempt: the phrasings searched and which set was kept."""

    phrasings: tuple[str, ...]
    before: float  #: set confidence of the first retrieval
    after: float  #: set confidence of the broadened retrieval
    kept: str  #: "broadened" or "original"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "phrasings": list(self.phrasings),
            "before": self.before,
            "after": self.after,
            "kept": self.kept,
        }


@dataclass(frozen=True, slots=True)
class Response:
    """Everything the user receives for one question (R9), and how it was reached."""

    answer: str
    status: Status
    result: AskResult  #: the evidence set the answer rests on (broadened, if kept)
    assessment: Assessment
    #: broaden, hedge, clarify, llm_only, refuse, offline_answerer, in the order they fired
    fallbacks: tuple[str, ...] = ()
    draft: Draft | None = None
    judgment: Judgment | None = None
    citations: CitationCheck | None = None
    broadening: Broadening | None = None
    notes: tuple[str, ...] = ()  #: said to the user after the answer (caveat, incompleteness)
    problems: tuple[str, ...] = ()  #: what failed on the way (an endpoint), for operators
    review: str | None = None  #: why the draft goes to human review; None if it does not
    review_id: int | None = None
    event_id: str | None = field(default=None)

    @property
    def decision(self) -> Decision:
        """The router's final decision."""
        return self.result.route.decision

    @property
    def fallback_type(self) -> str | None:
        """The last fallback that fired; ``None`` when the answer came straight."""
        return self.fallbacks[-1] if self.fallbacks else None

    def sources(self) -> list[dict[str, Any]]:
        """The admitted evidence with its labels, and whether the answer cites it (E7)."""
        cited = set(self.citations.valid) if self.citations else set()
        return [
            {
                "id": e.id,
                "source_id": e.basis.source_id,
                "source_kind": e.basis.source_kind,
                "label": e.label.value,
                "confidence": e.confidence,
                "cited": e.id in cited,
                "title": e.candidate.title,
                "location": e.candidate.metadata.get("location"),
            }
            for e in sorted(self.result.scored.admitted, key=lambda e: -e.confidence)
        ]

    def as_dict(self) -> dict[str, Any]:
        """The ``assay ask --json`` output: the R9 fields first, then the evidence, set
        signals and route of :meth:`assay.flow.assess.AskResult.as_dict`."""
        composite = self.result.confidence
        policy = self.result.scored.policy
        return {
            "answer": self.answer,
            "status": self.status.value,
            "decision": self.decision.value,
            "confidence": {
                "score": composite,
                "label": policy.labels.label(composite).value,
                "raw": self.result.signals.composite,
                "calibrated": "set" in self.result.calibration,
            },
            "sources": self.sources(),
            "fallback_activated": bool(self.fallbacks),
            "fallback_type": self.fallback_type,
            "fallbacks": list(self.fallbacks),
            "assessment": self.assessment.to_dict(),
            "citations": None if self.citations is None else self.citations.to_dict(),
            "notes": list(self.notes),
            "problems": list(self.problems),
            "review_id": self.review_id,
            "broadening": None if self.broadening is None else self.broadening.to_dict(),
            "judge": None if self.judgment is None else self.judgment.to_dict(),
            "answerer": None if self.draft is None else self.draft.to_dict(),
            "event_id": self.event_id,
        } | {k: v for k, v in self.result.as_dict().items() if k not in ("decision", "confidence")}

    def answer_part(self) -> AnswerPart:
        """What the audit record adds to the evidence, signals and route (J8)."""
        return build(
            AnswerPart,
            {
                "answer": self.answer,
                "status": self.status.value,
                "fallbacks": list(self.fallbacks),
                "draft": None
                if self.draft is None
                else self.draft.to_dict() | {"text": self.draft.text},
                "citations": None if self.citations is None else self.citations.to_dict(),
                "judgment": None if self.judgment is None else self.judgment.to_dict(),
                "assessment": self.assessment.to_dict(),
                "broadening": None if self.broadening is None else self.broadening.to_dict(),
                "notes": list(self.notes),
                "problems": list(self.problems),
                "review": self.review,
            },
        )


def contexts_of(result: AskResult) -> list[Context]:
    """The admitted evidence as judge contexts, strongest first, each with the chat
    model's reading where it read the passage for the set's judgment."""
    admitted = sorted(result.scored.admitted, key=lambda e: -e.confidence)
    return [_context(e, result.readings.get(e.id)) for e in admitted]


def _context(e: Evidence, read: float | None = None) -> Context:
    return Context(
        e.id, e.candidate.text, e.confidence, e.candidate.title,
        e.basis.source_id, e.basis.source_kind, e.candidate.published,
        reliability=e.basis.reliability, read=read,
    )  # fmt: skip


def _passed_over(result: AskResult, cited: Sequence[Context]) -> list[Context]:
    """The passages kept out below the similarity floor that name the question's subject
    as fully as the forum posts or messages ``cited`` alone
    (:func:`~assay.judge.strength.passed_over`), as contexts."""
    below = [  # of a source in force now: a superseded one's passage says what it replaced
        e for e in result.scored.evidence
        if e.reason is ExclusionReason.BELOW_SIMILARITY_FLOOR and not e.basis.superseded_by
    ]  # fmt: skip
    found = passed_over(
        result.scored.query,
        [(c.reliability, titled(c.title, c.text)) for c in cited],
        [(e.basis.reliability, titled(e.candidate.title, e.candidate.text)) for e in below],
    )
    return [_context(below[n]) for n in found]


def texts_of(result: AskResult) -> list[str]:
    """The texts of the admitted evidence, each under its title path."""
    return [titled(e.candidate.title, e.candidate.text) for e in result.scored.admitted]


def no_answer(why: str, judge: str) -> Assessment:
    """The J4 assessment of a non-answer (refusal, clarifying question)."""
    judgment = empty_or_refusal("", judge)
    assert judgment is not None
    return judgment.assessment.model_copy(update={"score_rationale": why})


@dataclass
class _Trail:
    """What happened on the way to one response: fallbacks taken, problems met."""

    fallbacks: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Responder:
    """Turns a routed question into a :class:`Response`; see the module docstring.

    ``fallback`` writes the answer, hedge or clarifying question when ``answerer``'s
    endpoint fails (the offline answerer behind an LLM one), so a down model costs the
    wording, not the request; the failure is kept in ``problems``.
    """

    answerer: Answerer
    judge: Judge
    fallback: Answerer | None = None
    calibrator: Calibrator | None = None  #: applies the stored answer map (J7)
    #: rates whether the answer is right: its P(right) caps the judge's support score
    correctness: CorrectnessRater | None = None

    def respond(
        self,
        question: str,
        result: AskResult,
        *,
        broaden: Callable[[Sequence[str]], AskResult] | None = None,
        day: date | None = None,
    ) -> Response:
        """Carry out ``result``'s decision; ``broaden`` re-retrieves with phrasings.
        ``day`` is the day asked: the answerer and the judge read a year the question
        names by its distance from it ("last year") with the year stated
        (:func:`~assay.answer.qualifiers.with_years`); the correctness model, fitted on
        questions as people write them, reads the question as written."""
        trail = _Trail()
        read = question if day is None else with_years(question, day)
        broadening = None
        if result.route.decision is Decision.BROADEN and broaden is not None:
            trail.fallbacks.append("broaden")
            result, broadening = self._broaden(question, result, broaden)
        decision = result.route.decision
        if decision in (Decision.PROCEED, Decision.HEDGE):
            response = self._answer(question, read, result, trail)
        elif decision is Decision.CLARIFY:
            missing = subject_terms(result.signals.missing_terms)
            draft = self._write(trail, lambda a: a.clarify(question, contexts_of(result), missing))
            if draft is None:
                response = self._refuse(
                    result, trail, "the clarifying question could not be written"
                )
            else:
                trail.fallbacks.append("clarify")
                why = "no answer was given: the question was sent back for clarification"
                response = Response(
                    draft.text, Status.CLARIFICATION, result, no_answer(why, self.judge.name),
                    draft=draft,
                )  # fmt: skip
        elif decision is Decision.LLM_ONLY and self.answerer.can_answer_without_evidence:
            response = self._llm_only(read, result, trail)
        else:
            response = self._refuse(result, trail)
        return replace(
            response,
            fallbacks=tuple(trail.fallbacks),
            problems=tuple(trail.problems),
            broadening=broadening,
        )

    def _write(self, trail: _Trail, call: Callable[[Answerer], Draft]) -> Draft | None:
        """``call`` with the answerer, or with the fallback when its endpoint fails."""
        try:
            return call(self.answerer)
        except EndpointError as exc:
            trail.problems.append(f"{self.answerer.name} failed: {exc}")
            if self.fallback is None:
                return None
            trail.fallbacks.append("offline_answerer")
            return call(self.fallback)

    def _broaden(
        self, question: str, result: AskResult, broaden: Callable[[Sequence[str]], AskResult]
    ) -> tuple[AskResult, Broadening | None]:
        contexts = contexts_of(result)
        phrasings = self.answerer.expand(question, contexts) or pseudo_relevance_phrasings(
            question, contexts
        )
        if not phrasings:
            return result, None
        wider = broaden(phrasings)
        better = wider.confidence > result.confidence
        return (wider if better else result), Broadening(
            tuple(phrasings),
            result.confidence,
            wider.confidence,
            "broadened" if better else "original",
        )

    def _llm_only(self, question: str, result: AskResult, trail: _Trail) -> Response:
        try:
            draft = self.answerer.answer(question, [], mode="llm_only")
        except EndpointError as exc:
            trail.problems.append(f"{self.answerer.name} failed: {exc}")
            return self._refuse(result, trail, "the language model did not answer")
        trail.fallbacks.append("llm_only")
        return Response(
            draft.text, Status.ANSWERED, result, _not_from_knowledge_base(draft.text),
            draft=draft,
            notes=("the answer is not from the knowledge base: check it independently",),
        )  # fmt: skip

    def _refuse(
        self,
        result: AskResult,
        trail: _Trail,
        why: str | None = None,
        draft: Draft | None = None,
    ) -> Response:
        """A refusal with next steps; ``why`` overrides the reason the route gives."""
        admitted = result.scored.admitted
        status = Status.REFUSED if admitted else Status.ABSTAINED_RETRIEVAL
        if why is None and not admitted:
            why = "no evidence in the knowledge base cleared the confidence threshold"
        elif why is None and result.route.decision is Decision.LLM_ONLY:
            why = "the evidence is too weak and no language model is configured to answer"
        elif why is None:
            why = "the evidence is too weak to answer from (set confidence "
            why += f"{result.confidence:.2f})"
        steps = ["rephrase the question with the terms your documents use"]
        policy = result.scored.policy
        query, missing = result.scored.query, result.signals.missing_terms

        def holds(e: Evidence) -> bool:  # a passage kept out that holds what is asked
            return not evidence_gaps(query, missing, [titled(e.candidate.title, e.candidate.text)])

        aged = [e for e in result.scored.evidence if kept_out_as_stale(e, policy) and holds(e)]
        for group, why_out, fix in (
            ([e for e in aged if e.basis.age_days is not None], "for their age",
             "if they are still in force, give them a verified date (`assay ingest "
             "--verified DATE`, or front matter `verified:`)"),
            ([e for e in aged if e.basis.age_days is None], "for having no date",
             "if they are current, give them one (`assay ingest --published DATE`, "
             "`--verified DATE` or `--file-dates`, or front matter `published:`)"),
        ):  # fmt: skip
            if group:  # the fix is a date, not more documents
                of = sorted({str(e.basis.source_id) for e in group if e.basis.source_id})
                where = f" of {', '.join(of)}" if of else ""
                steps.insert(
                    0, f"{len(group)} matching passage(s){where} were kept out {why_out}: {fix}"
                )
        # current passages that hold every term of the question, however weakly they
        # read: their source covers it, so un-superseding an older one would only bring
        # back what it replaced ("over 2 hours" against the new terms' "over 3 hours")
        worded = sorted(
            (e for e in result.scored.evidence
             if e.reason is not ExclusionReason.SOURCE_SUPERSEDED
             and coverage_score(query, [titled(e.candidate.title, e.candidate.text)])[0] == 1.0),
            key=lambda e: -e.confidence,
        )  # fmt: skip
        covering = {e.basis.source_id for e in worded}
        superseded = [  # "How much did support cost in 2024?": the 2024 guide's passage
            e for e in result.scored.evidence
            if e.reason is ExclusionReason.SOURCE_SUPERSEDED and e.basis.superseded_by
            and holds(e) and not covering & set(e.basis.superseded_by)
        ]  # fmt: skip
        if superseded:
            old = sorted({str(e.basis.source_id) for e in superseded})
            new = sorted({s for e in superseded for s in e.basis.superseded_by})
            steps.insert(
                0, f"{len(superseded)} matching passage(s) of {', '.join(old)} were kept out: "
                f"{', '.join(new)} supersedes it, and a superseded source never answers "
                f"(if it should, `assay sources update {new[0]} --no-supersedes`)",
            )  # fmt: skip
        # what the knowledge base holds on the subject, admitted or not, headings
        # included: a refusal never asks for documents about what it already covers
        retrieved = [titled(e.candidate.title, e.candidate.text) for e in result.scored.evidence]
        gaps = evidence_gaps(query, missing, retrieved)
        if gaps:
            steps.append(f"add documents that cover {', '.join(gaps)} (`assay ingest`)")
        elif in_force := [e for e in worded if e.scores.source >= IN_FORCE]:
            e = in_force[0]  # the words are there, in a source in force: say where
            steps.append(
                f'read the passage of {e.basis.source_id} under "{e.candidate.title}": it holds '
                "every term of the question but did not read as answering it"
            )
        else:
            steps.append("add documents that cover the question (`assay ingest`)")
        steps.append("or ask the owner of the subject")
        text = f"I can't answer this from the knowledge base: {why}. Next steps: "
        text += "; ".join(steps) + "."
        trail.fallbacks.append("refuse")
        return Response(
            text, status, result, no_answer(f"no answer was given: {why}", self.judge.name),
            draft=draft,
        )  # fmt: skip

    def _answer(self, question: str, read: str, result: AskResult, trail: _Trail) -> Response:
        contexts = check_contexts(contexts_of(result))
        hedged = result.route.decision is Decision.HEDGE
        uncertainty = _uncertainty(result) if hedged else None
        if hedged:
            trail.fallbacks.append("hedge")
        mode: AnswerMode = "hedged" if hedged else "standard"
        draft = self._write(
            trail, lambda a: a.answer(read, contexts, mode=mode, uncertainty=uncertainty)
        )
        if draft is None:
            return self._refuse(result, trail, "the answer could not be written")
        if not draft.text.strip() or is_refusal(draft.text):
            why = draft.declined or "the answerer found no answer to the question in the evidence"
            return self._refuse(result, trail, why, draft)
        citations = validate_citations(draft.text, [c.id for c in contexts])
        base = Response(
            draft.text, Status.ANSWERED, result, no_answer("", self.judge.name),
            draft=draft, citations=citations,
        )  # fmt: skip
        if not citations.ok:
            why = f"no answer was given: {citations.problem}"
            text = f"I can't give a checked answer: {citations.problem}."
            return replace(
                base, answer=text, status=Status.ABSTAINED_CITATION,
                assessment=no_answer(why, self.judge.name),
            )  # fmt: skip
        policy = result.scored.policy
        thresholds = policy.judge.thresholds
        judgment = self.judge.judge(read, draft.text, contexts, thresholds)
        if self.correctness is not None:
            judgment = self.correctness.rate(
                question, result, draft.quoted, citations.valid, judgment, policy.judge
            )
        if self.calibrator is not None:
            judgment = self.calibrator.judgment(judgment, policy.judge.thresholds)
        assessment = with_stated_conflicts(judgment.assessment, draft)
        base = replace(base, judgment=judgment, assessment=assessment)
        passed = _passed_over(result, [c for c in contexts if c.id in citations.valid])
        weaker = standing(contexts, citations.valid) or passed_by(contexts, citations.valid, passed)
        kept_out = (  # a forum post or a chat message alone, while a source in force was
            # admitted too, or kept out though it names the subject as fully: weak
            # evidence is not published, whatever its score
            weaker is not None
            and assessment.recommended_action in ("publish", "append_caveat")  # not yet held
            and weak_alone(
                [c.reliability for c in contexts if c.id in citations.valid],
                [c.reliability for c in [*contexts, *passed] if c.id not in citations.valid],
            )
        )
        if kept_out and weaker is not None:
            why = f"{assessment.score_rationale.rstrip('.')}; {weaker[0].lower()}{weaker[1:]}"
            assessment = assessment.model_copy(
                update={"recommended_action": "human_review", "score_rationale": why}
            )
            base = replace(base, assessment=assessment)
        action = assessment.recommended_action
        disagreements = [f"Sources disagree: {d}." for d in draft.disagreements]
        if action in ("human_review", "suppress"):
            queue = action == "human_review" or policy.judge.queue_suppressed
            held = withheld(judgment, queued=queue, weaker=weaker if kept_out else None)
            return replace(
                base, answer=" ".join([held, *disagreements]),
                status=Status.ABSTAINED_JUDGE, notes=tuple(disagreements),
                review=f"recommended_action {action}" if queue else None,
            )  # fmt: skip
        notes = []
        partial = [c.claim for c in judgment.claims if c.grade == "partially supported"]
        if partial:
            notes.append(
                "This answer may be incomplete: the evidence only partly supports: "
                + "; ".join(f'"{claim}"' for claim in partial)
            )
        if assessment.evidence_sufficiency.missing_information:
            missing = "; ".join(assessment.evidence_sufficiency.missing_information)
            notes.append(f"The evidence does not hold everything asked for: {missing}")
        if action == "append_caveat":
            notes.append(caveat(judgment))
        if weaker is not None:
            notes.append(weaker)
        notes.extend(disagreements)
        text = draft.text
        if uncertainty is not None:
            # stated after the judge: a disagreement counts when it bears on the answer
            stated = _uncertainty(result, disagree=bool(assessment.source_conflicts))
            text = f"{_hedge_preamble(stated)} {text}"
        text = " ".join([text, *(f"{n}." if not n.endswith(".") else n for n in notes)])
        return replace(base, answer=text, notes=tuple(notes))


def with_stated_conflicts(assessment: Assessment, draft: Draft) -> Assessment:
    """``assessment`` with the disagreements the draft states among its source
    conflicts: the answer says "Sources disagree", so the JSON and the audit row say it
    too, not "consistent" beside it. The score and action stay the judge's: the draft
    followed the stronger source."""
    known = {frozenset((c.source_a, c.source_b)) for c in assessment.source_conflicts}
    added = [c for c in draft.conflicts if frozenset((c.source_a, c.source_b)) not in known]
    if not added:
        return assessment
    rationale = (
        f"{assessment.score_rationale.rstrip('.')}; {len(added)} weaker source(s) state "
        "otherwise, and the answer follows the stronger"
    )
    return assessment.model_copy(
        update={
            "source_conflicts": [*assessment.source_conflicts, *added],
            "score_rationale": rationale,
        }
    )


def _uncertainty(result: AskResult, *, disagree: bool | None = None) -> Uncertainty:
    """Why a hedged answer is hedged. Before the draft, any conflict among the admitted
    evidence counts as "some sources disagree"; once the judge has read the answer,
    ``disagree`` says whether one bears on what it states."""
    s = result.signals
    label = result.scored.policy.labels.label(result.confidence).value
    reasons = []
    gaps = evidence_gaps(result.scored.query, s.missing_terms, texts_of(result))
    if gaps:
        reasons.append(f"the evidence does not mention {', '.join(gaps)}")
    if s.judgment is not None and s.judgment < 0.5:
        reasons.append("no passage clearly answers the question")
    if s.top < 0.7:
        reasons.append("the best evidence is only moderately strong")
    if s.gap < 0.3 and len(result.scored.admitted) > 1:
        reasons.append("several passages compete with no clear best")
    if bool(result.conflicts) if disagree is None else disagree:
        reasons.append("some sources disagree")
    if not reasons:
        reasons.append("taken together, the passages are not strong enough for a plain answer")
    return Uncertainty(result.confidence, label, tuple(reasons))


def _hedge_preamble(u: Uncertainty) -> str:
    why = "; ".join(u.reasons)
    return f"With {u.label} confidence in the evidence ({u.confidence:.2f}), because {why}."


def _not_from_knowledge_base(text: str) -> Assessment:
    """The J1 object of an answer written without evidence: nothing in it is supported,
    so it scores 0.0, but the policy chose to give such answers marked as what they are,
    so the action is ``append_caveat`` (the marker is the caveat), not ``suppress``."""
    return Assessment(
        confidence_score=0.0,
        score_rationale="the answer was written without knowledge-base evidence; the policy "
        "allows such answers, marked as not from the knowledge base",
        evidence_sufficiency=EvidenceSufficiency(
            is_sufficient=False, missing_information=["knowledge-base evidence for the question"]
        ),
        source_conflicts=[],
        unsupported_claims=split_claims(text),
        speculation_flags=[],
        recommended_action="append_caveat",
    )
