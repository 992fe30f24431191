"""Confidence policies: named, versioned profiles loaded from TOML (E2, E4, E6, E7, E9, E13).

A policy holds everything that turns sub-scores into a gate decision: the factor
weights, the minimum composite (threshold), the similarity floor, the label bands,
freshness decay rates, per-kind source adjustments and corroboration settings.
Built-in profiles ship in ``assay/policies/*.toml``; users add their own files in
the same format (see ``docs/policies.md``). A request picks a policy by name or by
the severity of the decision it informs.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

from assay.actions import ActionThresholds
from assay.errors import ForbiddenError, InvalidInputError, PolicyError, UnknownPolicyError
from assay.hashing import canonical_json, sha256_hex
from assay.policy_reader import TableReader
from assay.routing import PRESETS, Bands, RoutingRules
from assay.scoring.signals import SIGNAL_NAMES, SignalSettings, SignalWeights
from assay.types import Label, Weights


class Severity(StrEnum):
    """Consequence severity of the decision the evidence informs (E6), mildest first."""

    INFORMATIONAL = "informational"
    FINANCIAL = "financial"
    LEGAL = "legal"
    SAFETY_CRITICAL = "safety_critical"


#: severities by name, mildest first
SEVERITIES = [s.value for s in Severity]


def check_floor(policy: Policy, floor: str | None, key_id: str | None) -> Policy:
    """``policy``, if it is at least as strict as an API key's severity ``floor``
    (:mod:`assay.keys`); else :class:`~assay.errors.ForbiddenError` (403)."""
    if floor is None or SEVERITIES.index(policy.severity.value) >= SEVERITIES.index(floor):
        return policy
    raise ForbiddenError(
        f"key {key_id} may ask only under severity {floor} or stricter, not under policy "
        f"{policy.name!r} ({policy.severity.value}); name a policy or severity from {floor} "
        "on, or leave both out to ask under the key's floor"
    )


@dataclass(frozen=True, slots=True)
class LabelBands:
    """Composite at or above ``high`` is high confidence, at or above ``medium`` medium."""

    high: float
    medium: float

    def label(self, confidence: float) -> Label:
        """The human-readable label of a composite score (E7)."""
        if confidence >= self.high:
            return Label.HIGH
        if confidence >= self.medium:
            return Label.MEDIUM
        return Label.LOW


@dataclass(frozen=True, slots=True)
class Corroboration:
    """How findings are grouped and aggregated (E10); see ``scoring/corroboration.py``."""

    same_finding_similarity: float = 0.5
    min_independent_sources: int = 2
    min_label: Label = Label.MEDIUM
    dependence: float = 0.5


@dataclass(frozen=True, slots=True)
class ModelRules:
    """Which models a request under the policy asks for, where they are available."""

    #: with an LLM endpoint configured (``ASSAY_LLM_URL``), rerank the best retrieved
    #: chunks with the LLM as well (the ``cascade`` relevance model); without one,
    #: the shipped model decides alone. The audit row names the model that decided.
    llm_cascade: bool = False
    #: with an LLM endpoint configured, the set's model judgment (R4), which caps the set
    #: confidence, is the LLM's belief that one of the best admitted passages states the
    #: answer (:func:`assay.flow.assess.llm_readings`), not the relevance model's score;
    #: without one, the relevance model's. The audit row names the model that judged.
    llm_judgment: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The rules in their TOML shape; ``llm_judgment`` only where set, so that the
        policies without it keep the digests their audit rows hold."""
        out: dict[str, Any] = {"llm_cascade": self.llm_cascade}
        return out | ({"llm_judgment": True} if self.llm_judgment else {})


#: what P(the answer is right) does to an answer, where no policy says (informational's)
DEFAULT_CORRECTNESS_THRESHOLDS = ActionThresholds(publish=0.6, caveat=0.25, human_review=0.15)


@dataclass(frozen=True, slots=True)
class JudgeRules:
    """What the judge's score does to an answer (J6, G3).

    ``thresholds`` apply to the judge's support score, ``correctness`` to the answer-
    correctness model's P(right) (:mod:`assay.answer.correctness`); where both rate an
    answer, the stricter action stands.
    """

    thresholds: ActionThresholds = field(default_factory=ActionThresholds)
    #: also queue suppressed answers for human review, not only ``human_review`` ones:
    #: in high-stakes domains nothing is dropped silently
    queue_suppressed: bool = False
    correctness: ActionThresholds = DEFAULT_CORRECTNESS_THRESHOLDS

    def as_dict(self) -> dict[str, Any]:
        """The rules in their TOML shape."""
        return self.thresholds.as_dict() | {
            "queue_suppressed": self.queue_suppressed,
            "correctness": self.correctness.as_dict(),
        }


