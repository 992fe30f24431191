"""Set-level signals (R1-R5): bounds, known values and the judgment slot (R4)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay import (
    Candidate,
    Evidence,
    InvalidInputError,
    PolicyBook,
    SourceFacts,
    gate,
    score_candidate,
)
from assay.scoring.signals import (
    SignalSettings,
    SignalWeights,
    coherence_score,
    compute_set_signals,
    concentration_score,
    coverage_score,
    set_confidence,
    top_gap,
)
from assay.text import spelled_out, stated_dates

unit = st.floats(0.0, 1.0, allow_nan=False)


def unit_vectors(rows: list[list[float]]) -> np.ndarray:
    m = np.asarray(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def scored(*items: tuple[str, float, bool]) -> list[Evidence]:
    """Evidence with given source, confidence (via similarity) and verdict."""
    policy = PolicyBook.load().get("informational")
    out = []
    for i, (source, similarity, admitted) in enumerate(items):
        facts = SourceFacts(kind="official", reliability=1.0, source_id=source)
        e = score_candidate(
            Candidate(f"c{i}", "text", similarity, source_id=source, published="2026-11-29"),
            facts,
            policy,
            as_of=date(2026, 11, 29),
        )
        out.append(replace(e, admitted=admitted))
    return out


def test_r1_top_is_the_best_admitted_item_and_gap_its_margin_over_the_second() -> None:
    items = scored(("a", 0.9, True), ("a", 0.85, True), ("b", 0.6, True))
    top, gap = top_gap(items)
    assert top == items[0].confidence
    assert gap == pytest.approx(items[0].confidence - items[1].confidence)
    # an excluded item is never the top, but it still narrows the margin
    items = scored(("a", 0.9, False), ("b", 0.7, True))
    assert top_gap(items) == (items[1].confidence, 0.0)
    one = scored(("a", 0.8, True))
    assert top_gap(one) == (one[0].confidence, one[0].confidence)
    assert top_gap(scored(("a", 0.8, False))) == (0.0, 0.0)


def test_r1_concentration_is_the_share_of_the_best_items_admitted() -> None:
    admitted = [True, True, False, False]
    assert concentration_score([0.9, 0.8, 0.5, 0.2], admitted, top_n=4) == 0.5
    assert concentration_score([0.9, 0.8, 0.5, 0.2], admitted, top_n=2) == 1.0
    assert concentration_score([], [], top_n=5) == 0.0


def test_r2_coherence_overall_and_per_source() -> None:
    vectors = unit_vectors([[1, 0], [1, 0.1], [0, 1], [0.1, 1]])
    overall, by_source = coherence_score(vectors, ["a", "a", "b", "b"])
    assert 0.0 < overall < 1.0
    assert by_source["a"] == pytest.approx(0.995, abs=1e-3)
    assert by_source["b"] == pytest.approx(0.995, abs=1e-3)
    assert coherence_score(vectors[:1], ["a"]) == (0.5, {})  # one chunk: neutral
    assert coherence_score(vectors[:0], []) == (0.0, {})
    assert coherence_score(vectors[:2], ["a", "a"])[1] == {}  # one source: no breakdown


def test_r3_coverage_counts_stemmed_query_terms() -> None:
    coverage, covered, missing = coverage_score(
        "What temperature is safe for charging batteries?",
        ["Charge the battery between 0 and 45 degrees.", "Temperatures above 60 trip it."],
    )
    assert covered == ["charging", "batteries"]  # "temperature", "safe" frame the question
    assert missing == []
    assert coverage == 1.0
    assert coverage_score("what is it?", ["anything"])[0] == 0.0
    legacy = coverage_score(
        "What temperature is safe for charging batteries?",
        ["Charge the battery between 0 and 45 degrees.", "Temperatures above 60 trip it."],
        subject_only=False,
    )
    assert legacy == (pytest.approx(3 / 4), ["temperature", "charging", "batteries"], ["safe"])


def test_r3_coverage_leaves_the_askers_own_figures_out() -> None:
    """ "We are a group of 14" is answered by "groups of more than 10 people": the rule
    never states the asker's number, so it is not a term the evidence must mention, and a
    clarification never asks what '14' means. A qualifier (a year) still counts."""
    rule = ["Groups of more than 10 people must book at least 48 hours ahead."]
    assert coverage_score("We are a group of 14. Do we need to book?", rule) == (
        1.0, ["group", "book"], [],
    )  # fmt: skip
    before = coverage_score("We are a group of 14. Do we need to book?", rule, own_figures=True)
    assert before[2] == ["14"]
    assert coverage_score("Did groups book in 2019?", rule)[2] == ["2019"]


def test_r3_coverage_counts_the_subject_not_the_words_that_frame_the_question() -> None:
    """ "How quickly will someone come out" asks about emergency repairs: a passage on
    them covers it, and the clarification never asks what 'quickly' or 's' means."""
    passage = ["Emergency repairs: the landlord attends within 24 hours of a report."]
    coverage, covered, missing = coverage_score(
        "How quickly will someone come out for an emergency repair?", passage
    )
    assert (coverage, covered, missing) == (1.0, ["emergency", "repair"], [])
    coverage, _, missing = coverage_score("It's late: what's the pet deposit I'm owed?", passage)
    assert missing == ["late", "pet", "deposit", "owed"]  # no "s" or "m"
    assert coverage_score("What does it mean?", ["It means yes."])[1] == ["mean"]  # all frame


def test_r3_coverage_reads_each_passages_title_path() -> None:
    """A question naming the product of a data sheet's title is covered by its passages,
    though their text says only "the pump"; a clarification never asks for it."""
    (item,) = scored(("sheet", 0.9, True))
    item = replace(
        item,
        candidate=replace(
            item.candidate, text="The pump draws 4.2 amperes.", title="HP-300 > Electrical"
        ),
    )
    signals = compute_set_signals(
        "How much current does the HP-300 draw?",
        [item],
        unit_vectors([[1.0, 0.0]]),
        settings=SignalSettings(),
    )
    assert "hp-300" in signals.covered_terms and signals.missing_terms == ("current",)


def test_r5_weights_must_sum_to_one() -> None:
    with pytest.raises(InvalidInputError, match=r"sum to 1\.1"):
        SignalWeights(top=0.55)


@given(
    unit,
    unit,
    unit,
    unit,
    unit,
    unit,
    st.sampled_from(["top", "gap", "concentration", "coherence", "coverage"]),
)
def test_r5_composite_never_falls_when_a_signal_rises(
    a: float, b: float, c: float, d: float, e: float, higher: float, name: str
) -> None:
    values = {"top": a, "gap": b, "concentration": c, "coherence": d, "coverage": e}
    raised = values | {name: max(values[name], higher)}
    assert set_confidence(raised, SignalWeights()) >= set_confidence(values, SignalWeights())


@given(unit, unit, unit, unit, unit)
def test_r5_composite_stays_in_unit_interval(
    a: float, b: float, c: float, d: float, e: float
) -> None:
    values = {"top": a, "gap": b, "concentration": c, "coherence": d, "coverage": e}
    assert 0.0 <= set_confidence(values, SignalWeights()) <= 1.0


@given(unit, unit, unit, unit, unit, unit)
def test_r4_a_capping_judgment_never_raises_the_composite(
    a: float, b: float, c: float, d: float, e: float, judgment: float
) -> None:
    values = {"top": a, "gap": b, "concentration": c, "coherence": d, "coverage": e}
    plain = set_confidence(values, SignalWeights())
    assert set_confidence(values, SignalWeights(), judgment, mode="cap") <= plain
    blended = set_confidence(values, SignalWeights(), judgment, mode="blend", judgment_weight=0.5)
    assert min(plain, judgment) - 1e-6 <= blended <= max(plain, judgment) + 1e-6


def test_compute_set_signals_end_to_end() -> None:
    policy = PolicyBook.load().get("financial")
    facts = SourceFacts(kind="official", reliability=1.0, source_id="sds")
    texts = ["Charging between 0 and 45 C.", "Temperature limits for charging.", "Pythons."]
    evidence = gate(
        [
            score_candidate(
                Candidate(f"c{i}", t, sim, source_id="sds", published="2026-11-01"),
                facts,
                policy,
                as_of=date(2026, 11, 29),
            )
            for i, (t, sim) in enumerate(zip(texts, [0.9, 0.85, 0.2], strict=True))
        ],
        policy,
    )
    signals = compute_set_signals(
        "charging temperature",
        evidence,
        unit_vectors([[1, 0.2], [1, 0.3]]),
        settings=SignalSettings(),
    )
    assert signals.top == evidence[0].confidence
    assert signals.gap == pytest.approx(
        min(1.0, 5 * (evidence[0].confidence - evidence[1].confidence)), abs=1e-6
    )
    assert signals.concentration == pytest.approx(2 / 3, abs=1e-6)
    assert signals.coverage == 1.0 and signals.missing_terms == ()
    assert 0.0 < signals.composite <= 1.0
    assert set(signals.as_dict()) >= {"top", "gap", "concentration", "coherence", "coverage"}


@pytest.mark.parametrize(
    ("acronym", "text", "spelled"),
    [
        ("MFA", "Multi-factor authentication is required for the VPN.", True),
        ("KIT", "You may work up to 10 keeping-in-touch days.", True),
        ("DPIA", "Run a Data Protection Impact Assessment first.", True),
        ("API", "A previous invoice was sent.", False),  # common words are no spelling
        ("SMS", "Text-message codes are not allowed.", False),
    ],
)  # fmt: skip
def test_an_acronym_spelled_out_in_the_evidence(acronym: str, text: str, spelled: bool) -> None:
    assert spelled_out(acronym, [text]) is spelled


def test_r3_a_day_the_evidence_names_by_its_kind_is_covered() -> None:
    """A medical practice's guide of my own: "What time does the practice close on
    weekdays?" was answered with "the evidence does not mention 'weekdays'" beside "open
    8am to 6:30pm Monday to Friday"; Saturday is still not covered by it."""
    text = "The practice is open 8am to 6:30pm Monday to Friday."
    _, covered, missing = coverage_score("When does it close on weekdays?", [text])
    assert "weekdays" in covered and not missing
    assert "saturday" in coverage_score("Is it open on Saturday?", [text])[2]
    assert "sunday" in coverage_score("Is it open on Sunday?", ["Open at weekends."])[1]
    before = coverage_score("When does it close on weekdays?", [text], days=False)
    assert "weekdays" in before[2]  # earlier rows replay as written


