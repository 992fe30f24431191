"""The router (R7): bands, presets, per-category overrides, clarify and fallbacks."""

from __future__ import annotations

import pytest

from assay import InvalidInputError, PolicyBook, PolicyError
from assay.policy import builtin_policies, policy_from_mapping
from assay.routing import PRESETS, Bands, Decision, RoutingRules, route
from assay.scoring.signals import SetSignals


def signals(composite: float, coverage: float = 1.0) -> SetSignals:
    return SetSignals(
        top=composite,
        gap=0.1,
        concentration=1.0,
        coherence=0.5,
        coverage=coverage,
        composite=composite,
        missing_terms=("warranty",),
    )


@pytest.mark.parametrize(
    ("composite", "coverage", "expected"),
    [
        (0.85, 1.0, Decision.PROCEED),
        (0.70, 1.0, Decision.HEDGE),
        (0.50, 1.0, Decision.BROADEN),
        (0.50, 0.2, Decision.CLARIFY),
        (0.30, 1.0, Decision.REFUSE),
    ],
)
def test_r7_default_bands(composite: float, coverage: float, expected: Decision) -> None:
    result = route(signals(composite, coverage), admitted=2, rules=RoutingRules())
    assert result.decision is expected
    assert result.reasons


def test_r7_clarify_names_what_the_evidence_does_not_mention() -> None:
    result = route(signals(0.5, 0.2), admitted=1, rules=RoutingRules())
    assert "warranty" in result.reasons[-1]


def test_r7_low_coverage_asks_back_whatever_the_band() -> None:
    """Strong passages about something the question did not ask are not an answer."""
    assert route(signals(0.95, 0.2), 3, RoutingRules()).decision is Decision.CLARIFY
    assert route(signals(0.30, 0.2), 3, RoutingRules()).decision is Decision.REFUSE


def test_r7_a_name_the_evidence_never_mentions_asks_back_where_the_policy_says() -> None:
    """ "The range of the Kestrel Dart Plus" from passages about the Dart alone would give
    the Dart's range as the Dart Plus's: the shipped policies ask back instead, naming
    it; a policy stored before the rule (off by default) decides as it did."""
    on = RoutingRules(clarify_missing_names=True)
    strong = SetSignals(
        top=0.9, gap=0.5, concentration=1.0, coherence=0.8, coverage=0.75, composite=0.85,
        missing_terms=("plus",),
    )  # fmt: skip
    named = {"kestrel", "dart", "plus"}
    result = route(strong, 3, on, names=named)
    assert result.decision is Decision.CLARIFY
    assert "plus" in result.reasons[-1]
    assert route(strong, 3, RoutingRules(), names=named).decision is Decision.PROCEED
    assert route(strong, 3, on, names={"kestrel", "dart"}).decision is Decision.PROCEED
    assert route(signals(0.2), 3, on, names={"warranty"}).decision is Decision.REFUSE
    for name in ("informational", "financial", "legal", "safety_critical"):
        assert PolicyBook.load().get(name).routing.clarify_missing_names


def test_given_names_are_capitalised_inside_the_question_days_and_months_aside() -> None:
    from assay.text import given_names

    assert given_names("What is the range of the Kestrel Dart Plus?") == {"kestrel", "dart", "plus"}
    assert given_names("Under the Professional plan, is it open on a Sunday in May?") == {
        "professional"
    }


@pytest.mark.parametrize(
    ("composite", "expected"),
    [
        (0.80, Decision.PROCEED),
        (0.65, Decision.HEDGE),
        (0.45, Decision.BROADEN),
        (0.4499, Decision.REFUSE),
    ],
)
def test_r7_band_edges_belong_to_the_higher_band(composite: float, expected: Decision) -> None:
    assert route(signals(composite), 1, RoutingRules()).decision is expected


def test_r7_nothing_admitted_refuses_or_goes_llm_only_when_allowed() -> None:
    assert route(signals(0.95), admitted=0, rules=RoutingRules()).decision is Decision.REFUSE
    allowed = RoutingRules(allow_llm_only=True)
    assert route(signals(0.95), admitted=0, rules=allowed).decision is Decision.LLM_ONLY
    assert route(signals(0.2), admitted=3, rules=allowed).decision is Decision.LLM_ONLY


def test_r7_presets_and_policy_defaults() -> None:
    assert PRESETS["high_stakes"].as_dict() == {"proceed": 0.88, "hedge": 0.75, "broaden": 0.55}
    assert PRESETS["exploratory"].as_dict() == {"proceed": 0.70, "hedge": 0.50, "broaden": 0.30}
    book = PolicyBook.load()
    assert book.get("safety_critical").routing.preset == "high_stakes"
    assert book.get("informational").routing.preset == "exploratory"
    # the same set confidence proceeds for exploration but only hedges for safety
    exploratory, high = book.get("informational").routing, book.get("safety_critical").routing
    assert route(signals(0.80), 2, exploratory).decision is Decision.PROCEED
    assert route(signals(0.80), 2, high).decision is Decision.HEDGE


