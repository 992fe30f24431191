"""The caveat and the withheld note say what lowered an answer's confidence in plain
words (issue: hedges that read naturally), never an action name or a model version."""

from __future__ import annotations

from typing import Any

import pytest

from assay.flow.caveats import caveat, standing, withheld
from assay.judge.base import ClaimGrade, Grade, Judgment
from assay.judge.schema import Assessment, Context, EvidenceSufficiency, SourceConflict


def judgment(
    score: float,
    grades: tuple[Grade, ...] = ("supported",),
    *,
    conflicts: int = 0,
    flags: int = 0,
    correctness: dict[str, Any] | None = None,
    calibration: dict[str, Any] | None = None,
) -> Judgment:
    assessment = Assessment(
        confidence_score=score,
        score_rationale="1 claim: 1 supported; 0.65 probability that the answer is right (m@1)",
        evidence_sufficiency=EvidenceSufficiency(is_sufficient=True, missing_information=[]),
        source_conflicts=[
            SourceConflict(claim="x", source_a="a", source_b=f"b{i}", nature="direct contradiction")
            for i in range(conflicts)
        ],
        unsupported_claims=[],
        speculation_flags=[f"flag {i}" for i in range(flags)],
        recommended_action="append_caveat",
    )
    claims = tuple(ClaimGrade(f"claim {i}", g) for i, g in enumerate(grades))
    return Judgment(assessment, "judge", claims, correctness=correctness, calibration=calibration)


def test_j6_the_chance_of_being_right_leads_when_it_set_the_score() -> None:
    rated = judgment(0.65, conflicts=2, correctness={"probability": 0.65, "support": 0.9})
    assert caveat(rated) == (
        "Caveat (answer confidence 0.65): an estimated 65% chance that it is right; "
        "sources disagree on what it states (2 conflicts)"
    )


def test_j6_a_high_chance_is_not_given_as_the_reason_for_a_low_score() -> None:
    rated = judgment(0.46, conflicts=4, correctness={"probability": 0.82, "support": 0.46})
    text = withheld(rated, queued=True)
    assert text == (
        "The drafted answer was withheld (answer confidence 0.46, too low for this policy): "
        "sources disagree on what it states (4 conflicts); it is queued for human review."
    )


@pytest.mark.parametrize(
    ("grades", "told"),
    [
        (("unsupported",), "the evidence does not support its claim"),
        (("contradicted", "contradicted"), "the evidence contradicts both its claims"),
        (("supported", "unsupported", "unsupported"), "does not support 2 of its 3 claims"),
    ],
)
def test_g3_unsupported_and_contradicted_claims_are_counted(
    grades: tuple[Grade, ...], told: str
) -> None:
    assert told in caveat(judgment(0.3, grades))


def test_j7_a_calibrated_score_is_the_chance_itself() -> None:
    rated = judgment(
        0.41, flags=1, correctness={"probability": 0.7, "support": 0.9}, calibration={"raw": 0.7}
    )
    assert caveat(rated) == (
        "Caveat (answer confidence 0.41): an estimated 41% chance that it is right; "
        "some of its evidence is worded as speculation"
    )


def test_j6_no_action_name_model_version_or_counts_jargon_reaches_the_reader() -> None:
    rated = judgment(0.6, correctness={"probability": 0.6, "support": 1.0})
    for text in (caveat(rated), withheld(rated, queued=False)):
        assert "append_caveat" not in text and "@" not in text and "(s)" not in text
    assert withheld(rated, queued=False).endswith("it was not published.")


def test_an_answer_resting_on_a_clearly_weaker_source_alone_says_so() -> None:
    """Issue 41, a leisure centre's knowledge base: "Is the sauna included in the Silver
    plan?" was answered from a forum post ("The sauna is included with Silver too") and
    read like the price list's word; the price list was among the evidence."""
    post = Context("p", "The sauna is included with Silver too.", 0.64, None, "forum",
                   "unverified", reliability=0.3)  # fmt: skip
    prices = Context("l", "Plan Silver: Includes: Swimming and gym.", 0.63, None,
                     "prices-2026", "official", reliability=1.0)  # fmt: skip
    wiki = Context("w", "Silver: swimming and gym.", 0.6, None, "wiki", "internal_wiki",
                   reliability=0.8)  # fmt: skip
    assert standing([post, prices], ["p"]) == (
        "It rests on forum (unverified) alone, not on prices-2026 (official), which was "
        "found too and is more reliable"
    )
    assert standing([post, prices], ["l"]) is None  # the official one is cited
    assert standing([post, prices], ["p", "l"]) is None
    assert standing([prices, wiki], ["w"]) is None  # 0.2 apart: not clearly
    assert standing([post], ["p"]) is None  # nothing more reliable was found