def test_r3_a_holiday_the_evidence_gives_by_its_date_is_covered() -> None:
    """A council's bin guide: "Are there collections on Boxing Day?" was asked back ("none
    that mention boxing") beside "There are no collections on 25 and 26 December"; a
    ferry timetable of my own the same for Christmas Day. Another date covers nothing."""
    text = "There are no collections on 25 and 26 December."
    _, covered, missing = coverage_score("Are there collections on Boxing Day?", [text])
    assert "boxing" in covered and not missing
    assert "christmas" in coverage_score("Any sailings on Christmas Day?", [text])[1]
    assert "new" in coverage_score("Any collections on New Year's Day?", [text])[2]
    assert "christmas" in coverage_score("Do you take Christmas trees?", [text])[2]
    before = coverage_score("Are there collections on Boxing Day?", [text], holidays=False)
    assert "boxing" in before[2]  # earlier rows replay as written


def test_r3_coverage_never_asks_for_a_form_of_to_be() -> None:
    """A nursery's handbook of my own: "What is the charge if I am late picking up?" was
    asked back for "charge, am, picking": "am" is as empty as "is" and "are"."""
    _, _, missing = coverage_score("What is the charge if I am late picking up?", ["Late fee"])
    assert "am" not in missing and "late" not in missing


def test_r3_a_part_of_the_day_a_clock_time_of_the_evidence_falls_in_is_covered() -> None:
    """A nursery's handbook of my own: "What time do you close in the evening?" was asked
    back ("none that mention evening") beside "open Monday to Friday, 08:00 to 18:00";
    "£6.00" is a price, no time, and covers no morning."""
    text = "The nursery is open Monday to Friday, 08:00 to 18:00, for 50 weeks a year."
    _, covered, missing = coverage_score("What time do you close in the evening?", [text])
    assert "evening" in covered and not missing
    assert "night" in coverage_score("Are you open at night?", [text])[2]
    assert "morning" in coverage_score("Is breakfast served in the morning?", ["£6.00 a day"])[2]
    before = coverage_score("What time do you close in the evening?", [text], times=False)
    assert "evening" in before[2]  # earlier rows replay as written