def test_r7_per_category_bands_override_the_policy() -> None:
    data = builtin_policies()["financial"].as_dict()
    data["routing"]["categories"] = {"tax": {"proceed": 0.95, "hedge": 0.9}}
    rules = policy_from_mapping(data).routing
    assert rules.bands_for("tax") == Bands(0.95, 0.9, 0.45)  # unspecified: the policy's own
    assert route(signals(0.9), 2, rules, category="tax").decision is Decision.HEDGE
    assert route(signals(0.9), 2, rules).decision is Decision.PROCEED
    with pytest.raises(InvalidInputError, match="'vat' has no routing bands"):
        rules.bands_for("vat")


def test_r7_bands_must_descend() -> None:
    with pytest.raises(InvalidInputError, match="not descending"):
        Bands(0.5, 0.6, 0.3)
    data = builtin_policies()["financial"].as_dict()
    data["routing"]["hedge"] = 0.9
    with pytest.raises(PolicyError, match="keep proceed > hedge > broaden"):
        policy_from_mapping(data)
    data = builtin_policies()["financial"].as_dict()
    data["routing"]["preset"] = "reckless"
    with pytest.raises(PolicyError, match=r"routing\.preset='reckless'"):
        policy_from_mapping(data)


@pytest.mark.parametrize(
    ("judgment", "read", "expected"),
    [
        (0.90, False, Decision.CLARIFY),  # the relevance model's judgment: words decide
        (0.90, True, Decision.HEDGE),  # a chat model read the passages as answering
        (0.60, True, Decision.CLARIFY),  # its reading is below the hedge band (0.65)
        (None, True, Decision.CLARIFY),  # no judgment at all
    ],
)
def test_r7_a_reading_judgment_lets_a_paraphrase_through_low_coverage(
    judgment: float | None, read: bool, expected: Decision
) -> None:
    """ "How much current does it draw?" of "draws 4.2 amperes" covers few of the
    question's words; a chat model reading the passage as answering outweighs that."""
    low = SetSignals(
        top=0.8, gap=0.1, concentration=1.0, coherence=0.5, coverage=0.2, composite=0.7,
        missing_terms=("current",), judgment=judgment,
    )  # fmt: skip
    result = route(low, admitted=2, rules=RoutingRules(), read=read)
    assert result.decision is expected


@pytest.mark.parametrize(
    ("judgment", "expected"),
    [
        (0.78, Decision.HEDGE),  # the relevance model rates a passage as answering
        (0.60, Decision.HEDGE),  # at the policy's bar: its words are other words
        (0.45, Decision.CLARIFY),  # below it: the words decide
        (None, Decision.CLARIFY),  # no relevance model ran
    ],
)
def test_r7_a_passage_rated_as_answering_lets_a_paraphrase_through_low_coverage(
    judgment: float | None, expected: Decision
) -> None:
    """ "How heavy is it?" of a data sheet's "Weight: 4.6 kg" covers none of the question's
    words, yet the relevance model rates the row 0.73: with ``clarify_unless_relevance``
    the policy answers (the correctness model then decides what publishes) instead of
    asking what "heavy" means; a policy without it asks back as before."""
    low = SetSignals(
        top=0.8, gap=0.1, concentration=1.0, coherence=0.5, coverage=0.0, composite=0.7,
        missing_terms=("heavy",), judgment=judgment,
    )  # fmt: skip
    rules = RoutingRules(clarify_unless_relevance=0.60)
    assert route(low, admitted=2, rules=rules).decision is expected
    assert route(low, admitted=2, rules=RoutingRules()).decision is Decision.CLARIFY
    # a chat model's reading keeps its own bar, the hedge band
    assert route(low, 2, rules, read=True).decision is (
        Decision.HEDGE if judgment is not None and judgment >= 0.65 else Decision.CLARIFY
    )


def test_r7_clarify_unless_relevance_reads_from_the_policy_and_round_trips() -> None:
    """The key is optional (absent: None, as the policies stored before it) and must be a
    number in [0, 1]; the shipped informational and financial policies set it."""
    shipped = builtin_policies()["informational"].as_dict()

    def with_routing(**changes: object) -> dict[str, object]:
        routing = {k: v for k, v in shipped["routing"].items() if k != "clarify_unless_relevance"}
        return {**shipped, "routing": {**routing, **changes}}

    assert policy_from_mapping(with_routing()).routing.clarify_unless_relevance is None
    rules = policy_from_mapping(with_routing(clarify_unless_relevance=0.6)).routing
    assert rules.clarify_unless_relevance == 0.6
    assert rules.as_dict()["clarify_unless_relevance"] == 0.6
    assert "clarify_unless_relevance" not in RoutingRules().as_dict()
    with pytest.raises(PolicyError, match="clarify_unless_relevance"):
        policy_from_mapping(with_routing(clarify_unless_relevance=1.5))
    for name in ("informational", "financial"):
        assert PolicyBook.load().get(name).routing.clarify_unless_relevance is not None
