"""The values that flow through assay: candidates in, evidence and findings out.

Every type validates itself on construction, so a bad value fails where it enters
(with the field, the value and the fix) instead of deep inside the scoring.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any

from assay.errors import InvalidInputError

SCORE_DECIMALS = 6
"""Stored scores are rounded to this many decimals so an audit replay matches bit for bit."""


class Label(StrEnum):
    """Human-readable confidence label shown beside every numeric score (E7)."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class ExclusionReason(StrEnum):
    """Why the gate kept an item out of the context (E5, E13)."""

    SOURCE_OVERRULED = "source_overruled"
    SOURCE_RETIRED = "source_retired"
    DATED_AFTER_AS_OF = "dated_after_as_of"
    BELOW_SIMILARITY_FLOOR = "below_similarity_floor"
    BELOW_THRESHOLD = "below_threshold"
    SOURCE_SUPERSEDED = "source_superseded"


class FindingStatus(StrEnum):
    """Whether several independent sources agree on a finding (E10)."""

    CORROBORATED = "corroborated"
    ISOLATED = "isolated"


def round_score(value: float) -> float:
    """Round a score to :data:`SCORE_DECIMALS` decimals, the precision that is stored."""
    return round(value, SCORE_DECIMALS)


def check_unit_interval(field_name: str, value: Any) -> float:
    """Return ``value`` as a float if it is a finite number in [0, 1], else raise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(field_name, value, "give a number between 0 and 1")
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        number = math.inf
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise InvalidInputError(
            field_name, value, "give a number between 0 and 1", problem="is outside [0, 1]"
        )
    return number


def parse_date(field_name: str, value: Any) -> date | None:
    """Parse an ISO date or datetime (``2024-05-01``, ``2024-05-01T10:00:00Z``).

    Datetimes with a time zone are converted to their UTC calendar date; ages are
    counted in whole days, which keeps freshness reproducible from the audit row.
    ``None`` and the empty string mean "no date".
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return _utc_date(value)
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            if len(text) == 10:
                return date.fromisoformat(text)
            return _utc_date(datetime.fromisoformat(text.replace("Z", "+00:00")))
        except (ValueError, OverflowError):  # OverflowError: a zone shift past year 1 or 9999
            pass
    raise InvalidInputError(
        field_name, value, "use an ISO date such as 2024-05-01", problem="is not a date"
    )


def _utc_date(moment: datetime) -> date:
    return moment.astimezone(UTC).date() if moment.tzinfo else moment.date()


@dataclass(frozen=True, slots=True)
class Weights:
    """Weights of the three confidence factors (E2): non-negative, summing to 1."""

    similarity: float
    source: float
    freshness: float

    def __post_init__(self) -> None:
        for name in ("similarity", "source", "freshness"):
            check_unit_interval(f"weights.{name}", getattr(self, name))
        total = self.similarity + self.source + self.freshness
        if not math.isclose(total, 1.0, abs_tol=1e-9):
            raise InvalidInputError(
                "weights",
                self.as_dict(),
                "make similarity + source + freshness equal 1",
                problem=f"sum to {total:g}, not 1",
            )

    def as_dict(self) -> dict[str, float]:
        """The weights keyed by factor name, as stored in policies and audit rows."""
        return {"similarity": self.similarity, "source": self.source, "freshness": self.freshness}