@dataclass(frozen=True, slots=True)
class Policy:
    """One versioned confidence profile. Build it with :func:`policy_from_mapping`."""

    name: str
    version: str
    severity: Severity
    weights: Weights
    threshold: float
    similarity_floor: float
    labels: LabelBands
    decay_rate: float = 0.005
    decay_rate_by_kind: Mapping[str, float] = field(default_factory=dict)
    undated_freshness: float = 0.0
    adjustment_by_kind: Mapping[str, float] = field(default_factory=dict)
    exclude_overruled: bool = True
    jurisdiction_penalty: float = 0.0
    corroboration: Corroboration = field(default_factory=Corroboration)
    signals: SignalSettings = field(default_factory=SignalSettings)
    routing: RoutingRules = field(default_factory=RoutingRules)
    judge: JudgeRules = field(default_factory=JudgeRules)
    models: ModelRules = field(default_factory=ModelRules)
    description: str = ""
    #: the policy this one was tightened from while a drift alert is open (E12); not
    #: part of the definition (``as_dict``): calibration maps stay keyed on the original
    tightened_from: Policy | None = field(default=None, compare=False, repr=False)
    _digest: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # every scored request states the digest twice (response, audit row): hashing
        # the whole policy each time cost as much as scoring two candidates
        object.__setattr__(self, "_digest", sha256_hex(canonical_json(self.as_dict())))

    def decay_rate_for(self, kind: str) -> float:
        """Freshness decay rate per day for items of this source kind (E4)."""
        return self.decay_rate_by_kind.get(kind, self.decay_rate)

    def adjustment_for(self, kind: str) -> float:
        """Boost (positive) or penalty (negative) added to a kind's reliability (E9)."""
        return self.adjustment_by_kind.get(kind, 0.0)

    def as_dict(self) -> dict[str, Any]:
        """The policy in the same shape as its TOML file."""
        return {
            "name": self.name,
            "version": self.version,
            "severity": self.severity.value,
            "description": self.description,
            "threshold": self.threshold,
            "similarity_floor": self.similarity_floor,
            "weights": self.weights.as_dict(),
            "labels": {"high": self.labels.high, "medium": self.labels.medium},
            "freshness": {
                "decay_rate": self.decay_rate,
                "undated": self.undated_freshness,
                "decay_rate_by_kind": dict(sorted(self.decay_rate_by_kind.items())),
            },
            "sources": {
                "exclude_overruled": self.exclude_overruled,
                "jurisdiction_penalty": self.jurisdiction_penalty,
                "adjustment_by_kind": dict(sorted(self.adjustment_by_kind.items())),
            },
            "corroboration": {
                "same_finding_similarity": self.corroboration.same_finding_similarity,
                "min_independent_sources": self.corroboration.min_independent_sources,
                "min_label": self.corroboration.min_label.value,
                "dependence": self.corroboration.dependence,
            },
            "signals": self.signals.as_dict(),
            "routing": self.routing.as_dict(),
            "judge": self.judge.as_dict(),
        } | (
            # only when set, so that the digests of policies written before it stay put
            {"models": self.models.as_dict()} if self.models != ModelRules() else {}
        )

    @property
    def digest(self) -> str:
        """sha256 of the policy's canonical JSON: changes whenever any parameter does."""
        return self._digest


