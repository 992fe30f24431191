"""The offline judge: claims graded by the support model, scored by seed 001's bands.

For each claim of the answer (:func:`~assay.judge.claims.split_claims`) the support
model scores every context. A context's *strength* for the claim is its P(supported),
zeroed when the context lacks a figure, year or name the claim states ("Mumbai" is not
supported by a passage about Delhi, however alike the rest), and scaled down when it
holds under half of the claim's meaningful words (the support model alone calls some
off-topic evidence supporting). The claim is

* **supported** when the strongest context's strength clears the model's threshold;
* **contradicted** otherwise, when some context contradicts it (the model says so where
  the two state the same thing, or the context's aligned sentence shares at least three
  meaningful words with the claim and carries other figures, dates or a negation, or
  one of them gives a range, in the other's unit, that the other's figure falls outside,
  or the context sets a bound the claim's figure falls short of or beyond: "any flight
  over 4 hours" against "only for flights ... over 6 hours");
* **partially supported** when the strength reaches half the threshold;
* **unsupported** otherwise.

The support model reads each claim after the query ("Yes, both are rock bands" says
nothing alone; the model was trained on question and answer together), except a sentence
of six words or more quoted word for word from a context, which it reads alone (the
model takes a long question-and-answer for a hallucination). An extractive answer's
short answer that restates a span of the quote it opens ("No internet connection: -
Solid amber: no internet connection.") is left out: the model took the echo for a
contradiction. A supported claim that another context contradicts is a source conflict,
weighed by who said what (:mod:`assay.judge.strength`): a context weighs its confidence
(as in ``assay ask``), else the reliability of its source kind (``evaluate`` with
``source_kind``), and one clearly outweighs another by 0.15 or more, or at equal weight
by a later publication date. The claim rests on its strongest backing context. If that
clearly outweighs a contradicting one, the conflict is *settled* in the claim's favour;
if it revises the contradicting one (published later, it states that one's figures beside
its own: "now expected to be €192-196 million, up from €188-194 million"), so is the
conflict; if a contradicting context clearly outweighs it, the claim is **contradicted** (a chat
message does not make a claim the official policy contradicts true), the conflict
reported and settled against it; otherwise the conflict stands unsettled. A conflict
among contexts is settled when either side clearly outweighs the other. Contexts with no
weight (no confidence, no source kind) settle nothing, as before source information
existed. Unsettled conflicts over a claim are major, settled ones and unsettled ones
among the contexts are minor, and settled ones among the contexts are only reported.
Conflicts among the contexts come from :func:`~assay.scoring.agreement.find_conflicts`
and from definitions that differ, kept only when one side states what a claim states (a
disagreement about charging time does not bear on an answer about temperature); evidence
sufficiency and speculation from :mod:`assay.judge.checks`.

The score (J3) picks a band from what was found and places the answer inside it by the
mean of its claims' ``0.8 * strength + 0.2 * P(supported)``, so that answers within one
band still rank (the raw share keeps apart the answers a missing name zeroed; 0.2 was
chosen on the even half of the HaluEval and SciFact test rows, and the odd half is
reported separately in docs/benchmarks.md):

===============================================================================  =========
finding                                                                          band
===============================================================================  =========
every claim contradicted or unsupported, or one contradicted and none supported  0.00-0.19
a contradicted claim, a major conflict, half the claims unsupported, off target  0.20-0.49
an unsupported claim, several (or only) partial ones, a minor conflict, gaps     0.50-0.79
one partial claim among supported ones, speculation, a claim of strength < 0.8  0.80-0.99
every claim directly supported, evidence sufficient and consistent               1.0
===============================================================================  =========

A citation of a source that is not among the contexts counts as a major problem too.
An answer is *off target* when the query's wording asks for a kind of answer
(:mod:`assay.answer.expected`: a date for "when", a duration for "how long") that the
answer does not hold, however well its claims are supported.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from assay.actions import ActionThresholds
from assay.answer.citations import validate_citations
from assay.answer.expected import expected_kind
from assay.answer.qualifiers import Qualifiers, qualifiers
from assay.judge.base import ClaimGrade, Grade, Judgment, empty_or_refusal
from assay.judge.checks import (
    beyond_bound,
    definition_conflicts,
    missing_information,
    out_of_range,
    speculation,
)
from assay.judge.claims import LED, split_claims
from assay.judge.schema import (
    Assessment,
    Context,
    EvidenceSufficiency,
    Nature,
    SourceConflict,
    is_excerpt,
)
from assay.judge.strength import outweighs, rank, same_document
from assay.models.support import SupportModel, SupportResult, get_support_model
from assay.scoring.agreement import (
    CachedSupport,
    aligned_sentences,
    different_rows,
    face_conflict,
    find_conflicts,
)
from assay.text import NUMBER, content_terms, figures, is_stopword, squash_spaces, stem, titled

__all__ = ["ModelJudge"]

_SHORT_CLAIM_WORDS = 6
_YES_NO_START = re.compile(r"^\W*(?:yes|no)\b", re.IGNORECASE)
#: an extractive answer: its short answer, then the sentence quoted ("No internet
#: connection: - Solid amber: no internet connection."); the model reads the quote after
#: the query, as the echo took a restated span for a contradiction (P(supported) 0.23
#: against 0.81)
_ALIGNED = 0.5  # content-word cosine at which a claim and a sentence state the same thing
_SAME_WORDS = 3  # a face conflict needs this many shared words: short texts align by chance
_FULL_COVERAGE = 0.5  # evidence holding this share of a claim's words takes its support whole
_RAW_SHARE = 0.2  # share of raw P(supported) in an answer's place within its band
_PARTIAL = 0.5  # a claim is partially supported from this share of the support threshold
_CAPITALISED = re.compile(r"(?<![\w'-])[A-Z][\w'-]*")
_YES_NO = frozenset({"yes", "true", "false", "correct", "incorrect"})
_BEARS_ON = 0.35  # content-word cosine from which a contexts' conflict concerns a claim
_DIRECT = 0.8  # P(supported) of every claim for the top score: "directly supported"
_BANDS = {
    "contradicted": (0.0, 0.19),
    "major": (0.2, 0.49),
    "gaps": (0.5, 0.79),
    "minor": (0.8, 0.99),
}


@dataclass(frozen=True, slots=True)
class _Graded:
    grade: ClaimGrade
    #: the conflicts over the claim, each with whether the evidence's strength settles it
    conflicts: tuple[tuple[SourceConflict, bool], ...]
    overruled: bool = False  #: a clearly stronger source contradicts all that backs it


def _nature(kind: str | None) -> Nature:
    return "temporal inconsistency" if kind == "dates" else "direct contradiction"


def _coverage(claim: str, text: str, query: str = "") -> float:
    """Share of the claim's meaningful words (stemmed) that ``text`` contains; a bare
    "yes" or "no" has none of its own, so the query's words stand in for them."""
    wanted = {stem(t) for t in content_terms(claim)} - _YES_NO
    if not wanted:
        wanted = {stem(t) for t in content_terms(query)}
    have = {stem(t) for t in content_terms(text)}
    return len(wanted & have) / len(wanted) if wanted else 0.0