def test_r3_a_word_of_a_hyphenated_compound_is_covered_both_ways() -> None:
    """A hotel's guest booklet of my own: "What time can I check in?" was asked back
    ("none that mention check") beside "Check-in opens at 3pm"; a compound is covered by
    its parts written apart, and a part of it alone does not cover the whole."""
    text = "Check-in opens at 3pm. Rooms must be vacated by 11am."
    _, covered, missing = coverage_score("What time can I check in?", [text])
    assert "check" in covered and not missing
    assert "drop-off" in coverage_score("When is drop-off?", ["Drop off from 8am."])[1]
    assert "drop-off" in coverage_score("When is drop-off?", ["We drop prices."])[2]
    assert "check-out" in coverage_score("When is check-out?", [text])[2]
    before = coverage_score("What time can I check in?", [text], compounds=False)
    assert "check" in before[2]  # earlier rows replay as written


def test_r3_a_clipped_word_is_covered_by_its_full_form_and_the_reverse() -> None:
    """An airline's baggage policy of my own: "How much does it cost to take a bike?" was
    asked back ("none that mention bike") beside "Bicycles must be booked at least 48
    hours before departure and cost £50 per flight"."""
    text = "Bicycles must be booked at least 48 hours before departure and cost £50."
    assert coverage_score("How much does it cost to take a bike?", [text])[2] == []
    assert coverage_score("Is there a charge for a bicycle?", ["A £50 charge for bikes."])[2] == []
    assert "bike" in coverage_score("Can I take my bike?", ["Golf bags fly free."])[2]
    before = coverage_score("How much does it cost to take a bike?", [text], clippings=False)
    assert "bike" in before[2]  # earlier rows replay as written