def policy_from_mapping(data: Mapping[str, Any], *, origin: str = "policy") -> Policy:
    """Validate a parsed policy (the TOML file's content) and build the :class:`Policy`.

    Every problem raises :class:`~assay.errors.PolicyError` naming the file, the
    key, the bad value and the fix.
    """
    top = TableReader(data, "", origin)
    w = top.section("weights")
    weights = w.build(
        "weights", lambda: Weights(w.unit("similarity"), w.unit("source"), w.unit("freshness"))
    )
    w.finish()

    lab = top.section("labels")
    labels = LabelBands(high=lab.unit("high"), medium=lab.unit("medium"))
    if labels.medium > labels.high:
        raise PolicyError(
            lab.field("medium"), labels.medium, f"keep it at or below labels.high ({labels.high})"
        )
    lab.finish()

    fresh = top.section("freshness")
    decay_rate = fresh.unit("decay_rate", 0.005)
    undated = fresh.unit("undated", 0.0)
    decay_by_kind = fresh.number_map("decay_rate_by_kind", 0.0, 1.0)
    fresh.finish()

    src = top.section("sources")
    exclude_overruled = src.boolean("exclude_overruled", True)
    jurisdiction_penalty = src.unit("jurisdiction_penalty", 0.0)
    adjustments = src.number_map("adjustment_by_kind", -1.0, 1.0)
    src.finish()

    cor = top.section("corroboration")
    corroboration = Corroboration(
        same_finding_similarity=cor.unit("same_finding_similarity", 0.5),
        min_independent_sources=cor.integer("min_independent_sources", 2, minimum=2),
        min_label=Label(cor.choice("min_label", "medium", (label.value for label in Label))),
        dependence=cor.unit("dependence", 0.5),
    )
    cor.finish()

    policy = Policy(
        name=top.string("name"),
        version=str(top.get("version")),
        severity=Severity(top.choice("severity", "", (s.value for s in Severity))),
        description=top.string("description", ""),
        weights=weights,
        threshold=top.unit("threshold"),
        similarity_floor=top.unit("similarity_floor", 0.0),
        labels=labels,
        decay_rate=decay_rate,
        decay_rate_by_kind=decay_by_kind,
        undated_freshness=undated,
        adjustment_by_kind=adjustments,
        exclude_overruled=exclude_overruled,
        jurisdiction_penalty=jurisdiction_penalty,
        corroboration=corroboration,
        signals=_signal_settings(top.section("signals")),
        routing=_routing_rules(top.section("routing")),
        judge=_judge_rules(top.section("judge")),
        models=_model_rules(top.section("models")),
    )
    top.finish()
    return policy


def _signal_settings(table: TableReader) -> SignalSettings:
    defaults = SignalWeights()
    weights = table.build(
        "signals",
        lambda: SignalWeights(
            **{name: table.unit(name, getattr(defaults, name)) for name in SIGNAL_NAMES}
        ),
    )
    settings = SignalSettings(
        weights=weights,
        top_n=table.integer("top_n", 3, minimum=1),
        gap_scale=_positive(table, "gap_scale", 5.0),
        judgment_mode="cap"
        if table.choice("judgment_mode", "cap", ("cap", "blend")) == "cap"
        else "blend",
        judgment_weight=table.unit("judgment_weight", 0.5),
    )
    table.finish()
    return settings


