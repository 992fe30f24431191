"""Agreement and conflict between evidence items (E10 corroboration, J1 conflicts), with a
fake support model so that every verdict is known in advance."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from assay.errors import InvalidInputError
from assay.models.support import SupportModel, SupportResult
from assay.scoring.agreement import (
    SAME_STATEMENT,
    Conflict,
    aligned_sentences,
    find_conflicts,
    support_similarity,
)
from assay.scoring.corroboration import lexical_similarity

CHARGE_45 = "The battery may be charged at up to 45 degrees."
CHARGE_60 = "The battery may be charged at up to 60 degrees."
CHARGE_45_AGAIN = "Charging the battery is allowed up to 45 degrees."
PYTHONS = "Burmese pythons grow up to 6 metres long in the wetlands."


class FakeSupport:
    """Answers every pair with ``results`` in turn (the last one repeats); records pairs."""

    def __init__(self, *results: SupportResult, name: str = "fake-support@1") -> None:
        self.results = list(results) or [SupportResult(0.5, "unsupported")]
        self.name = name
        self.pairs: list[tuple[str, str]] = []

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        out = []
        for pair in pairs:
            self.pairs.append(pair)
            out.append(self.results[min(len(self.pairs) - 1, len(self.results) - 1)])
        return out


def _kinds(a: str, b: str, model: SupportModel | None = None) -> list[str]:
    return [c.kind for c in find_conflicts([("a", a), ("b", b)], model)]


def test_the_fake_is_a_support_model() -> None:
    assert isinstance(FakeSupport(), SupportModel)


# -- find_conflicts (J1) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        (CHARGE_45, CHARGE_60, "figures"),
        ("The plant employs 300 people.", "The plant employs 450 people.", "figures"),
        ("The Springfield plant opened in 2019.", "The Springfield plant opened in 2021.", "dates"),
        (
            "The Springfield plant opened in March.",
            "The Springfield plant opened in June.",
            "dates",
        ),
        ("The charging cable is waterproof.", "The charging cable is not waterproof.", "negation"),
        ("The charging cable is waterproof.", "The charging cable isn't waterproof.", "negation"),
        (
            "The annual safety report for the northern plant was written by Alice.",
            "The annual safety report for the northern plant was written by Robert.",
            "names",
        ),
    ],
)
def test_j1_face_conflicts_are_found_with_their_kind(a: str, b: str, kind: str) -> None:
    (conflict,) = find_conflicts([("first", a), ("second", b)])
    assert conflict == Conflict("first", "second", kind, (a, b))
    assert conflict.to_dict() == {
        "first": "first",
        "second": "second",
        "kind": kind,
        "sentences": [a, b],
    }


def test_j1_conflicts_are_found_between_the_aligned_sentences_of_longer_passages() -> None:
    a = f"The pack has four cells and a steel case. {CHARGE_45} Store it in a dry place."
    b = f"Refunds take 14 days. {CHARGE_60}"
    (conflict,) = find_conflicts([("a", a), ("b", b)])
    assert conflict.kind == "figures" and conflict.sentences == (CHARGE_45, CHARGE_60)


def test_j1_two_versions_of_a_passage_conflict_on_the_sentence_that_changed() -> None:
    """The sentences both versions share align best, but they cannot disagree: the one
    that changed is compared."""
    shared = "The pack has four cells and a steel case, and it ships with a charger."
    changed = "The battery may be charged at temperatures up to 60 degrees."
    a, b = f"{shared} {CHARGE_45}", f"{shared} {changed}"
    assert aligned_sentences(a, b)[:2] == (shared, shared)
    (conflict,) = find_conflicts([("a", a), ("b", b)])
    assert conflict.kind == "figures" and conflict.sentences == (CHARGE_45, changed)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (CHARGE_45, CHARGE_45_AGAIN),  # agreeing paraphrase
        (CHARGE_45, CHARGE_45),
        ("The battery holds 45 Wh.", PYTHONS),  # different figures, different subjects
        ("The cable is not waterproof.", "Refunds are issued within 14 days."),
        ("The report was written by Alice.", "Robert maintains the pumps at the dam."),
    ],
)
def test_j1_agreeing_or_unrelated_sentences_are_no_conflict(a: str, b: str) -> None:
    assert find_conflicts([("a", a), ("b", b)]) == []


def test_j1_every_pair_of_items_is_compared_once_in_order() -> None:
    items = [("x", CHARGE_45), ("y", PYTHONS), ("z", CHARGE_60), ("w", CHARGE_45)]
    conflicts = find_conflicts(items)
    assert [(c.first, c.second, c.kind) for c in conflicts] == [
        ("x", "z", "figures"),
        ("z", "w", "figures"),
    ]
    assert find_conflicts([]) == [] and find_conflicts([("only", CHARGE_45)]) == []


def test_j1_the_model_finds_conflicts_that_show_no_face_difference() -> None:
    a = "The valve must be closed before the pump is started."
    b = "The pump must be started before the valve is closed."
    assert _kinds(a, b) == []
    model = FakeSupport(SupportResult(0.2, "unsupported"), SupportResult(0.05, "contradicted"))
    assert _kinds(a, b, model) == ["model"]
    assert model.pairs == [(a, b), (b, a)]  # each aligned sentence against the other item
    assert _kinds(a, b, FakeSupport(SupportResult(0.9, "supported"))) == []
    assert _kinds(a, b, FakeSupport(SupportResult(0.1, "unsupported"))) == []


@pytest.mark.parametrize(
    ("verdicts", "kinds"),
    [
        # no contradiction either way: the figures differ, the statements do not conflict
        ((SupportResult(0.9, "supported"), SupportResult(0.2, "unsupported")), []),
        ((SupportResult(0.9, "supported"),), []),
        ((SupportResult(0.1, "unsupported"),), []),
        # a contradiction confirms the face difference, which names the kind
        ((SupportResult(0.0, "contradicted"),), ["figures"]),
        ((SupportResult(0.2, "unsupported"), SupportResult(0.0, "contradicted")), ["figures"]),
        # ...unless the other direction is supported: a text cannot contradict what it
        # supports, so mixed verdicts are the model's error (measured: 33% of passages
        # against their own sentences were such "conflicts")
        ((SupportResult(0.9, "supported"), SupportResult(0.0, "contradicted")), []),
    ],
)
def test_j1_the_model_decides_whether_a_face_difference_is_a_conflict(
    verdicts: tuple[SupportResult, ...], kinds: list[str]
) -> None:
    model = FakeSupport(*verdicts)
    assert _kinds(CHARGE_45, CHARGE_60, model) == kinds
    assert model.pairs == [(CHARGE_45, CHARGE_60), (CHARGE_60, CHARGE_45)]


def test_j1_the_model_is_not_asked_about_unrelated_pairs() -> None:
    model = FakeSupport(SupportResult(0.0, "contradicted"))
    assert _kinds(CHARGE_45, PYTHONS, model) == []
    assert _kinds("The battery holds 45 Wh.", "Refunds are issued within 14 days.", model) == []
    assert model.pairs == []


CHARGE_RANGE = "Charge the battery pack at room temperature, between 10 °C and 35 °C."
STORE_RANGE = "Store the pack between \u221220 °C and 35 °C at 40\u201360 % charge."


def test_j1_statements_that_share_only_some_words_are_not_compared() -> None:
    """A charging range and a storage range share "charge" and "pack" (cosine 0.61): two
    statements about different things, which a model that says contradicted cannot make
    a conflict; below the cut they are not even asked about."""
    overlap = aligned_sentences(CHARGE_RANGE, STORE_RANGE)[2]
    assert 0.6 < overlap < SAME_STATEMENT
    model = FakeSupport(SupportResult(0.0, "contradicted"))
    assert _kinds(CHARGE_RANGE, STORE_RANGE, model) == [] and model.pairs == []
    loose = find_conflicts([("a", CHARGE_RANGE), ("b", STORE_RANGE)], model, same_statement=0.6)
    assert [c.kind for c in loose] == ["figures"]


@pytest.mark.parametrize("cut", [0.0, -0.1, 1.5, float("nan")])
def test_j1_a_same_statement_cut_outside_0_to_1_is_refused(cut: float) -> None:
    with pytest.raises(InvalidInputError, match="same_statement"):
        find_conflicts([("a", CHARGE_45), ("b", CHARGE_60)], same_statement=cut)


def test_j1_the_same_number_written_with_a_thousands_separator_is_no_conflict() -> None:
    assert _kinds("The plant employs 1,200 people.", "The plant employs 1200 people.") == []


def test_aligned_sentences_picks_the_most_similar_pair() -> None:
    a = f"The pack has four cells. {CHARGE_45}"
    b = f"{PYTHONS} {CHARGE_45_AGAIN}"
    sa, sb, cosine = aligned_sentences(a, b)
    assert (sa, sb) == (CHARGE_45, CHARGE_45_AGAIN)
    assert 0.5 <= cosine <= 1.0 + 1e-9
    assert aligned_sentences(CHARGE_45, CHARGE_45)[2] == pytest.approx(1.0)
    assert aligned_sentences(CHARGE_45, PYTHONS)[2] < 0.5


# -- support_similarity (E10) ----------------------------------------------------------------


def test_e10_contradicted_in_either_direction_gives_zero() -> None:
    for results in (
        (SupportResult(0.02, "contradicted"), SupportResult(0.9, "supported")),
        (SupportResult(0.9, "supported"), SupportResult(0.02, "contradicted")),
    ):
        similarity = support_similarity(FakeSupport(*results))
        assert similarity(CHARGE_45, CHARGE_45_AGAIN) == 0.0


def test_e10_supported_both_ways_is_high_for_aligned_statements() -> None:
    a = "Charge the pack only between 5 and 45 degrees."
    b = "Charge the pack between 5 and 45 degrees, says the manual."
    model = FakeSupport(SupportResult(0.92, "supported"), SupportResult(0.88, "supported"))
    similarity = support_similarity(model)
    assert similarity(a, b) == pytest.approx(max(0.88, lexical_similarity(a, b)))
    sa, sb, _ = aligned_sentences(a, b)
    assert model.pairs == [(sa, b), (sb, a)]
    assert "fake-support@1" in similarity.__qualname__


def test_e10_the_model_is_not_asked_about_passages_that_share_little() -> None:
    """Unaligned passages keep their lexical similarity: the model is costly and calls
    unrelated short texts supported too readily."""
    a = "Charge the pack only between 5 and 45 degrees."
    b = "The manual allows charging the battery from 5 up to 45 degrees."
    model = FakeSupport(SupportResult(0.92, "supported"))
    assert support_similarity(model)(a, b) == lexical_similarity(a, b) < 0.5
    assert model.pairs == []


def test_e10_one_sided_support_counts_no_more_than_the_lexical_similarity() -> None:
    model = FakeSupport(SupportResult(0.95, "supported"), SupportResult(0.1, "unsupported"))
    similarity = support_similarity(model)
    lexical = lexical_similarity(CHARGE_45, CHARGE_45_AGAIN)
    assert similarity(CHARGE_45, CHARGE_45_AGAIN) == pytest.approx(max(lexical, 0.1))
    unrelated = support_similarity(FakeSupport(SupportResult(0.03, "unsupported")))
    low = unrelated(CHARGE_45, PYTHONS)
    assert low == pytest.approx(max(lexical_similarity(CHARGE_45, PYTHONS), 0.03)) and low < 0.5


@pytest.mark.parametrize(
    ("a", "b"),
    [(CHARGE_45, CHARGE_60), ("The charging cable is waterproof.", "The cable is not waterproof.")],
)
def test_e10_a_face_conflict_gives_zero_without_asking_the_model(a: str, b: str) -> None:
    model = FakeSupport(SupportResult(0.99, "supported"))
    assert support_similarity(model)(a, b) == 0.0
    assert model.pairs == []


def test_e10_a_dates_or_names_conflict_gives_zero() -> None:
    a, b = "The Springfield plant opened in March.", "The Springfield plant opened in June."
    assert _kinds(a, b) == ["dates"]
    model = FakeSupport(SupportResult(0.2, "unsupported"))
    assert support_similarity(model)(a, b) == 0.0