@pytest.mark.parametrize(
    ("question", "text", "word"),
    [
        ("How many kilos of wool can I wash?", "Wool: maximum load 2 kg, 55 min.", "kilos"),
        ("Is the limit 5 kg?", "Up to 5 kilograms.", "kg"),
        ("How many amps does the pump draw?", "The pump draws 4.2 amperes.", "amps"),
        ("How much notice do I give when moving house?", "Moving home: tell us first.",
         "house"),
        ("Who should I ring about a leak?", "Call us about a leak on 0800 123.", "ring"),
        ("Can I get a flu jab here?", "Flu vaccinations are available.", "jab"),
        ("How many bags can I take?", "The baggage allowance is two pieces.", "bags"),
        ("How much is an aircon service?", "Air conditioning service: £75.", "aircon"),
        ("How much is a regas?", "Air conditioning re-gas: £75.", "regas"),
    ],
)  # fmt: skip
def test_r3_an_everyday_word_is_covered_by_the_word_documents_write(
    question: str, text: str, word: str
) -> None:
    """My own knowledge bases: "How many kilos of wool can I wash?" was asked back, "none
    that mention kilos", beside "Maximum load: 2 kg"; "Who decides what band my house is
    in?", "none that mention house", beside "Which band is my home in?"."""
    assert word in coverage_score(question, [text])[1]
    assert word in coverage_score(question, [text], everyday=False)[2]  # as rows before
    assert word in coverage_score(question, ["Opening hours: 9 to 5."])[2]


