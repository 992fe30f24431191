"""The audit payload of each event kind, as a typed, versioned record.

One pydantic model per kind (``score``, ``ask``, ``review``, ``key``, ``access``,
``read``, ``alert``, ``policy``, ``calibration``). The engine and the services build the
record where the event happens (:func:`build`) and :meth:`assay.audit.AuditLog.append`
stores its JSON; replay, the dashboard, the command line and calibration read the same
models back (:func:`parse_record`), never string paths into a dict. Monitoring reads a
few numbers with SQL for speed; a test holds those paths against these models' fields. A
row also stores the schema version it was written with (:data:`SCHEMA_VERSION`, the
``schema_version`` column); rows written before it (none) are read leniently: keys this
version no longer knows are set aside, and fields added since have defaults.

The models are strict about shape (unknown keys are refused) but keep every JSON
number as written, an integer as an integer and a float as a float, because the row's
hash covers the canonical JSON of the payload: a record read back and written again is
the same bytes. Sub-documents that another parser owns (the policy snapshot, the J1
assessment's lists, a map's parameters) are kept as JSON values; the fields that assay
reads from them are typed.

This module depends on nothing but pydantic: the chain check and the backends read it
without the scoring stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from assay.errors import InvalidInputError

__all__ = [
    "RECORDS",
    "SCHEMA_VERSION",
    "AlertRecord",
    "AnswerPart",
    "AppliedMap",
    "AskRecord",
    "AssessmentRecord",
    "AuditRecord",
    "CalibrationRecord",
    "DocumentAccessRecord",
    "EvidenceRecord",
    "KeyRecord",
    "PolicyChangeRecord",
    "ReadRecord",
    "ReviewRecord",
    "ScoreRecord",
    "build",
    "parse_record",
    "record_type",
]

SCHEMA_VERSION = 1  #: what new rows are written with; rows before it have none

Number = int | float  #: a JSON number as written (1 stays 1, 1.0 stays 1.0)
JsonObject = dict[str, JsonValue]


class _Part(BaseModel):
    """A strictly shaped piece of a payload."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class _Open(BaseModel):
    """A piece whose typed fields assay reads; the rest of its keys are kept as stored."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)


class AuditRecord(_Part):
    """The payload of one audit event; ``kind`` names the event kind it is stored as."""

    kind: ClassVar[str]

    def payload(self) -> JsonObject:
        """The JSON object stored in the row: the fields given, exactly as given."""
        dumped: JsonObject = self.model_dump(mode="json", exclude_unset=True)
        return dumped


# -- scoring: ``score`` and ``ask`` ------------------------------------------------------
class PolicyRef(_Part):
    """The policy an item was scored under."""

    name: str
    version: str


class SourceBasisRecord(_Part):
    """Where an item's source and freshness sub-scores came from (see ``SourceBasis``)."""

    source_id: str | None
    source_kind: str
    owner: str | None
    reliability: Number
    kind_adjustment: Number
    jurisdiction_penalty: Number
    effective_date: str | None
    age_days: int | None
    decay_rate: Number
    overruled: bool
    retired: bool
    review_overdue: bool
    superseded_by: list[str] = []  #: absent from rows written before supersession


class EvidenceRecord(_Part):
    """One scored item; ``reason`` and ``detail`` only when the gate excluded it."""

    id: str
    confidence: Number
    label: str
    scores: dict[str, Number]
    weights: dict[str, Number]
    policy: PolicyRef
    admitted: bool
    source_id: str | None
    source_kind: str
    title: str | None
    uri: str | None
    text: str
    basis: SourceBasisRecord
    reason: str | None = None
    detail: str | None = None

    @property
    def source(self) -> str:
        """The registered source, else the kind of the unregistered one."""
        return self.basis.source_id or self.basis.source_kind


class LabelBands(_Open):
    """A policy's label thresholds: ``high`` and ``medium``."""

    high: Number
    medium: Number


class PolicySnapshot(_Open):
    """The whole policy as it was applied (parsed in full by the replay)."""

    name: str
    version: str
    labels: LabelBands


class Counts(_Part):
    """How many items the gate admitted and excluded."""

    admitted: int
    excluded: int


class ScoreRecord(AuditRecord):
    """A scoring event: every item's scores and verdict, enough to replay them (E8, J8)."""

    kind: ClassVar[str] = "score"

    assay_version: str
    as_of: str
    jurisdiction: str | None
    policy: PolicySnapshot
    policy_digest: str
    thresholds: dict[str, Number]
    evidence: list[EvidenceRecord]
    counts: Counts
    findings: list[JsonObject]
    models: dict[str, str | None]
    prompts: dict[str, str | None]


