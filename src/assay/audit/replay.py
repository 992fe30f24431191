"""Recompute a scoring or question event from its audit row alone (E8, B2).

A ``score`` event stores the full policy definition and, per item, the similarity
and the :class:`~assay.types.SourceBasis` (reliability, adjustments, age, decay
rate, overruled/retired, the sources that supersede it). That is enough to recompute
every sub-score, the composite, the label and the gate's verdict (supersession over
the request's items together, as :func:`assay.scoring.gate.verdicts` decides it; a row
written before supersession names no superseding source); any difference means the
row, the policy or the scoring code no longer agree with what was decided at the time.
For a question (``ask``) the set signals are recomputed from the evidence and the query
(all but coherence, which needs the embeddings), the composite from the signals, and
the routing decision from the composite (after the stored calibration map, when one
decided the route; its parameters are in the row), and the answer's correctness
probability from its stored features. Findings are not replayed: they
depend on the injected text-similarity function.

The row is read as its typed record (:mod:`assay.events`); a payload that does not match
its record is a problem of its own.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any

from assay.actions import Action, stricter_action
from assay.calibration.maps import map_from_dict
from assay.errors import InvalidInputError
from assay.events import (
    AskRecord,
    AuditRecord,
    CalibrationRecord,
    EvidenceRecord,
    JsonObject,
    ScoreRecord,
    parse_record,
)
from assay.hashing import canonical_json, sha256_hex
from assay.judge.strength import passed_over, weak_alone
from assay.policy import Policy, policy_from_mapping
from assay.routing import route_question

if TYPE_CHECKING:
    from assay.answer.correctness import CorrectnessModel
from assay.scoring.evidence import composite_score, sub_scores
from assay.scoring.gate import current, verdicts
from assay.scoring.signals import (
    SIGNAL_NAMES,
    SetSignals,
    concentration_score,
    coverage_score,
    coverage_texts,
    set_confidence,
    top_gap,
)
from assay.text import ADDED_STOPWORDS, titled
from assay.types import Candidate, Evidence, ExclusionReason, Label, SourceBasis, round_score


class Replay:
    """The row check of ``audit verify`` (:class:`assay.audit.verify.RowCheck`): every
    row read as its kind's record, every scoring event recomputed from it, and every
    applied calibration map compared with the map its fitting event recorded earlier in
    the chain."""

    def __init__(self) -> None:
        self.maps: dict[int, JsonObject] = {}  # map parameters as their fits recorded them

    def __call__(
        self, kind: str, payload: Any, query: str, schema_version: int | None = None
    ) -> list[str]:
        try:
            record = parse_record(kind, payload, legacy=schema_version is None)
        except ValueError as exc:
            return [f"payload does not match its record: {exc}"]
        return record_problems(record, query) + map_problems(record, self.maps)


def replay_problems(kind: str, payload: Any, query: str = "") -> list[str]:
    """Describe every stored score of one event that does not recompute; [] if all do."""
    try:
        record = parse_record(kind, payload)
    except ValueError as exc:
        return [f"payload does not match its record: {exc}"]
    return record_problems(record, query)


def record_problems(record: AuditRecord, query: str = "") -> list[str]:
    """Every stored score of a scoring record that does not recompute; [] for the others."""
    if not isinstance(record, ScoreRecord):
        return []
    try:
        snapshot = record.policy.model_dump(mode="json")
        policy = policy_from_mapping(snapshot, origin="audit row")
        problems = []
        if record.policy_digest != sha256_hex(canonical_json(snapshot)):
            problems.append("stored policy does not match its digest")
        evidence = []
        for item in record.evidence:
            recomputed, item_problems = _replay_item(item, policy)
            evidence.append(recomputed)
            problems.extend(item_problems)
        evidence, gate_problems = _gate_problems(record.evidence, evidence, policy)
        problems.extend(gate_problems)
        if isinstance(record, AskRecord):
            problems.extend(_route_problems(record, policy, query, evidence))
        return problems
    except (KeyError, TypeError, ValueError, InvalidInputError) as exc:
        return [f"payload cannot be replayed: {exc!r}"]


def _route_problems(
    record: AskRecord, policy: Policy, query: str, evidence: list[Evidence]
) -> list[str]:
    """Recompute the set signals (all but coherence, which needs the embeddings), their
    composite, and the decision."""
    evidence = current(evidence)  # as assess_retrieval: a superseded item is not retrieved
    stored = record.signals
    settings = policy.signals
    top, gap = top_gap(evidence)
    admitted = [e for e in evidence if e.admitted]
    recomputed = {
        "top": top,
        "gap": min(1.0, gap * settings.gap_scale),
        "concentration": concentration_score(
            [e.confidence for e in evidence], [e.admitted for e in evidence], settings.top_n
        ),
        "coverage": coverage_score(query, coverage_texts(admitted))[0],
    }
    untitled = [e.candidate.text for e in admitted]
    # rows written before coverage took "bring" for frame, and before that
    # read everyday words ("kilos" beside "2 kg")
    before_carrying = coverage_score(query, coverage_texts(admitted), carrying_words=False)[0]
    before_everyday = coverage_score(
        query, coverage_texts(admitted), everyday=False, carrying_words=False
    )[0]
    earlier = (  # rows written before coverage read clipped words, took the asker's
        # people for frame, read hyphenated compounds, parts of the day by their clock
        # times and took "am" for a stopword, read countries by their group and holidays
        # by their date, days by their kind, spelled-out acronyms, left the asker's own
        # figures out, read title paths, or counted frame words
        coverage_score(
            query, texts, subject_only=subject_only, own_figures=own, acronyms=acronyms,
            days=days, holidays=dated, places=dated, times=timed, compounds=compound,
            clippings=False, askers_words=False, carrying_words=False,
            keep=frozenset() if timed else ADDED_STOPWORDS,
        )[0]
        for texts, subject_only, own, acronyms, days, dated, timed, compound in (
            (coverage_texts(admitted), True, False, True, True, True, True, True),
            (coverage_texts(admitted), True, False, True, True, True, True, False),
            (coverage_texts(admitted), True, False, True, True, True, False, False),
            (coverage_texts(admitted), True, False, True, True, False, False, False),
            (coverage_texts(admitted), True, False, True, False, False, False, False),
            (coverage_texts(admitted), True, False, False, False, False, False, False),
            (coverage_texts(admitted), True, True, False, False, False, False, False),
            (coverage_texts(admitted), False, True, False, False, False, False, False),
            (untitled, True, True, False, False, False, False, False),
            (untitled, False, True, False, False, False, False, False),
        )
    )  # fmt: skip
    if round_score(recomputed["coverage"]) != stored.coverage:
        recomputed["coverage"] = next(
            (
                c
                for c in (before_carrying, before_everyday, *earlier)
                if round_score(c) == stored.coverage
            ),
            recomputed["coverage"],
        )
    problems = [
        f"signal {name} {getattr(stored, name)} recomputes as {round_score(value)}"
        for name, value in recomputed.items()
        if round_score(value) != getattr(stored, name)
    ]
    composite = set_confidence(
        {name: float(getattr(stored, name)) for name in SIGNAL_NAMES},
        settings.weights,
        None if stored.judgment is None else float(stored.judgment),
        mode=settings.judgment_mode,
        judgment_weight=settings.judgment_weight,
    )
    if composite != stored.composite:
        problems.append(f"set confidence {stored.composite} recomputes as {composite}")
    signals = SetSignals(
        top=float(stored.top),
        gap=float(stored.gap),
        concentration=float(stored.concentration),
        coherence=float(stored.coherence),
        coverage=float(stored.coverage),
        composite=composite,
        coherence_by_source={k: float(v) for k, v in stored.coherence_by_source.items()},
        covered_terms=tuple(stored.covered_terms),
        missing_terms=tuple(stored.missing_terms),
        judgment=None if stored.judgment is None else float(stored.judgment),
    )
    problems.extend(_correctness_problems(record, policy, query))
    problems.extend(_answer_calibration_problems(record, policy, query))
    calibrated = record.calibration.set
    if calibrated is not None:  # the router decided on the set confidence after the map
        value = round(float(map_from_dict(calibrated.params)(composite)), 6)
        if value != calibrated.value or calibrated.raw != composite:
            problems.append(f"calibrated set confidence {calibrated.value} recomputes as {value}")
        signals = replace(signals, composite=value)
    read = "judgment" in record.models  # a chat model read the passages (llm_judgment)
    decision = route_question(
        query, signals, len(admitted), policy.routing, record.category, read=read
    ).decision
    if decision.value != record.route.decision:
        problems.append(f"decision {record.route.decision} recomputes as {decision.value}")
    return problems


@cache
def _shipped_correctness(name: str) -> CorrectnessModel | None:
    """The shipped correctness model called ``name``, loaded on the first answered row it
    rated (not at import: verifying or replaying scoring events never loads the question
    path); ``None`` for a name assay does not ship."""
    from assay.answer.correctness import (
        SHIPPED_CORRECTNESS,
        SHIPPED_CORRECTNESS_LLM,
        load_correctness_model,
    )

    shipped = {p.name: p for p in (SHIPPED_CORRECTNESS, SHIPPED_CORRECTNESS_LLM)}
    return load_correctness_model(shipped[name]) if name in shipped else None


def _correctness_problems(record: AskRecord, policy: Policy, query: str) -> list[str]:
    """The answer-correctness probability from its stored features, the score as the
    lower of it and the judge's support, and (when no map calibrated it) the action: the
    stricter of the policy's two threshold sets.
    Rows rated by a model other than the shipped ones are not rechecked here."""
    rated = record.judgment.correctness if record.judgment else None
    if rated is None:
        return []
    model = _shipped_correctness(rated.model.rsplit("@", 1)[0])
    if model is None or model.ref != rated.model:
        return []
    problems = []
    probability = model.probability({k: float(v) for k, v in rated.features.items()})
    if probability != rated.probability:
        problems.append(
            f"answer correctness {rated.probability} recomputes as {probability} ({model.ref})"
        )
    score = min(probability, float(rated.support))
    if score != rated.score:
        problems.append(f"answer score {rated.score} recomputes as {score}")
    assert record.judgment is not None
    if record.judgment.calibration is None:
        assessment = record.assessment
        shown = assessment.confidence_score if assessment else None
        if shown != score:
            problems.append(f"answer score {shown} is not {score}")
        rules = policy.judge
        action = stricter_action(
            rules.thresholds.action(float(rated.support)), rules.correctness.action(probability)
        )
        recommended = assessment.recommended_action if assessment else None
        action = _held_alone(record, query, action, recommended)
        if recommended != action:
            problems.append(f"action {recommended} recomputes as {action}")
    return problems


def _held_alone(record: AskRecord, query: str, action: Action, recommended: str | None) -> Action:
    """``action``, or human review where the answer rests on forum posts or messages
    alone beside a source in force (:func:`_weak_alone`). Rows written before a passage
    kept out for its similarity counted as such a source published those answers, so
    either action replays for them."""
    if action not in ("publish", "append_caveat"):
        return action
    if _weak_alone(record, query, passed=False):
        return "human_review"  # a forum post alone beside a source in force
    if _weak_alone(record, query) and recommended == "human_review":
        return "human_review"  # ... or beside one that names the subject as fully
    return action


def _weak_alone(record: AskRecord, query: str, *, passed: bool = True) -> bool:
    """Whether the answer cites forum posts or messages alone while a clearly more
    reliable source was admitted too (:func:`assay.judge.strength.weak_alone`), or, with
    ``passed``, kept out below the similarity floor though it names the question's
    subject as fully (:func:`assay.judge.strength.passed_over`)."""
    valid = (record.citations or {}).get("valid")
    cited = {str(i) for i in valid} if isinstance(valid, list) else set()
    admitted = [e for e in record.evidence if e.admitted]
    used = [e for e in admitted if e.id in cited]
    others = [float(e.basis.reliability) for e in admitted if e.id not in cited]
    if passed:
        below = [
            e for e in record.evidence
            if e.reason == ExclusionReason.BELOW_SIMILARITY_FLOOR.value
            and not e.basis.superseded_by
        ]  # fmt: skip
        found = passed_over(
            query,
            [(float(e.basis.reliability), titled(e.title, e.text)) for e in used],
            [(float(e.basis.reliability), titled(e.title, e.text)) for e in below],
        )
        others += [float(below[n].basis.reliability) for n in found]
    return weak_alone([float(e.basis.reliability) for e in used], others)


def _answer_calibration_problems(record: AskRecord, policy: Policy, query: str) -> list[str]:
    """The judge's calibrated score and its action, recomputed from the stored map."""
    calibrated = record.judgment.calibration if record.judgment else None
    if calibrated is None:
        return []
    value = round(float(map_from_dict(calibrated.params)(float(calibrated.raw))), 6)
    assessment = record.assessment
    shown = assessment.confidence_score if assessment else None
    problems = []
    if value != calibrated.value or shown != value:
        problems.append(f"calibrated answer score {shown} recomputes as {value}")
    recommended = assessment.recommended_action if assessment else None
    action = _held_alone(record, query, policy.judge.thresholds.action(value), recommended)
    if recommended != action:
        problems.append(f"action {recommended} recomputes as {action}")
    return problems