def test_r3_the_askers_people_and_a_superlative_frame_the_question() -> None:
    """ "My son is 16. Can he join?" was asked back, "none that mention son": the rules
    name members, not anyone's son; "What is the highest temperature of the oven?",
    "none that mention highest": the evidence gives the range, not the word."""
    rule = "Members must be at least 16 years old to join."
    assert coverage_score("My son is 16. Can he join?", [rule])[2] == []
    oven = "The oven's temperature range is 50 to 250 °C."
    assert coverage_score("What is the highest temperature of the oven?", [oven])[2] == []
    assert (
        "highest"
        in coverage_score(
            "What is the highest temperature of the oven?", [oven], askers_words=False
        )[2]
    )
    before = coverage_score("My son is 16. Can he join?", [rule], askers_words=False)
    assert "son" in before[2]  # earlier rows replay as written


def test_r3_bringing_frames_the_question() -> None:
    """A village hall's terms: "Can we bring our own wine?" was asked back, "say what you
    mean by 'bring'": the rule says "serve your own drinks", and no rule need say "bring".
    Rows written before replay as written."""
    drinks = "You may serve your own drinks free of charge to guests."
    assert coverage_score("Can we bring our own wine?", [drinks])[2] == ["wine"]
    before = coverage_score("Can we bring our own wine?", [drinks], carrying_words=False)
    assert before[2] == ["bring", "wine"]


def test_r3_a_country_the_evidence_names_by_its_group_is_covered() -> None:
    """A car hire's terms: "Can I drive the car to France?" was asked back ("The
    documents may not cover France") beside "Yes, to EU countries, if you tell us when you
    book"; a country outside the group stays missing."""
    text = "Yes, you can drive the car to EU countries, if you tell us when you book."
    _, covered, missing = coverage_score("Can I drive the car to France?", [text])
    assert "france" in covered and not missing
    assert "norway" in coverage_score("Can I drive the car to Norway?", [text])[2]
    assert "norway" in coverage_score("Can I drive to Norway?", ["Anywhere in Europe."])[1]
    assert "usa" in coverage_score("Can I drive to the USA?", [text])[2]
    outside = "Outside the EU, calls cost £1.50 a minute."  # names no EU country
    assert "spain" in coverage_score("What do calls cost in Spain?", [outside])[2]
    assert "usa" in coverage_score("What do calls cost in the USA?", [outside])[1]
    before = coverage_score("Can I drive the car to France?", [text], places=False)
    assert "france" in before[2]  # earlier rows replay as written


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("no collections on 25 and 26 December", {(25, 12), (26, 12)}),
        ("closed on 24, 25 & 26 December", {(24, 12), (25, 12), (26, 12)}),
        ("no sailings on 25 December and 1 January", {(25, 12), (1, 1)}),
        ("open again December 27th", {(27, 12)}),
        ("Q4 2026 December figures", set()),  # a year is no day
        ("1.5 December", set()),
    ],
)  # fmt: skip
def test_a_date_is_read_by_its_day_and_month(text: str, dates: set[tuple[int, int]]) -> None:
    assert stated_dates(text) == dates


def test_r3_an_acronym_the_evidence_spells_out_is_covered() -> None:
    """A knowledge base of my own: "Is MFA needed for the VPN?" was asked back ("the
    documents may not cover MFA") beside a policy on "Multi-factor authentication"."""
    text = "Multi-factor authentication is required for email and the VPN."
    coverage, covered, missing = coverage_score("Is MFA needed for the VPN?", [text])
    assert "mfa" in covered and "mfa" not in missing
    before = coverage_score("Is MFA needed for the VPN?", [text], acronyms=False)
    assert "mfa" in before[2] and before[0] < coverage  # earlier rows replay as written