class HitRecord(_Part):
    """One retrieved chunk and its ranks."""

    id: str
    cosine: Number
    relevance: Number | None
    fused: Number
    dense_rank: int | None
    lexical_rank: int | None
    #: the chat model's belief that the chunk states the answer, where it read the chunk
    #: for the set's judgment (``[models] llm_judgment``); the answerer weighed it
    read: Number | None = None


class AccessRecord(_Part):
    """What the caller could read when the knowledge base was searched (``assay.access``)."""

    everything: bool
    grants: list[str]


class RetrievalRecord(_Part):
    """How the knowledge base was searched, and under which grants."""

    mode: str
    embedder: str
    similarity_mapping: str
    access: AccessRecord | None = None
    hits: list[HitRecord]


class AppliedMap(_Part):
    """A calibration map applied to one score: which map, its parameters, both scores."""

    id: int
    target: str
    model_key: str
    version: int
    method: str
    params: JsonObject
    raw: Number
    value: Number


class EvidenceMap(_Part):
    """The evidence map applied beside each item: which map, and each item's value."""

    id: int
    target: str
    model_key: str
    version: int
    method: str
    values: dict[str, Number]


class CalibrationApplied(_Part):
    """The stored maps a question's scores went through (none: raw scores)."""

    set: AppliedMap | None = None
    evidence: EvidenceMap | None = None


class SignalsRecord(_Part):
    """The set-level signals and their composite (R1-R5)."""

    top: Number
    gap: Number
    concentration: Number
    coherence: Number
    coverage: Number
    composite: Number
    coherence_by_source: dict[str, Number]
    covered_terms: list[str]
    missing_terms: list[str]
    judgment: Number | None


class RouteRecord(_Part):
    """The router's decision, its reasons and the bands it used (R7)."""

    decision: str
    reasons: list[str]
    bands: dict[str, Number]
    category: str | None


class AssessmentRecord(_Open):
    """The J1 assessment (validated in full by its own schema where it is made)."""

    confidence_score: Number
    recommended_action: str


class CorrectnessRecord(_Part):
    """P(the answer is right) from its features (:mod:`assay.answer.correctness`)."""

    model: str
    features: dict[str, Number]
    probability: Number
    support: Number
    score: Number


class JudgmentRecord(_Part):
    """How the judge reached its assessment."""

    judge: str
    prompt_version: str | None
    attempts: int
    fallback_reason: str | None
    notes: list[str]
    calibration: AppliedMap | None = None
    correctness: CorrectnessRecord | None = None
    verdict: str | None
    claims: list[JsonObject]
    assessment: AssessmentRecord


class AnswerPart(_Part):
    """What an answered question adds to its row: the answer, its checks and verdict."""

    answer: str | None
    status: str
    fallbacks: list[str]
    draft: JsonObject | None
    citations: JsonObject | None
    judgment: JudgmentRecord | None
    assessment: AssessmentRecord
    broadening: JsonObject | None
    notes: list[str]
    problems: list[str]
    review: str | None


class AskRecord(ScoreRecord):
    """A question: the scoring record, retrieval, signals and route; with the answer
    fields when it was answered (``Assay.ask``), without them when only assessed."""

    kind: ClassVar[str] = "ask"

    retrieval: RetrievalRecord
    category: str | None = None
    calibration: CalibrationApplied = CalibrationApplied()
    conflicts: list[JsonObject] | None = None
    signals: SignalsRecord
    route: RouteRecord
    answer: str | None = None
    status: str | None = None
    fallbacks: list[str] | None = None
    draft: JsonObject | None = None
    citations: JsonObject | None = None
    judgment: JudgmentRecord | None = None
    assessment: AssessmentRecord | None = None
    broadening: JsonObject | None = None
    notes: list[str] | None = None
    problems: list[str] | None = None
    review: str | None = None

    @property
    def set_confidence(self) -> Number:
        """The set confidence the router decided on: calibrated when a set map applied."""
        calibrated = self.calibration.set
        return calibrated.value if calibrated is not None else self.signals.composite

    def answered(self, part: AnswerPart) -> AskRecord:
        """This record with the answer's fields."""
        values = self.model_dump(exclude_unset=True) | part.model_dump(exclude_unset=True)
        return AskRecord.model_validate(values)


# -- the other kinds ------------------------------------------------------------------------
class ReviewRecord(AuditRecord):
    """A reviewer's verdict on a queued answer (J6)."""

    kind: ClassVar[str] = "review"

    review_item: int
    event_id: str
    verdict: str
    note: str | None
    confidence_score: Number
    correction: str | None = None  #: the right answer, when the reviewer gave one