def _positive(table: TableReader, key: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 100:
        raise PolicyError(table.field(key), value, "give a number in (0, 100]")
    return float(value)


def _bands(table: TableReader, base: Bands) -> Bands:
    return table.build(
        "routing",
        lambda: Bands(
            proceed=table.unit("proceed", base.proceed),
            hedge=table.unit("hedge", base.hedge),
            broaden=table.unit("broaden", base.broaden),
        ),
    )


def _routing_rules(table: TableReader) -> RoutingRules:
    preset = table.choice("preset", "default", PRESETS)
    bands = _bands(table, PRESETS[preset])
    categories = {}
    for name, sub in table.sections("categories").items():
        categories[name] = _bands(sub, bands)
        sub.finish()
    rules = RoutingRules(
        preset=preset,
        bands=bands,
        allow_llm_only=table.boolean("allow_llm_only", False),
        clarify_below_coverage=table.unit("clarify_below_coverage", 0.34),
        clarify_missing_names=table.boolean("clarify_missing_names", False),
        clarify_unless_relevance=(
            None
            if table.get("clarify_unless_relevance", None) is None
            else table.unit("clarify_unless_relevance")
        ),
        categories=categories,
    )
    table.finish()
    return rules


def _action_thresholds(table: TableReader, defaults: ActionThresholds) -> ActionThresholds:
    """The publish / caveat / human_review thresholds of one table, checked together."""
    values = {k: table.unit(k, v) for k, v in defaults.as_dict().items()}
    try:
        return ActionThresholds(**values)
    except InvalidInputError as exc:
        where = f"{table.origin}: [{table.path}] thresholds"
        raise PolicyError(where, exc.value, exc.fix, problem=exc.problem) from None


def _judge_rules(table: TableReader) -> JudgeRules:
    thresholds = _action_thresholds(table, ActionThresholds())
    queue = table.boolean("queue_suppressed", False)
    inner = table.section("correctness")
    correctness = _action_thresholds(inner, DEFAULT_CORRECTNESS_THRESHOLDS)
    inner.finish()
    rules = JudgeRules(thresholds, queue, correctness)
    table.finish()
    return rules


def _model_rules(table: TableReader) -> ModelRules:
    rules = ModelRules(
        llm_cascade=table.boolean("llm_cascade", False),
        llm_judgment=table.boolean("llm_judgment", False),
    )
    table.finish()
    return rules


def load_policy_file(path: str | Path) -> Policy:
    """Read and validate one policy TOML file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(
            "policy file",
            str(path),
            "give a readable UTF-8 .toml file",
            problem=f"cannot be read ({exc})",
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(
            str(path), str(exc), "fix the TOML syntax", problem="does not parse"
        ) from None
    return policy_from_mapping(data, origin=str(path))


def builtin_policies() -> dict[str, Policy]:
    """The profiles shipped with assay: informational, financial, legal, safety_critical."""
    out: dict[str, Policy] = {}
    for entry in resources.files("assay.policies").iterdir():
        if entry.name.endswith(".toml"):
            policy = policy_from_mapping(tomllib.loads(entry.read_text("utf-8")), origin=entry.name)
            out[policy.name] = policy
    return out


class PolicyBook:
    """All policies a process knows: the built-ins, then user files that may replace them.

    ``severity_policies`` maps a severity to the policy a request of that severity
    gets; by default each severity maps to the policy of the same name. A policy's own
    ``severity`` must match the severity it is chosen for.
    """

    def __init__(
        self,
        policies: Iterable[Policy],
        *,
        severity_policies: Mapping[str, str] | None = None,
        origins: Mapping[str, str] | None = None,
    ) -> None:
        self._policies = {p.name: p for p in policies}
        self._origins = dict(origins or {})
        self._by_severity = {s.value: s.value for s in Severity} | dict(severity_policies or {})

    @classmethod
    def load(
        cls, policy_dirs: Iterable[Path] = (), *, severity_policies: Mapping[str, str] | None = None
    ) -> PolicyBook:
        """Built-ins plus every ``*.toml`` in ``policy_dirs`` (later files win on a name)."""
        policies = builtin_policies()
        origins = {name: "built-in" for name in policies}
        for directory in policy_dirs:
            if not directory.is_dir():
                raise InvalidInputError(
                    "policy directory", str(directory), "create it or fix ASSAY_POLICY_DIRS"
                )
            for path in sorted(directory.glob("*.toml")):
                policy = load_policy_file(path)
                policies[policy.name] = policy
                origins[policy.name] = str(path)
        return cls(policies.values(), severity_policies=severity_policies, origins=origins)

    def names(self) -> list[str]:
        """Policy names, sorted."""
        return sorted(self._policies)

    def origin(self, name: str) -> str:
        """Where a policy came from: ``built-in`` or its file path."""
        return self._origins.get(name, "code")

    def get(self, name: str) -> Policy:
        """The policy called ``name``; a path to a ``.toml`` file is loaded directly."""
        if name in self._policies:
            return self._policies[name]
        if name.endswith(".toml"):
            return load_policy_file(name)
        raise UnknownPolicyError("policy", name, self._policies)

    def for_severity(self, severity: str) -> Policy:
        """The policy configured for a decision of this severity (E6).

        The policy must declare that severity itself, so a mapping can never send a
        safety-critical request to a policy written for informational look-ups.
        """
        try:
            Severity(severity)
        except ValueError:
            raise UnknownPolicyError("severity", severity, (s.value for s in Severity)) from None
        policy = self.get(self._by_severity[severity])
        if policy.severity != severity:
            raise PolicyError(
                f"severity_policies.{severity}",
                policy.name,
                f"map {severity} to a policy whose severity is {severity}",
                problem=f"is written for {policy.severity.value} decisions",
            )
        return policy

    def resolve(self, *, name: str | None = None, severity: str | None = None) -> Policy:
        """Pick by name or by severity; exactly one of the two must be given."""
        if (name is None) == (severity is None):
            raise InvalidInputError(
                "policy", name, "give either a policy name or a severity, not both or neither"
            )
        return self.get(name) if name is not None else self.for_severity(severity or "")