class ModelJudge:
    """Grades claims with a support model; see the module docstring."""

    def __init__(
        self, support: SupportModel | str | None = None, *, threshold: float | None = None
    ) -> None:
        """``support``: a model or its registered name (default: the shipped one).

        ``threshold``: P(supported) at which a claim counts as supported (default: the
        model's own, chosen on validation data, else 0.5).
        """
        self.support = get_support_model(support) if support is not None else get_support_model()
        self.threshold = float(
            threshold if threshold is not None else getattr(self.support, "threshold", 0.5)
        )
        self.name = f"assay-judge-v1[{self.support.name}]"

    def judge(
        self,
        query: str,
        answer: str,
        contexts: Sequence[Context],
        thresholds: ActionThresholds,
    ) -> Judgment:
        """The J1 assessment of ``answer`` with a grade per claim."""
        claims = split_claims(answer)
        empty = empty_or_refusal(answer if claims else "", self.name)
        if empty is not None:
            return empty
        support = CachedSupport(self.support)
        pairs = [
            (self._claim_text(query, claim, contexts), context.text)
            for claim in claims
            for context in contexts
        ]
        results = support.score(pairs)
        n = len(contexts)
        graded = [
            self._grade(query, claim, contexts, results[i * n : (i + 1) * n])
            for i, claim in enumerate(claims)
        ]
        claim_conflicts = [c for g in graded for c, _ in g.conflicts]
        by_id = {c.id: c for c in contexts}
        over_a_claim = {frozenset((c.source_a, c.source_b)) for c in claim_conflicts}
        context_conflicts = [
            SourceConflict(
                claim=c.sentences[0], source_a=c.first, source_b=c.second, nature=_nature(c.kind)
            )
            for c in find_conflicts([(x.id, x.text) for x in contexts], support)
            # the same two sources already disagree over a claim: one conflict, told once
            if _bears_on(c.sentences, claims)
            and frozenset((c.first, c.second)) not in over_a_claim
            and not same_document(by_id[c.first], by_id[c.second])
        ] + [
            SourceConflict(claim=s, source_a=a, source_b=b, nature="definitional conflict")
            for s, a, b in definition_conflicts(contexts)
            if _bears_on((s,), claims)
        ]
        grades = [g.grade for g in graded]
        rests_on = [by_id[g.evidence_id].text if g.evidence_id else "" for g in grades]
        flags = speculation(claims, rests_on)
        missing = missing_information(query, contexts)
        kind = expected_kind(query)
        off_target = kind.description if kind and not kind.found_in(answer) else None
        unknown = validate_citations(answer, [c.id for c in contexts]).invalid
        conflicts = _unique(claim_conflicts + context_conflicts)
        over_claims = [settled for g in graded for _, settled in g.conflicts]
        among_contexts = [_settled(c, by_id) for c in context_conflicts]
        score, rationale = _band_score(
            grades,
            major=over_claims.count(False),
            minor=over_claims.count(True) + among_contexts.count(False),
            conflicts=len(conflicts),
            settled=over_claims.count(True) + among_contexts.count(True),
            overruled=sum(g.overruled for g in graded),
            missing=missing,
            flags=flags,
            off_target=off_target,
            unknown_sources=unknown,
        )
        assessment = Assessment(
            confidence_score=score,
            score_rationale=rationale,
            evidence_sufficiency=EvidenceSufficiency(
                is_sufficient=not missing, missing_information=missing
            ),
            source_conflicts=conflicts,
            unsupported_claims=[
                g.claim for g in grades if g.grade in ("unsupported", "contradicted")
            ],
            speculation_flags=flags,
            recommended_action=thresholds.action(score),
        )
        return Judgment(assessment, judge=self.name, claims=tuple(grades), attempts=0)

    @staticmethod
    def _claim_text(query: str, claim: str, contexts: Sequence[Context]) -> str:
        """What the support model reads; see the module docstring."""
        if query.strip() in claim:
            return claim
        texts = [c.text for c in contexts]
        led = LED.match(claim)
        holding = [c for c in contexts if is_excerpt(led["quote"], [c.text])] if led else []
        if led is not None and holding:
            # the short answer restates a span of the quote, or of the title path it
            # stands under ("4.1.0: - `loom diff` compares ..."): read the quote as the answer
            lead = squash_spaces(led["lead"]).lower()
            headed = [c.title for c in holding if c.title]
            if any(lead in squash_spaces(t).lower() for t in [led["quote"], *headed]):
                return f"{query} {led['quote']}"
        short = len(claim.split()) < _SHORT_CLAIM_WORDS or _YES_NO_START.match(claim)
        if not short and is_excerpt(claim, texts):
            return claim  # quoted from the evidence: asked whether it is supported, alone
        return f"{query} {claim}"

    def _grade(
        self, query: str, claim: str, contexts: Sequence[Context], results: Sequence[SupportResult]
    ) -> _Graded:
        strength = [
            # a passage holds what its title path states: "4.1.0" of the changelog's heading
            _strength(claim, query, titled(c.title, c.text), r.score)
            for c, r in zip(contexts, results, strict=True)
        ]
        contradicting: list[tuple[int, str | None]] = []
        said: dict[int, str] = {}  # the sentence of each contradicting context
        stated = _quoted(claim)
        asked = qualifiers(query)
        for j, (context, result) in enumerate(zip(contexts, results, strict=True)):
            if strength[j] >= self.threshold:
                continue
            _, sentence, overlap = aligned_sentences(claim, context.text)
            if different_rows(stated, sentence) or _other_period(asked, sentence):
                continue  # the row of another item, another year: a different statement
            same = overlap >= _ALIGNED and _shared_words(claim, sentence) >= _SAME_WORDS
            kind = face_conflict(claim, sentence) if same else None
            if kind not in ("figures", "dates", "negation"):
                outside = (
                    out_of_range(claim, context.text)
                    or out_of_range(context.text, claim)
                    or beyond_bound(claim, context.text)
                )
                kind = "figures" if outside else None
            # the model's "contradicted" counts only where the context states the same thing
            if (result.label == "contradicted" and overlap >= _ALIGNED) or kind is not None:
                contradicting.append((j, kind))
                said[j] = sentence

        def graded(j: int, grade: Grade) -> ClaimGrade:
            r = results[j]
            quote = aligned_sentences(claim, contexts[j].text)[1] or None
            return ClaimGrade(
                claim, grade, contexts[j].id, quote, r.score, r.contradiction, strength[j]
            )

        backing = [
            j
            for j in range(len(contexts))
            if strength[j] >= self.threshold and results[j].label == "supported"
        ]
        best = max(range(len(contexts)), key=lambda j: strength[j])
        if backing:  # the strongest source that backs the claim speaks for it
            best = max(backing, key=lambda j: (*rank(contexts[j]), strength[j]))
            contradicting = [
                (j, kind)
                for j, kind in contradicting
                if not same_document(contexts[j], contexts[best])
            ]
            conflicts = tuple(
                (
                    SourceConflict(
                        claim=claim,
                        source_a=contexts[best].id,
                        source_b=contexts[j].id,
                        nature=_nature(kind),
                    ),
                    outweighs(contexts[best], contexts[j])
                    or _revises(contexts[best], contexts[j], said[j]),
                )
                for j, kind in contradicting
            )
            stronger = [j for j, _ in contradicting if outweighs(contexts[j], contexts[best])]
            if not stronger:
                return _Graded(graded(best, "supported"), conflicts)
            # a clearly stronger source contradicts it: that settles the conflict, against it
            worst = max(stronger, key=lambda j: (*rank(contexts[j]), _contradiction(results[j])))
            settled = tuple((c, True) for c, _ in conflicts)
            return _Graded(graded(worst, "contradicted"), settled, overruled=True)
        if contradicting:
            worst = max(contradicting, key=lambda jk: _contradiction(results[jk[0]]))[0]
            return _Graded(graded(worst, "contradicted"), ())
        if strength[best] >= self.threshold * _PARTIAL:
            return _Graded(graded(best, "partially supported"), ())
        return _Graded(graded(best, "unsupported"), ())