class KeyView(_Part):
    """An API key as recorded (never its secret)."""

    id: str
    name: str
    roles: list[str]
    created_at: str
    revoked_at: str | None
    active: bool
    min_severity: str | None = None
    grants: list[str] | None = None


class KeyRecord(AuditRecord):
    """An API key created or revoked (B4)."""

    kind: ClassVar[str] = "key"

    action: str
    key: KeyView


class DocumentAccessRecord(AuditRecord):
    """A document's access labels changed (``assay documents relabel``)."""

    kind: ClassVar[str] = "access"

    document: JsonObject
    before: list[str]
    after: list[str]
    note: str | None = None


class ReadRecord(AuditRecord):
    """A key read the audit log or the review queue through the service: what, with
    which filters, and how many rows it got (reads of what every key may not see are
    themselves audited)."""

    kind: ClassVar[str] = "read"

    what: str
    filters: JsonObject
    returned: int


class AlertRecord(AuditRecord):
    """A drift alert opened or closed (J9)."""

    kind: ClassVar[str] = "alert"

    action: str
    alert: JsonObject
    reason: str


class PolicyChangeRecord(AuditRecord):
    """A policy tightened while an alert is open, or relaxed when it closes (E12)."""

    kind: ClassVar[str] = "policy"

    action: str
    alert_id: int
    metric: str
    delta: Number | None
    tightened_by_before: Number
    tightened_by_after: Number
    before: JsonObject | None
    after: JsonObject | None


class MapRecord(_Part):
    """A stored calibration map in full, as its fitting recorded it."""

    id: int
    target: str
    model_key: str
    version: int
    method: str
    params: JsonObject
    n_labels: int
    metrics: JsonObject
    labels_sha256: str
    created_at: str


class CalibrationRecord(AuditRecord):
    """A calibration map fitted and stored (E11, R6, J7)."""

    kind: ClassVar[str] = "calibration"

    map: MapRecord
    labels: str


RECORDS: dict[str, type[AuditRecord]] = {
    cls.kind: cls
    for cls in (
        ScoreRecord,
        AskRecord,
        ReviewRecord,
        KeyRecord,
        DocumentAccessRecord,
        ReadRecord,
        AlertRecord,
        PolicyChangeRecord,
        CalibrationRecord,
    )
}


R = TypeVar("R", bound=BaseModel)


def build(model: type[R], fields: Mapping[str, Any]) -> R:
    """``model`` from ``fields`` where an event happens; a value that does not fit the
    record is an :class:`~assay.errors.InvalidInputError` naming its field."""
    try:
        return model.model_validate(dict(fields))
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "record"
        raise InvalidInputError(
            where,
            error.get("input"),
            f"give {error['msg'].lower()}",
            problem="does not fit the audit record",
        ) from None


def parse_record(kind: str, payload: Any, *, legacy: bool = False) -> AuditRecord:
    """The stored ``payload`` of an event of ``kind`` as its record.

    ``legacy`` (a row without a schema version) first sets aside the keys this version's
    records do not have. A payload that does not match is an
    :class:`~assay.errors.InvalidInputError` (a :class:`ValueError`) naming its first
    mismatching field: a row written by hand, damaged, or of a kind this version does
    not know.
    """
    model = RECORDS.get(kind)
    if model is None:
        raise InvalidInputError(
            "event kind", kind, f"use one of {', '.join(RECORDS)}", problem="is unknown"
        )
    try:
        return model.model_validate(_known(model, payload) if legacy else payload)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "payload"
        raise InvalidInputError(
            f"{kind} payload: {where}",
            error.get("input"),
            "the row was not written by this version of assay: `assay audit verify` names it",
            problem=error["msg"].lower(),
        ) from None


def _first_error(exc: ValidationError) -> tuple[str, Any, str]:
    """Where the first mismatch is (a dotted path), the value found there, and why."""
    error = exc.errors()[0]
    return ".".join(str(p) for p in error["loc"]), error.get("input"), error["msg"].lower()


def _known(model: type[BaseModel], value: Any) -> Any:
    """``value`` without the keys ``model`` (and the records nested in it) do not have."""
    if not isinstance(value, dict) or model.model_config.get("extra") == "allow":
        return value
    out = {}
    for name, item in value.items():
        field = model.model_fields.get(name)
        if field is None:
            continue
        inner = record_type(field.annotation)
        if inner is None:
            out[name] = item
        elif isinstance(item, list):
            out[name] = [_known(inner, x) for x in item]
        else:
            out[name] = _known(inner, item)
    return out


def record_type(annotation: Any) -> type[BaseModel] | None:
    """The record a field's annotation holds (through lists and optionals), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = record_type(arg)
        if found is not None:
            return found
    return None
