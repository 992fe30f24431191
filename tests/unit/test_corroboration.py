"""Corroboration (E10): grouping by finding, independence by owner, aggregate confidence."""

from __future__ import annotations

from datetime import date

import pytest

from assay import Candidate, FindingStatus, Policy, PolicyBook, corroborate, lexical_similarity
from assay.scoring.evidence import SourceFacts, score_candidate

AS_OF = date(2026, 11, 29)
SAFE_TEMP = "Charge the pack only between 0 and 45 degrees Celsius ambient temperature."


def evidence(id: str, text: str, facts: SourceFacts, policy: Policy, similarity: float = 0.9):
    c = Candidate(id, text, similarity, source_kind=facts.kind, published="2026-11-01")
    return score_candidate(c, facts, policy, as_of=AS_OF)


@pytest.fixture
def policy() -> Policy:
    return PolicyBook.load().get("informational")


def official(owner: str, source_id: str) -> SourceFacts:
    return SourceFacts(kind="official", reliability=1.0, source_id=source_id, owner=owner)


def test_e10_independent_agreeing_sources_make_a_corroborated_finding(policy: Policy) -> None:
    items = [
        evidence("a", SAFE_TEMP, official("Acme", "sds"), policy),
        evidence(
            "b",
            "Only charge the pack between 0 and 45 degrees Celsius.",
            official("Lab", "test-lab"),
            policy,
        ),
    ]
    [finding] = corroborate(items, policy)
    assert finding.status is FindingStatus.CORROBORATED
    assert finding.independent_sources == 2
    assert finding.confidence > max(i.confidence for i in items)
    assert set(finding.evidence_ids) == {"a", "b"}


def test_e10_same_owner_is_not_independent(policy: Policy) -> None:
    items = [
        evidence("a", SAFE_TEMP, official("Acme", "sds"), policy),
        evidence("b", SAFE_TEMP + " See the manual.", official("Acme", "manual"), policy),
    ]
    [finding] = corroborate(items, policy)
    assert finding.status is FindingStatus.ISOLATED
    assert finding.independent_sources == 1
    assert finding.confidence == max(i.confidence for i in items)
    assert finding.source_ids == ("sds", "manual")


def test_e10_different_statements_are_separate_findings(policy: Policy) -> None:
    items = [
        evidence("a", SAFE_TEMP, official("Acme", "sds"), policy),
        evidence(
            "b",
            "Return spent packs to an authorised collection point.",
            official("Lab", "lab"),
            policy,
        ),
    ]
    findings = corroborate(items, policy)
    assert [f.status for f in findings] == [FindingStatus.ISOLATED, FindingStatus.ISOLATED]


def test_e10_low_confidence_sources_do_not_count_as_corroboration(policy: Policy) -> None:
    weak = SourceFacts(kind="unverified", reliability=0.3, source_id="blog", owner="blogger")
    items = [
        evidence("a", SAFE_TEMP, official("Acme", "sds"), policy),
        evidence("b", SAFE_TEMP, weak, policy, similarity=0.4),
    ]
    assert items[1].label.value == "low"
    [finding] = corroborate(items, policy)
    assert finding.status is FindingStatus.ISOLATED


def test_similarity_function_is_injected(policy: Policy) -> None:
    items = [
        evidence("a", "alpha", official("A", "a"), policy),
        evidence("b", "beta", official("B", "b"), policy),
    ]
    assert len(corroborate(items, policy)) == 2
    assert len(corroborate(items, policy, similarity=lambda x, y: 1.0)) == 1


def test_lexical_similarity_bounds() -> None:
    assert lexical_similarity(SAFE_TEMP, SAFE_TEMP) == pytest.approx(1.0)
    assert lexical_similarity("the of and", "python") == 0.0
    assert lexical_similarity(SAFE_TEMP, SAFE_TEMP.replace("Charge", "Recharge")) > 0.5


@pytest.mark.parametrize(
    "contradiction",
    [
        SAFE_TEMP.replace("45", "70"),
        "Never charge the pack between 0 and 45 degrees Celsius ambient temperature.",
        "Don't charge the pack between 0 and 45 degrees Celsius ambient temperature.",
        "Charge the pack between 0 and 70 degrees Celsius ambient temperature.",
        # a shared boilerplate sentence does not hide the conflict in the next one
        "Read this sheet before use. Charge the pack only between 0 and 70 degrees Celsius.",
    ],
)
def test_e10_contradicting_passages_never_corroborate(policy: Policy, contradiction: str) -> None:
    """Near-identical wording with other figures or a negation is an opposite finding."""
    assert lexical_similarity("Read this sheet before use. " + SAFE_TEMP, contradiction) == 0.0
    items = [
        evidence("a", SAFE_TEMP, official("Acme", "sds"), policy),
        evidence("b", contradiction, official("Lab", "lab"), policy),
    ]
    findings = corroborate(items, policy)
    assert [f.status for f in findings] == [FindingStatus.ISOLATED, FindingStatus.ISOLATED]


def test_e10_passages_are_compared_claim_by_claim(policy: Policy) -> None:
    """A longer passage that also states more (other sentences, negations, more figures)
    still corroborates a short one making the same claim."""
    long_passage = (
        "Read this sheet before use. "
        "Charge the pack only between 0 and 45 degrees Celsius ambient temperature. "
        "Do not leave it charging unattended. A full charge takes about 3 hours."
    )
    short = "The pack may be charged between 0 and 45 degrees Celsius ambient temperature."
    assert lexical_similarity(long_passage, short) > 0.5
    items = [
        evidence("a", long_passage, official("Acme", "sds"), policy),
        evidence("b", short, official("Acme Support", "wiki"), policy),
    ]
    [finding] = corroborate(items, policy)
    assert finding.status is FindingStatus.CORROBORATED