def map_problems(record: AuditRecord, maps: dict[int, JsonObject]) -> list[str]:
    """Check that every map an ``ask`` row applied is the one its ``calibration`` event
    recorded when it was fitted (``maps``, filled as the chain is walked), so a map
    edited in its table after the fact cannot pass unseen."""
    if isinstance(record, CalibrationRecord):
        maps[record.map.id] = record.map.params
        return []
    if not isinstance(record, AskRecord):
        return []
    applied: list[tuple[str, int, JsonObject | None]] = []
    if record.calibration.set is not None:
        applied.append(("set", record.calibration.set.id, record.calibration.set.params))
    if record.calibration.evidence is not None:
        applied.append(("evidence", record.calibration.evidence.id, None))
    judged = record.judgment.calibration if record.judgment else None
    if judged is not None:
        applied.append(("answer", judged.id, judged.params))
    problems = []
    for target, map_id, params in applied:
        recorded = maps.get(map_id)
        if recorded is None:
            problems.append(f"{target} map {map_id} has no calibration event before it")
        elif params is not None and params != recorded:
            problems.append(f"{target} map {map_id} differs from the one its fit recorded")
    return problems


def _replay_item(item: EvidenceRecord, policy: Policy) -> tuple[Evidence, list[str]]:
    """The item rescored from its row (not yet gated), and how the stored values differ
    from that."""
    basis = SourceBasis.from_dict(item.basis.model_dump())
    scores = sub_scores(float(item.scores["similarity"]), basis, policy.undated_freshness)
    confidence = composite_score(scores, policy.weights)
    label = policy.labels.label(confidence)
    name = f"item {item.id!r}"
    problems = []
    if scores.as_dict() != item.scores:
        problems.append(f"{name}: sub-scores {item.scores} recompute as {scores.as_dict()}")
    if confidence != item.confidence:
        problems.append(f"{name}: confidence {item.confidence} recomputes as {confidence}")
    if label != Label(item.label):
        problems.append(f"{name}: label {item.label} recomputes as {label.value}")
    evidence = Evidence(
        candidate=Candidate(
            id=item.id,
            text=item.text,
            similarity=scores.similarity,
            source_id=item.source_id,
            source_kind=basis.source_kind,
            title=item.title,
        ),
        scores=scores,
        weights=policy.weights,
        confidence=confidence,
        label=label,
        basis=basis,
        policy_name=policy.name,
        policy_version=policy.version,
    )
    return evidence, problems


def _gate_problems(
    items: list[EvidenceRecord], evidence: list[Evidence], policy: Policy
) -> tuple[list[Evidence], list[str]]:
    """The gate's verdicts recomputed over the rescored items of one request (supersession
    reads them all), the items with those verdicts, and how the stored ones differ. A
    supersession's detail is compared too: it names the sources that decided it."""
    gated, problems = [], []
    for item, rescored, verdict in zip(items, evidence, verdicts(evidence, policy), strict=True):
        reason, detail = verdict if verdict else (None, None)
        if (verdict is None) != item.admitted or (reason and reason.value) != item.reason:
            shown = reason.value if reason else "admitted"
            problems.append(
                f"item {item.id!r}: gate verdict {item.reason or 'admitted'} recomputes as {shown}"
            )
        elif reason is ExclusionReason.SOURCE_SUPERSEDED and detail != item.detail:
            problems.append(f"item {item.id!r}: {item.detail!r} recomputes as {detail!r}")
        gated.append(replace(rescored, admitted=verdict is None, reason=reason, detail=detail))
    return gated, problems
