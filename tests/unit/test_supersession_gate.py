"""The gate's supersession rule (check 6 of :mod:`assay.scoring.gate`), on scored items
alone: a superseded item never reaches the context beside an admitted item of a source
that supersedes it, and stays (marked) when no such item cleared the policy's checks."""

from __future__ import annotations

from datetime import date
from itertools import permutations

import pytest

from assay import Candidate, Policy, PolicyBook
from assay.flow.score import ScoreResult, score_candidates
from assay.scoring.evidence import SourceFacts
from assay.scoring.gate import current
from assay.sources import successors
from assay.types import ExclusionReason

AS_OF = date(2026, 11, 29)
#: travel-policy-2026 supersedes travel-policy-2025, which supersedes travel-policy-2024
LINKS = {"travel-policy-2025": "travel-policy-2024", "travel-policy-2026": "travel-policy-2025"}


@pytest.fixture(scope="module")
def policy() -> Policy:
    return PolicyBook.load().get("informational")


def resolve(candidate: Candidate) -> SourceFacts:
    """The registry as the engine resolves it, for the three versions and a wiki."""
    source = candidate.source_id or ""
    return SourceFacts(
        kind="official" if source.startswith("travel") else "internal_wiki",
        reliability=1.0 if source.startswith("travel") else 0.7,
        source_id=source,
        owner="Acme",
        superseded_by=successors(source, LINKS),
    )


def item(source: str, similarity: float = 0.9, published: str = "2026-10-01") -> Candidate:
    return Candidate(
        f"{source}#1",
        f"The daily meal allowance ({source}).",
        similarity,
        source_id=source,
        published=published,
    )


def score(policy: Policy, *candidates: Candidate) -> ScoreResult:
    return score_candidates("daily meal allowance?", candidates, policy, resolve, as_of=AS_OF)


def verdicts(result: ScoreResult) -> dict[str, tuple[bool, str | None, str | None]]:
    return {
        e.candidate.source_id or "": (e.admitted, e.reason and e.reason.value, e.detail)
        for e in result.evidence
    }


def test_superseded_source_never_reaches_context(policy: Policy) -> None:
    result = score(policy, item("travel-policy-2024"), item("travel-policy-2026"))
    assert [e.candidate.source_id for e in result.admitted] == ["travel-policy-2026"]
    (old,) = result.excluded
    assert old.reason is ExclusionReason.SOURCE_SUPERSEDED
    assert old.detail == "superseded by travel-policy-2026"
    assert old.basis.superseded_by == ("travel-policy-2025", "travel-policy-2026")
    assert [f.evidence_ids for f in result.findings] == [("travel-policy-2026#1",)]


def test_superseded_source_stays_when_no_newer_source_speaks(policy: Policy) -> None:
    """No item of a newer source among the candidates: the old one is the best evidence
    there is, admitted, its basis naming the sources that supersede it."""
    result = score(policy, item("travel-policy-2024"), item("wiki"))
    assert verdicts(result)["travel-policy-2024"] == (True, None, None)
    (old,) = [e for e in result.admitted if e.candidate.source_id == "travel-policy-2024"]
    assert old.as_dict()["basis"]["superseded_by"] == ["travel-policy-2025", "travel-policy-2026"]


@pytest.mark.parametrize(
    ("newer", "its_reason"),
    [
        (item("travel-policy-2026", similarity=0.1), "below_similarity_floor"),
        (item("travel-policy-2026", published="2026-12-01"), "dated_after_as_of"),
    ],
)
def test_a_newer_item_the_policy_excludes_does_not_supersede(
    policy: Policy, newer: Candidate, its_reason: str
) -> None:
    """Off the question, or written after the decision's day: the newer source does not
    speak to this question, so it supersedes nothing in it."""
    result = score(policy, item("travel-policy-2024"), newer)
    assert verdicts(result)["travel-policy-2024"] == (True, None, None)
    assert verdicts(result)["travel-policy-2026"][:2] == (False, its_reason)


def test_a_chain_keeps_only_its_newest_speaking_source(policy: Policy) -> None:
    everything = score(
        policy, item("travel-policy-2024"), item("travel-policy-2025"), item("travel-policy-2026")
    )
    assert verdicts(everything) == {
        "travel-policy-2024": (
            False,
            "source_superseded",
            "superseded by travel-policy-2025, travel-policy-2026",
        ),
        "travel-policy-2025": (False, "source_superseded", "superseded by travel-policy-2026"),
        "travel-policy-2026": (True, None, None),
    }
    skipping = score(policy, item("travel-policy-2024"), item("travel-policy-2026"))
    assert verdicts(skipping)["travel-policy-2024"][2] == "superseded by travel-policy-2026"


def test_supersession_does_not_depend_on_the_candidates_order(policy: Policy) -> None:
    items = [item("travel-policy-2024"), item("travel-policy-2025"), item("travel-policy-2026")]
    outcomes = {
        tuple(sorted(verdicts(score(policy, *order)).items())) for order in permutations(items)
    }
    assert len(outcomes) == 1


def test_the_policy_checks_come_first(policy: Policy) -> None:
    """An old item the policy already excludes keeps the policy's reason."""
    result = score(policy, item("travel-policy-2024", similarity=0.1), item("travel-policy-2026"))
    assert verdicts(result)["travel-policy-2024"][1] == "below_similarity_floor"


def test_a_superseded_item_counts_as_not_retrieved_for_the_set_signals(policy: Policy) -> None:
    result = score(policy, item("travel-policy-2024"), item("travel-policy-2026"), item("wiki"))
    assert [e.candidate.source_id for e in current(result.evidence)] == [
        "travel-policy-2026",
        "wiki",
    ]


def test_successors_are_breadth_first_by_id_and_safe_from_cycles() -> None:
    split = {"b": "a", "c": "a", "d": "b", "e": "c"}  # a split into b and c, each revised
    assert successors("a", split) == ("b", "c", "d", "e")
    assert successors("d", split) == ()
    assert successors("x", {"x": "y", "y": "x"}) == ("y",)  # a stored cycle ends
