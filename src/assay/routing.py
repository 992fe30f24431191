"""The router (R7): from set-level confidence to what the system should do next.

Bands come from the policy: a preset (``default`` 0.80/0.65/0.45, ``high_stakes``
0.88/0.75/0.55, ``exploratory`` 0.70/0.50/0.30) or explicit numbers, and optionally
other bands per question category. With ``C`` the set composite:

============================  ============================================
condition                     decision
============================  ============================================
no evidence admitted          ``llm_only`` if the policy allows it, else ``refuse``
C >= broaden, coverage low    ``clarify``: ask what the question means
C >= broaden, a name unmet    ``clarify`` too, where the policy asks for it
C >= proceed                  ``proceed``: answer from the evidence
C >= hedge                    ``hedge``: answer, stating the uncertainty
C >= broaden                  ``broaden``: expand the query and retrieve again
below                         ``llm_only`` if allowed, else ``refuse``
============================  ============================================

"Coverage low" means fewer than ``clarify_below_coverage`` of the query's meaningful
terms appear in the admitted evidence: however strong the passages, they are about
something the question did not clearly ask, so no band answers it directly. Words are
not meaning, though: where the set's judgment is a chat model's reading of the passages
(``read``; :func:`assay.flow.assess.llm_readings`) and it reaches the hedge band, the
passages answer in other words than the question's ("current" for "amperes"), and low
coverage does not ask back; nor where the relevance model rates an admitted passage at
least the policy's ``clarify_unless_relevance`` ("How heavy is it?" of a data sheet's
"Weight: 4.6 kg", rated 0.73). "A name unmet" (``clarify_missing_names``) means the
question names something, a capitalised word inside it ("the Kestrel Dart Plus", "the
Professional plan"; days and months aside), that no admitted passage or its title
mentions: the evidence is about a sibling (the Dart, the Business plan), and an answer
from it would state the sibling's figures as the named thing's. Every decision carries its reasons.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from assay.errors import InvalidInputError
from assay.scoring.signals import SetSignals
from assay.text import given_names
from assay.types import check_unit_interval


class Decision(StrEnum):
    """What to do with a request, best evidence first (R7)."""

    PROCEED = "proceed"
    HEDGE = "hedge"
    CLARIFY = "clarify"
    BROADEN = "broaden"
    LLM_ONLY = "llm_only"
    REFUSE = "refuse"


@dataclass(frozen=True, slots=True)
class Bands:
    """Lower bounds of the proceed, hedge and broaden bands, strictly descending."""

    proceed: float
    hedge: float
    broaden: float

    def __post_init__(self) -> None:
        for name in ("proceed", "hedge", "broaden"):
            check_unit_interval(f"routing.{name}", getattr(self, name))
        if not self.proceed > self.hedge > self.broaden:
            raise InvalidInputError(
                "routing bands",
                self.as_dict(),
                "keep proceed > hedge > broaden",
                problem="are not descending",
            )

    def as_dict(self) -> dict[str, float]:
        """The bands keyed by decision."""
        return {"proceed": self.proceed, "hedge": self.hedge, "broaden": self.broaden}


PRESETS: dict[str, Bands] = {
    "default": Bands(0.80, 0.65, 0.45),
    "high_stakes": Bands(0.88, 0.75, 0.55),
    "exploratory": Bands(0.70, 0.50, 0.30),
}


@dataclass(frozen=True, slots=True)
class RoutingRules:
    """A policy's routing: its bands, per-category bands and fallbacks."""

    preset: str = "default"
    bands: Bands = field(default_factory=lambda: PRESETS["default"])
    allow_llm_only: bool = False
    clarify_below_coverage: float = 0.34
    #: ask back when the evidence never mentions a name the question gives (off for the
    #: policies stored before it, so that their audit rows replay as decided)
    clarify_missing_names: bool = False
    #: the relevance at or above which the passage the relevance model rates best answers
    #: in other words than the question's, so that low coverage does not ask back (None:
    #: words decide, as for the policies stored before it)
    clarify_unless_relevance: float | None = None
    categories: Mapping[str, Bands] = field(default_factory=dict)

    def bands_for(self, category: str | None) -> Bands:
        """The bands for a question category (the policy's own when it has none)."""
        if category is None:
            return self.bands
        if category not in self.categories:
            known = ", ".join(sorted(self.categories)) or "none defined"
            raise InvalidInputError(
                "category",
                category,
                f"use a category of this policy ({known}) or omit it",
                problem="has no routing bands",
            )
        return self.categories[category]

    def as_dict(self) -> dict[str, Any]:
        """The rules in their TOML shape."""
        return {
            "preset": self.preset,
            **self.bands.as_dict(),
            "allow_llm_only": self.allow_llm_only,
            "clarify_below_coverage": self.clarify_below_coverage,
            "clarify_missing_names": self.clarify_missing_names,
            **(
                {}
                if self.clarify_unless_relevance is None
                else {"clarify_unless_relevance": self.clarify_unless_relevance}
            ),
            "categories": {k: v.as_dict() for k, v in sorted(self.categories.items())},
        }