def _revises(newer: Context, older: Context, sentence: str) -> bool:
    """Whether ``newer`` revises what ``older``'s ``sentence`` states: published later,
    it states every figure of that sentence beside its own ("revenue is now expected to
    be €192 million to €196 million, up from €188 million to €194 million" of a Q3
    trading update, against the annual report's "revenue of €188 million to €194
    million"). It knows the older value and gives another: the conflict is settled. A
    newer text that only states another value ("3 hours" against a 2019 manual's "5
    hours") settles nothing: a person decides."""
    old = figures(sentence)
    return (
        bool(old)
        and newer.published is not None
        and older.published is not None
        and newer.published > older.published
        and old <= figures(newer.text)
    )


#: the kinds of period a claim and a contradicting sentence must not differ in
_PERIODS = frozenset({"year", "quarter", "half"})


def _other_period(asked: Qualifiers, sentence: str) -> bool:
    """Whether ``sentence`` states only another year, quarter or half than the query
    (its qualifiers ``asked``) asks about: for "What was the total dividend for 2025?",
    "an interim dividend of 4.5 cents per share for 2026" contradicts nothing of
    "bringing the total for 2025 to 11.0 cents", which it had withheld (the support model
    read the two figures as a contradiction). A query that pins no period leaves a year
    free to contradict: "was released in 2019" against "released in March 2021"."""
    return bool(_PERIODS.intersection(asked.clashing(sentence)))