_CANDIDATE_FIELDS = (
    "id",
    "text",
    "similarity",
    "source_id",
    "source_kind",
    "published",
    "verified",
    "title",
    "uri",
    "metadata",
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One retrieved item before assay has judged it.

    ``similarity`` is the retriever's relevance in [0, 1]. The source is named by a
    registered ``source_id`` or, for unregistered content, by a ``source_kind``.
    Freshness counts from the later of ``published`` and ``verified``.
    """

    id: str
    text: str
    similarity: float
    source_id: str | None = None
    source_kind: str | None = None
    published: date | None = None
    verified: date | None = None
    title: str | None = None
    uri: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise InvalidInputError("id", self.id, "give every candidate a non-empty string id")
        for name in ("id", "text", "title", "uri", "source_id", "source_kind"):
            check_encodable(name, getattr(self, name))
        where = f"candidate {self.id!r}: "
        if not isinstance(self.text, str) or not self.text.strip():
            raise InvalidInputError(where + "text", self.text, "give the passage text")
        object.__setattr__(
            self, "similarity", check_unit_interval(where + "similarity", self.similarity)
        )
        for name in ("source_id", "source_kind", "title", "uri"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InvalidInputError(where + name, value, "give a non-empty string or omit it")
        if self.source_id is None and self.source_kind is None:
            raise InvalidInputError(
                where + "source_id",
                None,
                "name a registered source_id or a source_kind",
                problem="is missing",
            )
        for name in ("published", "verified"):
            object.__setattr__(self, name, parse_date(where + name, getattr(self, name)))
        if not isinstance(self.metadata, Mapping):
            raise InvalidInputError(where + "metadata", self.metadata, "give a JSON object")
        try:
            if self.metadata:  # most candidates carry none: skip the encoder
                json.dumps(dict(self.metadata))
        except (TypeError, ValueError, RecursionError) as exc:
            raise InvalidInputError(
                where + "metadata",
                self.metadata,
                "use only JSON values (str, number, list, dict), nested at most a few hundred deep",
            ) from exc

    @property
    def effective_date(self) -> date | None:
        """The date freshness counts from: the later of published and verified."""
        dates = [d for d in (self.published, self.verified) if d is not None]
        return max(dates) if dates else None

    @classmethod
    def from_mapping(cls, record: Mapping[str, Any]) -> Candidate:
        """Build a candidate from a JSON object, refusing unknown keys by name."""
        if not isinstance(record, Mapping):
            raise InvalidInputError("candidate", record, "give a JSON object per candidate")
        unknown = sorted(set(record) - set(_CANDIDATE_FIELDS))
        if unknown:
            raise InvalidInputError(
                "candidate key",
                unknown[0],
                f"use only {', '.join(_CANDIDATE_FIELDS)} (put extras under metadata)",
                problem="is not a candidate field",
            )
        if "similarity" not in record:
            raise InvalidInputError(
                f"candidate {record.get('id')!r}: similarity",
                None,
                "give the retriever's relevance in [0, 1]",
                problem="is missing",
            )
        return cls(
            id=record.get("id"),  # type: ignore[arg-type]  # validated in __post_init__
            text=record.get("text"),  # type: ignore[arg-type]
            similarity=record["similarity"],
            source_id=record.get("source_id"),
            source_kind=record.get("source_kind"),
            published=record.get("published"),
            verified=record.get("verified"),
            title=record.get("title"),
            uri=record.get("uri"),
            metadata={} if record.get("metadata") is None else record["metadata"],
        )


def check_encodable(field_name: str, value: Any) -> None:
    """Refuse strings that cannot be stored as UTF-8 (lone surrogates from bad JSON
    escapes): ``value`` itself, or any key or value of a mapping or list in it, at any
    depth. Written to the database, one made every later read of its row fail."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidInputError(
                    field_name,
                    item.encode("utf-8", "backslashreplace").decode(),
                    "fix the text's escapes: it holds an unpaired surrogate (e.g. \\ud800)",
                    problem="is not valid Unicode",
                ) from None


def check_texts(**fields: Any) -> None:
    """Refuse optional text arguments (a jurisdiction, a category) that are not valid text."""
    for name, value in fields.items():
        if value is not None and not isinstance(value, str):
            raise InvalidInputError(name, value, "give text or leave it out")
        check_encodable(name, value)


def check_unique_ids(candidates: list[Candidate]) -> None:
    """Refuse a candidate list in which two items share an id."""
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.id in seen:
            raise InvalidInputError(
                "id", candidate.id, "give every candidate a unique id", problem="is duplicated"
            )
        seen.add(candidate.id)


@dataclass(frozen=True, slots=True)
class SubScores:
    """The three factor scores of one item, each in [0, 1] (E2)."""

    similarity: float
    source: float
    freshness: float

    def as_dict(self) -> dict[str, float]:
        """The sub-scores keyed by factor name."""
        return {"similarity": self.similarity, "source": self.source, "freshness": self.freshness}


