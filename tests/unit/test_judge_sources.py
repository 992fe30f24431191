"""The judge knows who said what: contexts with a source (J1, J5) and the weighing of
contexts that disagree by their source's strength (J2, J3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

import pytest

from assay.actions import ActionThresholds
from assay.errors import InvalidInputError
from assay.judge.checks import beyond_bound
from assay.judge.evaluate import CONTEXT_KEYS, check_contexts, evaluate, evaluate_request
from assay.judge.model_judge import ModelJudge
from assay.judge.schema import Context
from assay.judge.strength import BUILTIN_KINDS, outweighs
from assay.models.support import SupportResult
from assay.sources import SourceRegistry
from assay.store.sqlite import SQLiteDatabase

QUERY = "How long do refunds take?"
CLAIM = "Refunds are paid within ten days of the request."
CHAT = "Refunds are paid within ten days of the request, everyone in the team chat says."
POLICY = "Refunds are never paid within ten days of the request."


class ScriptedSupport:
    """A support model that answers by the evidence alone: the chat backs every claim,
    the policy contradicts every claim, anything else is silent."""

    name = "scripted-support@1"
    threshold = 0.5

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        verdicts = {
            CHAT: SupportResult(0.95, "supported", 0.02),
            POLICY: SupportResult(0.03, "contradicted", 0.9),
        }
        return [
            verdicts.get(evidence, SupportResult(0.1, "unsupported", 0.1)) for _, evidence in pairs
        ]


def kinds_of(chat_kind: str | None, policy_kind: str | None, **dates: date) -> list[Context]:
    """The chat and the policy through the contract, with the kinds and dates given."""

    def item(cid: str, text: str, kind: str | None) -> dict[str, str]:
        day = dates.get(cid)
        return (
            {"id": cid, "text": text}
            | ({"source_kind": kind} if kind else {})
            | ({"published": day.isoformat()} if day else {})
        )

    return check_contexts([item("chat", CHAT, chat_kind), item("policy", POLICY, policy_kind)])


def judge_of(contexts: list[Context]) -> tuple[str, float, str, list[tuple[str, str]], str]:
    """(grade, score, action, conflicts as (source_a, source_b), rationale)."""
    judgment = ModelJudge(ScriptedSupport()).judge(QUERY, CLAIM, contexts, ActionThresholds())
    assessment = judgment.assessment
    return (
        judgment.claims[0].grade,
        assessment.confidence_score,
        assessment.recommended_action,
        [(c.source_a, c.source_b) for c in assessment.source_conflicts],
        assessment.score_rationale,
    )


# -- the contract: validation ------------------------------------------------------------


def test_j5_the_old_id_and_text_form_is_unchanged() -> None:
    contexts = check_contexts([{"id": "a", "text": "Charge at 0-45 °C."}])
    assert contexts == [Context("a", "Charge at 0-45 °C.")]


def test_j5_a_context_may_say_who_stated_it_and_when() -> None:
    (context,) = check_contexts(
        [
            {
                "id": "policy",
                "text": "Business class only over 6 hours.",
                "source_id": "travel-policy-2026",
                "source_kind": "official",
                "published": "2026-03-02",
            }
        ]
    )
    assert (context.source_id, context.source_kind) == ("travel-policy-2026", "official")
    assert context.published == date(2026, 3, 2) and context.reliability == 1.0
    assert context.confidence is None


@pytest.mark.parametrize(
    ("item", "field", "words"),
    [
        (
            {"source_kind": "oficial"},
            "contexts[0].source_kind='oficial' is not a known source kind",
            ["did you mean 'official'?", "use one of official, verified_kb", "add-kind"],
        ),
        ({"source_kind": 3}, "contexts[0].source_kind=3 is not a known source kind", []),
        (
            {"published": "2026-02-30"},
            "contexts[0].published='2026-02-30' is not a date",
            ["use an ISO date such as 2024-05-01"],
        ),
        ({"published": 20260302}, "contexts[0].published=20260302 is not a date", []),
        ({"published": "last week"}, "contexts[0].published='last week' is not a date", []),
        ({"source_id": ""}, "contexts[0].source_id='' is invalid", ["non-empty string"]),
        ({"source_id": 7}, "contexts[0].source_id=7 is invalid", ["leave it out"]),
        (
            {"kind": "official"},
            "has the unknown key 'kind'",
            ["did you mean 'source_kind'?", '"id" and "text", and optionally "source_id"'],
        ),
        ({"confidence": 0.9}, "has the unknown key 'confidence'", ['"published"']),
    ],
)
def test_j5_a_bad_source_field_is_refused_naming_the_value_and_the_fix(
    item: dict[str, object], field: str, words: list[str]
) -> None:
    with pytest.raises(InvalidInputError) as error:
        check_contexts([{"id": "a", "text": "t"} | item])
    message = str(error.value)
    assert field in message and all(w in message for w in words), message


def test_j5_a_context_without_text_names_what_it_lacks_and_the_keys_accepted() -> None:
    with pytest.raises(InvalidInputError, match='lacks "text"; give an object with "id" and'):
        check_contexts([{"id": "a", "source_kind": "official"}])
    assert CONTEXT_KEYS == ("id", "text", "source_id", "source_kind", "published")


def test_j5_a_registry_adds_its_kinds_and_its_sources() -> None:
    registry = SourceRegistry(SQLiteDatabase(":memory:"))
    registry.add_kind("regulator", 0.95)
    registry.add("travel-policy", "official", reliability=0.85)
    item = {"id": "a", "text": "t", "source_kind": "regulator"}
    with pytest.raises(InvalidInputError, match="not a known source kind"):
        check_contexts([item])
    assert check_contexts([item], registry=registry)[0].reliability == 0.95
    registered = {"id": "b", "text": "u", "source_id": "travel-policy"}
    (context,) = check_contexts([registered], registry=registry)
    assert (context.source_kind, context.reliability) == ("official", 0.85)  # its own
    assert check_contexts([registered])[0].reliability is None  # no registry: only a name
    unknown = {"id": "c", "text": "v", "source_id": "somebody", "source_kind": "customer"}
    assert check_contexts([unknown], registry=registry)[0].reliability == 0.4
    with pytest.raises(InvalidInputError, match="disagrees with the registry; drop it or use"):
        check_contexts([registered | {"source_kind": "customer"}], registry=registry)


def test_j5_one_id_with_two_sources_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="names two different sources"):
        check_contexts(
            [
                {"id": "a", "text": "t", "source_kind": "official"},
                {"id": "a", "text": "t", "source_kind": "customer"},
            ]
        )


def test_j5_a_context_object_keeps_its_weight_and_gets_its_kinds_reliability() -> None:
    asked = Context("e1", "t", 0.82, source_kind="regulator", published=date(2026, 1, 5))
    listed = Context("e2", "u", source_kind="customer")
    first, second = check_contexts([asked, listed])
    assert first == asked  # weighed by its confidence (as `ask` gives it): taken as it is
    assert second.reliability == 0.4
    with pytest.raises(InvalidInputError, match="not a known source kind"):
        check_contexts([Context("e3", "v", source_kind="regulator")])


def test_j5_evaluate_request_takes_sources_and_refuses_unknown_request_keys() -> None:
    request = {
        "query": QUERY,
        "answer": CLAIM,
        "contexts": [{"id": "chat", "text": CHAT, "source_kind": "unverified"}],
    }
    judge = ModelJudge(ScriptedSupport())
    assert evaluate_request(request, judge=judge).recommended_action in ("publish", "append_caveat")
    with pytest.raises(InvalidInputError, match="remove kinds"):
        evaluate_request(request | {"kinds": {}}, judge=judge)


def test_builtin_kinds_are_the_ones_every_database_starts_with() -> None:
    from assay.store.postgres import migrations as postgres
    from assay.store.sqlite import migrations as sqlite

    for seeded in (sqlite.BUILTIN_KINDS, postgres.BUILTIN_KINDS):
        assert {name: reliability for name, reliability, _ in seeded} == dict(BUILTIN_KINDS)


# -- the weighing rule ---------------------------------------------------------------------


def test_strength_a_clear_margin_or_at_equal_weight_a_later_date_outweighs() -> None:
    def ctx(kind: str | None = None, conf: float | None = None, day: int | None = None) -> Context:
        published = None if day is None else date(2026, 1, day)
        return Context("x", "t", conf, source_kind=kind, published=published,
                       reliability=None if kind is None else BUILTIN_KINDS[kind])  # fmt: skip

    assert outweighs(ctx("official"), ctx("unverified"))
    assert not outweighs(ctx("unverified"), ctx("official"))
    assert not outweighs(ctx("official"), ctx("verified_kb"))  # 0.1: within the margin
    assert not outweighs(ctx("verified_kb"), ctx("official"))
    assert outweighs(ctx("internal_wiki", day=9), ctx("internal_wiki", day=2))
    assert not outweighs(ctx("internal_wiki"), ctx("internal_wiki", day=2))
    assert not outweighs(ctx("official"), ctx())  # unknown weight: no verdict
    assert not outweighs(ctx(day=9), ctx(day=2))  # dates alone settle nothing
    assert outweighs(ctx(conf=0.95), ctx(conf=0.80))  # 0.15 exactly, at 6 decimals
    # within 0.3 of reliability the confidence weighs first; beyond it, the registry
    assert outweighs(ctx("verified_kb", conf=0.9), ctx("official", conf=0.7))
    assert not outweighs(ctx("customer", conf=0.9), ctx("official", conf=0.7))
    assert outweighs(ctx("official", conf=0.7), ctx("customer", conf=0.9))
    assert outweighs(ctx("official", conf=0.7), ctx("internal_wiki", conf=0.7))  # 0.3 exactly


def test_j_stronger_source_contradiction_outweighs_weaker_support() -> None:
    grade, score, action, conflicts, why = judge_of(kinds_of("unverified", "official"))
    assert grade == "contradicted"
    assert conflicts == [("chat", "policy")]  # reported: the claim's side first
    assert score < 0.2 and action == "suppress"
    assert "a stronger source contradicts 1 claim(s) a weaker one supports" in why


def test_j_stronger_source_support_settles_a_weaker_contradiction() -> None:
    grade, score, _, conflicts, why = judge_of(kinds_of("official", "unverified"))
    assert grade == "supported" and conflicts == [("chat", "policy")]
    assert 0.5 <= score < 0.8  # J3: a settled conflict is minor
    assert "1 settled by evidence strength" in why


def test_j_sources_within_the_margin_leave_the_conflict_unsettled() -> None:
    grade, score, _, conflicts, why = judge_of(kinds_of("verified_kb", "official"))
    assert grade == "supported" and conflicts == [("chat", "policy")]
    assert 0.2 <= score < 0.5 and "settled" not in why  # J3: an unsettled conflict is major


def test_j_the_later_of_two_equally_reliable_sources_wins() -> None:
    newer_policy = kinds_of("internal_wiki", "internal_wiki", chat=date(2025, 1, 1),
                            policy=date(2026, 1, 1))  # fmt: skip
    assert judge_of(newer_policy)[0] == "contradicted"
    newer_chat = kinds_of("internal_wiki", "internal_wiki", chat=date(2026, 1, 1),
                          policy=date(2025, 1, 1))  # fmt: skip
    grade, score, *_ = judge_of(newer_chat)
    assert grade == "supported" and 0.5 <= score < 0.8


def test_j_without_source_information_the_judgment_is_as_before() -> None:
    bare = judge_of([Context("chat", CHAT), Context("policy", POLICY)])
    assert judge_of(kinds_of(None, None)) == bare
    grade, score, _, conflicts, why = bare
    assert grade == "supported" and conflicts == [("chat", "policy")]
    assert 0.2 <= score < 0.5 and "settled" not in why
    dated = kinds_of(None, None, chat=date(2026, 5, 1), policy=date(2020, 1, 1))
    assert judge_of(dated) == bare  # a date without a kind weighs nothing


def test_j_a_confidence_weighs_before_a_kind_of_about_the_same_reliability() -> None:
    chat = Context("chat", CHAT, 0.9, source_kind="verified_kb", reliability=0.9)
    policy = Context("policy", POLICY, 0.6, source_kind="official", reliability=1.0)
    assert judge_of([chat, policy])[0] == "supported"


def test_j_a_clearly_less_reliable_source_never_outweighs_by_its_confidence() -> None:
    """Issue 41: a post that echoes the question's words gains confidence from its
    similarity; the official text it contradicts still decides (the registry's
    reliability 0.3 or more apart), and settles the conflict when it backs the claim."""
    chat = Context("chat", CHAT, 0.9, source_kind="unverified", reliability=0.3)
    policy = Context("policy", POLICY, 0.6, source_kind="official", reliability=1.0)
    assert judge_of([chat, policy])[0] == "contradicted"
    grade, score, _, _, why = judge_of([replace(chat, text=POLICY), replace(policy, text=CHAT)])
    assert grade == "supported" and 0.5 <= score < 0.8 and "1 settled" in why


# -- bounds ----------------------------------------------------------------------------------

RULE = (
    "Business class may be booked only for flights with a scheduled duration over 6 hours, "
    "and always requires written pre-approval from the budget holder."
)


@pytest.mark.parametrize(
    ("claim", "contradicts"),
    [
        ("Business class is allowed on any flight over 4 hours.", True),
        ("Business class flights of 5 hours are allowed.", True),
        ("Business class is allowed for flights under 3 hours.", True),
        ("Business class is allowed on flights over 8 hours.", False),
        ("Business class flights of 7 hours are allowed.", False),
        ("Business class flights over 4 km are allowed.", False),  # another unit
        ("Economy seats on a 4 hours train are fine.", False),  # another subject
    ],
)
def test_j2_a_figure_beyond_a_bound_of_the_same_thing_contradicts(
    claim: str, contradicts: bool
) -> None:
    assert (beyond_bound(claim, RULE) is not None) is contradicts


def test_j2_a_bound_the_claim_narrows_without_only_is_no_contradiction() -> None:
    measured = "The drug cut deaths by over 30 % in the trial."
    assert beyond_bound("The drug cut deaths by more than 20 %.", measured) is None
    assert beyond_bound("The drug cut deaths by 10 %.", measured) == measured


def test_j_evaluate_weighs_the_contracts_source_kinds() -> None:
    contexts = [
        {"id": "chat", "text": CHAT, "source_kind": "customer"},
        {"id": "policy", "text": POLICY, "source_kind": "official", "published": "2026-01-02"},
    ]
    judgment = evaluate(QUERY, CLAIM, contexts, judge=ModelJudge(ScriptedSupport()))
    assert [c.grade for c in judgment.claims] == ["contradicted"]
    assert judgment.claims[0].evidence_id == "policy"