def _quoted(claim: str) -> str:
    """The sentence an extractive claim quotes after its short answer ("£42.00: Species
    Cat: ..." states the row), else the claim."""
    led = LED.match(claim)
    if led is not None and squash_spaces(led["lead"]).lower() in led["quote"].lower():
        return led["quote"]
    return claim


def _contradiction(result: SupportResult) -> float:
    return result.contradiction or 0.0


def _strength(claim: str, query: str, text: str, support: float) -> float:
    """P(supported) discounted for what ``text`` lacks: nothing when it lacks a figure or
    a name the claim states, and in proportion when it holds under half of the claim's
    meaningful words (the support model alone calls some off-topic evidence supporting)."""
    if _figures_missing(claim, text) or _names_missing(claim, text):
        return 0.0
    return support * min(1.0, _coverage(claim, text, query) / _FULL_COVERAGE)


def _names_missing(claim: str, text: str) -> bool:
    """Whether the claim names someone or something (a capitalised word, other than a
    sentence's first) that ``text`` never mentions: "Mumbai" is not supported by a
    passage about Delhi, however alike the rest."""
    words = _CAPITALISED.findall(claim)
    if len(claim.split()) >= _SHORT_CLAIM_WORDS:
        words = [m.group(0) for m in _CAPITALISED.finditer(claim) if m.start() > 0]
    for word in words:
        name = re.sub(r"'s$", "", word)
        if is_stopword(name.casefold()) or name.casefold() in _YES_NO:
            continue
        if not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE):
            return True
    return False