@dataclass(frozen=True, slots=True)
class Route:
    """The router's decision with the reasons and the bands it used."""

    decision: Decision
    reasons: tuple[str, ...]
    bands: Bands
    category: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "decision": self.decision.value,
            "reasons": list(self.reasons),
            "bands": self.bands.as_dict(),
            "category": self.category,
        }


def route(
    signals: SetSignals,
    admitted: int,
    rules: RoutingRules,
    category: str | None = None,
    *,
    names: Collection[str] = (),
    read: bool = False,
) -> Route:
    """Decide what to do with a request from its set signals (see module docstring);
    ``names`` are the names the question gives (:func:`assay.text.given_names`); ``read``
    says that the set's judgment is a chat model's reading of the passages."""
    bands = rules.bands_for(category)
    decision, reasons = _decide(signals, admitted, rules, bands, names, read)
    return Route(decision, reasons, bands, category)


def route_question(
    question: str,
    signals: SetSignals,
    admitted: int,
    rules: RoutingRules,
    category: str | None = None,
    *,
    read: bool = False,
) -> Route:
    """:func:`route` with the names ``question`` gives: asking, re-routing on a calibrated
    set confidence and audit replay all route a question, and must apply the same rules
    (the calibrated re-route once left the names out)."""
    return route(signals, admitted, rules, category, names=given_names(question), read=read)


def _decide(
    signals: SetSignals,
    admitted: int,
    rules: RoutingRules,
    bands: Bands,
    names: Collection[str],
    read: bool,
) -> tuple[Decision, tuple[str, ...]]:
    fallback = Decision.LLM_ONLY if rules.allow_llm_only else Decision.REFUSE
    why_fallback = (
        "the policy allows an answer marked as not from the knowledge base"
        if rules.allow_llm_only
        else "the policy does not allow answers without evidence"
    )
    if admitted == 0:
        return fallback, ("no retrieved evidence cleared the gate", why_fallback)
    c = f"set confidence {signals.composite:.3f}"
    if signals.composite < bands.broaden:
        return fallback, (f"{c} < broaden {bands.broaden:.2f}", why_fallback)
    answers = signals.judgment is not None and (
        signals.judgment >= bands.hedge
        if read
        else rules.clarify_unless_relevance is not None
        and signals.judgment >= rules.clarify_unless_relevance
    )
    if signals.coverage < rules.clarify_below_coverage and not answers:
        missing = ", ".join(signals.missing_terms) or "its meaningful terms"
        low = f"query coverage {signals.coverage:.2f} < {rules.clarify_below_coverage:.2f}"
        return Decision.CLARIFY, (
            f"{c} >= broaden {bands.broaden:.2f}",
            f"{low}: the evidence does not mention {missing}",
        )
    unmet = [t for t in signals.missing_terms if t in names]
    if rules.clarify_missing_names and unmet:
        return Decision.CLARIFY, (
            f"{c} >= broaden {bands.broaden:.2f}",
            f"the question names {', '.join(unmet)}, which the evidence does not mention",
        )
    if signals.composite >= bands.proceed:
        return Decision.PROCEED, (f"{c} >= proceed {bands.proceed:.2f}",)
    if signals.composite >= bands.hedge:
        return Decision.HEDGE, (f"{c} in the hedge band [{bands.hedge:.2f}, {bands.proceed:.2f})",)
    band = f"{c} in the broaden band [{bands.broaden:.2f}, {bands.hedge:.2f})"
    return Decision.BROADEN, (band,)