@dataclass(frozen=True, slots=True)
class SourceBasis:
    """Where the source and freshness sub-scores came from, kept for audit replay.

    With the policy this is all that is needed to recompute an item's scores and
    the gate's verdict, which is what ``assay audit verify`` does for every row.
    ``review_overdue`` scores nothing: it tells the reader that the registry's review
    of the source was overdue when the item was used. ``superseded_by`` scores nothing
    either: the registered sources that supersede this one, directly or through others,
    nearest first (:func:`assay.sources.successors`). The gate excludes the item when one
    of them has an admitted item in the same request; when none has, the item stays and
    this field tells the reader that a newer source exists.

    ``source`` sub-score = clamp(reliability + kind_adjustment - jurisdiction_penalty);
    ``freshness`` sub-score = exp(-decay_rate * age_days), or ``undated_freshness``
    when the item carries no date (``age_days`` is then ``None``). A negative age means
    the item is dated after ``as_of``: it could not have informed a decision on that day.
    """

    source_id: str | None
    source_kind: str
    owner: str | None
    reliability: float
    kind_adjustment: float
    jurisdiction_penalty: float
    effective_date: date | None
    age_days: int | None
    decay_rate: float
    overruled: bool = False
    retired: bool = False
    review_overdue: bool = False
    superseded_by: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, dates as ISO strings."""
        return {
            "source_id": self.source_id,
            "source_kind": self.source_kind,
            "owner": self.owner,
            "reliability": self.reliability,
            "kind_adjustment": self.kind_adjustment,
            "jurisdiction_penalty": self.jurisdiction_penalty,
            "effective_date": self.effective_date.isoformat() if self.effective_date else None,
            "age_days": self.age_days,
            "decay_rate": self.decay_rate,
            "overruled": self.overruled,
            "retired": self.retired,
            "review_overdue": self.review_overdue,
            "superseded_by": list(self.superseded_by),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SourceBasis:
        """Rebuild a basis from :meth:`as_dict` output (an audit row; one written before
        supersession has no ``superseded_by``)."""
        effective = data["effective_date"]
        return cls(
            **(
                dict(data)
                | {
                    "effective_date": date.fromisoformat(effective) if effective else None,
                    "superseded_by": tuple(data.get("superseded_by") or ()),
                }
            )
        )


@dataclass(frozen=True, slots=True)
class Evidence:
    """A candidate with its confidence and the gate's verdict (E1, E5, E7).

    ``confidence`` is the composite ``C = w . scores`` rounded to 6 decimals,
    computed from the already rounded sub-scores so that the audit row alone
    reproduces it. ``reason`` is set exactly when ``admitted`` is false.
    """

    candidate: Candidate
    scores: SubScores
    weights: Weights
    confidence: float
    label: Label
    basis: SourceBasis
    policy_name: str
    policy_version: str
    admitted: bool = True
    reason: ExclusionReason | None = None
    detail: str | None = None

    @property
    def id(self) -> str:
        """The candidate's id."""
        return self.candidate.id

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form used by the CLI, the audit log and later the HTTP API."""
        c = self.candidate
        out: dict[str, Any] = {
            "id": c.id,
            "confidence": self.confidence,
            "label": self.label.value,
            "scores": self.scores.as_dict(),
            "weights": self.weights.as_dict(),
            "policy": {"name": self.policy_name, "version": self.policy_version},
            "admitted": self.admitted,
            "source_id": c.source_id,
            "source_kind": self.basis.source_kind,
            "title": c.title,
            "uri": c.uri,
            "text": c.text,
            "basis": self.basis.as_dict(),
        }
        if not self.admitted:
            out["reason"] = self.reason.value if self.reason else None
            out["detail"] = self.detail
        return out


@dataclass(frozen=True, slots=True)
class Finding:
    """A group of admitted items that state the same thing (E10).

    ``independent_sources`` counts distinct owners among the sources whose best
    item reaches the policy's corroboration label; ``confidence`` is the aggregate
    described in :mod:`assay.scoring.corroboration`.
    """

    id: str
    status: FindingStatus
    evidence_ids: tuple[str, ...]
    source_ids: tuple[str, ...]
    independent_sources: int
    confidence: float
    label: Label
    summary: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "id": self.id,
            "status": self.status.value,
            "evidence_ids": list(self.evidence_ids),
            "source_ids": list(self.source_ids),
            "independent_sources": self.independent_sources,
            "confidence": self.confidence,
            "label": self.label.value,
            "summary": self.summary,
        }