def _shared_words(a: str, b: str) -> int:
    """How many meaningful words (not figures or single letters) two sentences share."""

    def words(text: str) -> set[str]:
        return {stem(t) for t in content_terms(text) if len(t) > 1 and not NUMBER.fullmatch(t)}

    return len(words(a) & words(b))


def _figures_missing(claim: str, text: str) -> bool:
    """Whether the claim states a figure or year that ``text`` does not contain."""
    have = {n.replace(",", "") for n in NUMBER.findall(text)}
    return any(n.replace(",", "") not in have for n in NUMBER.findall(claim))


def _settled(conflict: SourceConflict, contexts: dict[str, Context]) -> bool:
    """Whether the evidence settles a conflict among the contexts: one side clearly
    outweighs the other (:func:`~assay.judge.strength.outweighs`: an official data sheet
    against a forum post)."""
    a, b = contexts.get(conflict.source_a), contexts.get(conflict.source_b)
    return a is not None and b is not None and (outweighs(a, b) or outweighs(b, a))


def _bears_on(sentences: Sequence[str], claims: Sequence[str]) -> bool:
    """Whether a conflict among the contexts is about something the answer says: one of
    its sentences shares the words of a claim (figures aside). A disagreement about
    charging time is no conflict for an answer about charging temperature."""
    return any(
        aligned_sentences(claim, sentence)[2] >= _BEARS_ON
        for claim in claims
        for sentence in sentences
    )


def _unique(conflicts: list[SourceConflict]) -> list[SourceConflict]:
    seen: dict[tuple[str, str, str], SourceConflict] = {}
    for c in conflicts:
        seen.setdefault((c.claim, *sorted((c.source_a, c.source_b))), c)  # type: ignore[arg-type]
    return list(seen.values())


def _band_score(
    grades: Sequence[ClaimGrade],
    *,
    major: int,
    minor: int,
    conflicts: int,
    settled: int,
    overruled: int = 0,
    missing: Sequence[str],
    flags: Sequence[str],
    off_target: str | None,
    unknown_sources: Sequence[str] = (),
) -> tuple[float, str]:
    """The J3 score and a one-line rationale; see the module docstring's table."""
    count = Counter(g.grade for g in grades)
    n = len(grades)
    supported, partial = count["supported"], count["partially supported"]
    contradicted, unsupported = count["contradicted"], count["unsupported"]
    if contradicted + unsupported == n or (contradicted and not supported):
        band = "contradicted"
    elif contradicted or major or off_target or unknown_sources or 2 * unsupported >= n:
        band = "major"
    elif unsupported or partial >= 2 or partial == n or minor or missing:
        band = "gaps"
    elif partial or flags or any(g.strength < _DIRECT for g in grades):
        band = "minor"
    else:
        band = "all"
    parts = [
        f"{v} {k}" for k, v in (
            ("supported", supported), ("partially supported", partial),
            ("contradicted", contradicted), ("unsupported", unsupported),
        ) if v
    ]  # fmt: skip
    why = [f"{n} claim{'s' if n != 1 else ''}: {', '.join(parts)}"]
    if conflicts:
        by_strength = f", {settled} settled by evidence strength" if settled else ""
        why.append(f"{conflicts} source conflict(s){by_strength}")
    if overruled:
        why.append(f"a stronger source contradicts {overruled} claim(s) a weaker one supports")
    if unknown_sources:
        why.append(f"the answer cites sources not among the contexts: {', '.join(unknown_sources)}")
    if off_target:
        why.append(f"the answer gives no {off_target}, which the query asks for")
    if missing:
        why.append(f"the contexts lack {len(missing)} thing(s) the query asks for")
    if flags:
        why.append(f"{len(flags)} speculative statement(s)")
    if band == "all":
        return 1.0, "; ".join(why) + "; consistent, sufficient evidence"
    low, high = _BANDS[band]
    # strength places an answer in its band; raw P(supported) breaks ties among answers
    # whose strength a missing name or figure zeroed, so that they still rank
    quality = sum((1 - _RAW_SHARE) * g.strength + _RAW_SHARE * g.support for g in grades) / n
    return round(low + (high - low) * quality, 4), "; ".join(why)
