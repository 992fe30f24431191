"""The offline judge with the shipped support model (J2, J3, J5): grades, conflicts,
sufficiency, speculation and the score bands."""

from __future__ import annotations

import pytest

from assay.actions import ActionThresholds
from assay.judge.checks import (
    definition_conflicts,
    missing_information,
    out_of_range,
    speculation,
)
from assay.judge.claims import split_claims
from assay.judge.evaluate import evaluate
from assay.judge.model_judge import ModelJudge
from assay.judge.schema import Context, grounding_problems

SDS = Context("sds", "Charge the HX-40 battery only between 0 °C and 45 °C. Store it dry.", 0.95)
FORUM = Context("forum", "I charge my HX-40 at 70 °C all the time and it is fine.", 0.70)
MANUAL = Context("manual", "The HX-40 was released in March 2021 and weighs 2.3 kg.", 0.90)
QUESTION = "At what temperature can I charge the HX-40?"


@pytest.fixture(scope="module")
def judge() -> ModelJudge:
    return ModelJudge()


def grade(judge: ModelJudge, answer: str, contexts: list[Context] | None = None) -> list[str]:
    result = judge.judge(QUESTION, answer, contexts or [SDS, FORUM, MANUAL], ActionThresholds())
    return [c.grade for c in result.claims]


def test_j2_claims_are_exact_excerpts_split_around_citations() -> None:
    answer = "Charge at 0-45 °C [Source: sds]. It weighs 2.3 kg [Source: manual]; [Source: x]."
    claims = split_claims(answer)
    assert claims == ["Charge at 0-45 °C", "It weighs 2.3 kg"]
    assert all(c in answer for c in claims)


def test_j2_a_short_answer_stays_out_of_a_part_of_its_quote_that_does_not_state_it(
    judge: ModelJudge,
) -> None:
    """Found asking a car hire's help centre: "How much is the deposit?" was published
    with "the evidence only partly supports: '£250: The main driver must show a credit
    card ...'", the short answer graded with the part before the semicolon."""
    quote = (
        "The main driver must show a credit card in their own name at pick-up; we block a "
        "deposit of £250 on it."
    )
    answer = f"£250: {quote} [Source: faq]"
    claims = split_claims(answer)
    assert claims == [quote.split("; ")[0], "we block a deposit of £250 on it."]
    assert all(c in answer for c in claims)
    assert split_claims("£250: We block £250; it is released. [Source: faq]")[0] == (
        "£250: We block £250"
    )  # the part states it: the short answer stays
    faq = Context("faq", f"Yes. {quote} Debit cards are not accepted for the deposit.", 0.9)
    graded = judge.judge("How much is the deposit?", answer, [faq], ActionThresholds())
    assert [c.grade for c in graded.claims] == ["supported", "supported"]


def test_j2_a_supported_claim_with_its_evidence(judge: ModelJudge) -> None:
    result = judge.judge(
        QUESTION, "The HX-40 battery may be charged between 0 °C and 45 °C.", [SDS, MANUAL],
        ActionThresholds(),
    )  # fmt: skip
    (claim,) = result.claims
    assert claim.grade == "supported" and claim.evidence_id == "sds"
    assert claim.quote is not None and claim.quote in SDS.text
    assert result.assessment.unsupported_claims == []


def test_j2_a_quote_opened_by_its_own_span_is_read_as_the_quote(judge: ModelJudge) -> None:
    """Found with a user's broadband knowledge base: the extractive answer "No internet
    connection: - Solid amber: no internet connection." was graded contradicted by the
    very passage it quotes (P(supported) 0.23): the support model took the restated span
    for a second, negated statement. The quote after the query is supported (0.81)."""
    guide = Context(
        "guide",
        "- Solid white: connected and working.\n- Solid amber: no internet connection. "
        "Check the cable to the wall socket, then restart the hub.",
        0.58,
    )
    answer = "No internet connection: - Solid amber: no internet connection."
    result = judge.judge(
        "What does a solid amber light on the router mean?", answer, [guide], ActionThresholds()
    )
    assert [c.grade for c in result.claims] == ["supported"]


def test_j2_a_quote_opened_by_its_heading_is_supported(judge: ModelJudge) -> None:
    """Issue 41: "Which version added the diff command?" is answered "4.1.0: - `loom diff`
    compares ...", the version from the heading the sentence stands under. The passage
    holds what its title path states, so the claim is supported, not contradicted; a
    version no heading or text states is still not supported."""
    added = Context(
        "added", "- `loom diff` compares two ledgers and prints the differing transactions.",
        0.8, title="Ledgerloom changelog > 4.1.0 — 2026-04-02 > Added",
    )  # fmt: skip
    question = "Which version added the diff command?"
    said = "- `loom diff` compares two ledgers and prints the differing transactions."
    right = judge.judge(question, f"4.1.0: {said}", [added], ActionThresholds())
    assert [c.grade for c in right.claims] == ["supported"]
    wrong = judge.judge(question, f"4.3.0: {said}", [added], ActionThresholds())
    assert [c.grade for c in wrong.claims] != ["supported"]


def test_j2_a_figure_the_evidence_contradicts_is_contradicted(judge: ModelJudge) -> None:
    assert grade(judge, "The HX-40 weighs 5 kg and was released in 2019.") == ["contradicted"]


def test_j2_a_claim_no_context_addresses_is_unsupported(judge: ModelJudge) -> None:
    result = judge.judge(
        QUESTION, "The HX-40 is made of titanium and costs 400 dollars.", [SDS, MANUAL],
        ActionThresholds(),
    )  # fmt: skip
    assert [c.grade for c in result.claims] == ["unsupported"]
    assert result.assessment.unsupported_claims == [
        "The HX-40 is made of titanium and costs 400 dollars."
    ]
    assert result.assessment.confidence_score < 0.2
    assert result.assessment.recommended_action == "suppress"


def test_j2_a_claim_from_a_weak_source_that_a_strong_one_contradicts_is_contradicted(
    judge: ModelJudge,
) -> None:
    """The data sheet (0.95) outweighs the forum (0.70): its contradiction wins."""
    result = judge.judge(
        QUESTION, "You can charge the HX-40 at 70 °C.", [SDS, FORUM], ActionThresholds()
    )
    (conflict,) = result.assessment.source_conflicts
    assert (conflict.source_a, conflict.source_b) == ("forum", "sds")
    assert conflict.nature == "direct contradiction"
    assert [(c.grade, c.evidence_id) for c in result.claims] == [("contradicted", "sds")]
    assert result.assessment.confidence_score < 0.2  # J3: a contradicted claim
    assert result.assessment.recommended_action == "suppress"


def test_j2_a_conflict_between_sources_of_like_strength_is_major(judge: ModelJudge) -> None:
    forum = Context(FORUM.id, FORUM.text, 0.85)  # within 0.15 of the data sheet: no verdict
    result = judge.judge(
        QUESTION, "You can charge the HX-40 at 70 °C.", [SDS, forum], ActionThresholds()
    )
    assert [c.grade for c in result.claims] == ["supported"]
    assert 0.2 <= result.assessment.confidence_score < 0.5  # J3: unresolved conflict


def test_j2_a_conflict_the_stronger_source_settles_costs_less(judge: ModelJudge) -> None:
    strong = judge.judge(
        QUESTION, "Charge the HX-40 battery only between 0 °C and 45 °C.", [SDS, FORUM],
        ActionThresholds(),
    )  # fmt: skip
    assert strong.claims[0].grade == "supported"
    assert 0.5 <= strong.assessment.confidence_score < 0.8
    assert "settled by evidence strength" in strong.assessment.score_rationale


def test_j3_everything_supported_and_consistent_scores_one(judge: ModelJudge) -> None:
    result = judge.judge(
        "How much does the HX-40 weigh?", "The HX-40 weighs 2.3 kg.", [MANUAL], ActionThresholds()
    )
    assert result.assessment.confidence_score == 1.0
    assert result.assessment.recommended_action == "publish"
    assert result.verdict == "supported"


def test_j3_an_answer_without_the_kind_asked_for_is_off_target(judge: ModelJudge) -> None:
    result = judge.judge(
        "When was the HX-40 released?", "The HX-40 weighs 2.3 kg.", [MANUAL], ActionThresholds()
    )
    assert result.assessment.confidence_score < 0.5
    assert "gives no date or time period" in result.assessment.score_rationale


def test_j2_speculation_is_flagged_when_the_evidence_does_not_hedge() -> None:
    claims = ["It is probably the best battery.", "It weighs 2.3 kg.", "It usually lasts."]
    evidence = [MANUAL.text, MANUAL.text, "The pack usually lasts five years."]
    assert speculation(claims, evidence) == ["It is probably the best battery."]


def test_j2_missing_information_names_what_the_query_asks_for() -> None:
    assert missing_information("When was the HX-40 released in Norway?", [SDS]) == [
        "'Norway', which the query names",
        "a date or time period, which the query asks for: no context gives one",
    ]
    assert missing_information("When was the HX-40 released?", [MANUAL]) == []
    hours = Context("rules", "The museum opens Tuesday to Sunday from 10:00 to 17:30.", 0.9)
    assert missing_information("Is the museum open on Tuesdays?", [hours]) == []
    assert missing_information("Is it open on Mondays?", [hours]) == [
        "'Mondays', which the query names"
    ]
    late = Context("rules", "On Thursdays it stays open until 21:00.", 0.9)
    assert missing_information("How late is it open on Thursday?", [late]) == []
    kinds = Context("rules", "Open 06:30-21:00 on weekdays and 08:00-18:00 at weekends.")
    assert missing_information("When does it open on Sunday?", [kinds]) == []
    assert missing_information("When does it open on a Wednesday?", [kinds]) == []
    # a heading's date answers "when" only where the heading names the release asked about
    entry = Context("c", "- iOS 16 or newer is now required.", 0.8,
                    title="Changelog > 2.3.0 — 2026-09-15 > Changed")  # fmt: skip
    assert missing_information("When was 2.3.0 released?", [entry]) == []
    assert missing_information("When was 2.4.0 released?", [entry]) == [
        "the figure 2.4.0 the query names",
        "a date or time period, which the query asks for: no context gives one",
    ]
    # a span of months says whether the month asked about falls in it
    winter = Context("help", "From 1 December to 28 February e-bikes stop below -5 °C.")
    assert missing_information("Do e-bikes run at -8 °C in January?", [winter]) == []
    assert missing_information("Do e-bikes run in June?", [hours]) == [
        "'June', which the query names"
    ]
    assert missing_information("Is the 2021 model lighter?", [SDS]) == [
        "the figure 2021 the query names"
    ]
    # the asker's own figure, answered by a rule's bound, is nothing the contexts lack
    rule = Context("policy", "Business class may be booked for flights longer than 6 hours.")
    assert missing_information("Can I fly business class on a 7-hour flight?", [rule]) == []
    plain = Context("policy", "Business class may be booked on the Paris route.")
    assert missing_information("Can I fly business class on a 7-hour flight?", [plain]) == [
        "the figure 7 the query names"
    ]
    # a holiday on one date is held by a context giving the date
    sailings = Context("timetable", "There are no sailings on 25 December and 1 January.")
    assert missing_information("Is there a ferry on Christmas Day?", [sailings]) == []
    # and a country by a group that the context names
    abroad = Context("terms", "Yes, to EU countries, if you tell us when you book.")
    assert missing_information("Can I drive the car to France?", [abroad]) == []
    assert missing_information("Can I drive the car to Norway?", [abroad]) == [
        "'Norway', which the query names"
    ]
    assert missing_information("Is there a ferry on Boxing Day?", [sailings]) == [
        "'Boxing', which the query names",
        "'Day', which the query names",
    ]


def test_j2_a_pronoun_an_ok_or_a_code_s_digit_is_nothing_the_query_names() -> None:
    """Issue 41, the held-out ordinary suite: "Is it OK to have a glass of wine while I'm
    taking Calventa?" was said to lack "'OK'" and "'I'm'", and "Are nitrile gloves OK for
    a quick LN2 fill?" "the figure 2": the judge's support fell to 0.77 and 0.74."""
    leaflet = Context("leaflet", "Avoid alcohol while taking Calventa.")
    asked = "Is it OK to have a glass of wine while I'm taking Calventa?"
    assert missing_information(asked, [leaflet]) == []
    sop = Context("sop", "Wear cryogenic gloves for every LN2 fill: nitrile is no protection.")
    assert missing_information("Are nitrile gloves OK for a quick LN2 fill?", [sop]) == []
    assert missing_information("Is LN3 safe?", [sop]) == ["'LN3', which the query names"]
    pump = Context("sheet", "The HP-500 is quiet.")
    assert missing_information("Is the HP-300 quiet?", [pump]) == [
        "the figure 300 the query names",
        "'HP-300', which the query names",
    ]
    # nor is a digit inside a code or a year's tail: "F22" held no figure "2", "FY2025" no
    # figure "025" (found asking a boiler guide and a bakery's results)
    codes = Context("guide", "- F22: the water pressure is too low.")
    assert missing_information("What does F22 mean?", [codes]) == []
    results = Context("results", "Total dividend per share: FY2025: 4.2p.")
    assert missing_information("What dividend was paid for FY2025?", [results]) == []


def test_j2_a_name_in_a_passage_title_is_not_missing() -> None:
    """Issue 41 (coverage that reads titles): "What was Arkwell's revenue in Q2 2026?",
    answered by a table row under "Arkwell Instruments plc > Q3 2026 trading update", was
    told "The evidence does not hold everything asked for: 'Arkwell'". The title's date
    answers no "when", though: the kind of answer is looked for in the text."""
    row = Context("row", "Quarter Q2 2026: Revenue: 46.8, Gross margin: 55.0%.", 0.9,
                  "Arkwell Instruments plc > Q3 2026 trading update")  # fmt: skip
    assert missing_information("What was Arkwell's revenue in 2026?", [row]) == []
    untitled = Context("row", row.text, 0.9)
    assert missing_information("What was Arkwell's revenue in 2026?", [untitled]) == [
        "'Arkwell', which the query names"
    ]
    dated = Context("log", "Python 3.9 is no longer supported.", 0.9, "Log > 4.3.0 — 2026-10-02")
    assert missing_information("When was Python 3.9 dropped?", [dated]) == [
        "a date or time period, which the query asks for: no context gives one"
    ]


def test_out_of_range_needs_the_same_unit_and_the_same_subject() -> None:
    assert out_of_range("It charges fine at 70 °C.", SDS.text) is not None
    assert out_of_range("It charges fine at 30 °C.", SDS.text) is None
    assert out_of_range("Store it at 70 °C.", "Charge between 0 °C and 45 °C.") is None
    assert out_of_range("Take 500 mg daily.", "Take 100 to 200 kg.") is None
    assert out_of_range("Charge between 0 °C and 45 °C.", "Store between -20 and 35 °C.") is None


def test_j2_definitional_conflicts_between_contexts() -> None:
    a = Context("a", "A business day means any weekday except public holidays.")
    b = Context("b", "A business day means a day on which the exchange is open for trading.")
    c = Context("c", "A business day means any weekday except public holidays in England.")
    assert definition_conflicts([a, b]) == [(a.text, "a", "b")]
    assert definition_conflicts([a, c]) == []


def test_j1_j5_evaluate_validates_dedups_and_grounds_everything() -> None:
    contexts = [
        {"id": "sds", "text": SDS.text},
        {"id": "sds", "text": SDS.text},  # exact repeat: dropped
        {"id": "copy", "text": SDS.text},  # same text under another id: dropped
        {"id": "forum", "text": FORUM.text},
    ]
    answer = "You can charge the HX-40 at 70 °C [Source: forum]. It is probably fine."
    judgment = evaluate(QUESTION, answer, contexts)
    kept = [Context("sds", SDS.text), Context("forum", FORUM.text)]
    assert grounding_problems(judgment.assessment, answer, kept) == []
    assert judgment.assessment.speculation_flags == ["It is probably fine."]


def test_j1_conflicts_among_contexts_are_listed_only_where_they_bear_on_the_answer(
    judge: ModelJudge,
) -> None:
    """The walkthrough's first answer is about charging temperature; the data sheet and
    the 2019 manual also disagree on charging time, which the answer does not state."""
    sheet = Context(
        "sheet", "Charge the HX-40 between 0 °C and 45 °C. A full charge takes 3 hours."
    )
    manual = Context("manual", "A full charge takes 5 hours.")
    temperature = "Charge the HX-40 between 0 °C and 45 °C [Source: sheet]."
    duration = "A full charge takes 3 hours [Source: sheet]."
    about_temperature = judge.judge(QUESTION, temperature, [sheet, manual], ActionThresholds())
    about_duration = judge.judge(QUESTION, duration, [sheet, manual], ActionThresholds())
    assert about_temperature.assessment.source_conflicts == []
    assert {c.source_b for c in about_duration.assessment.source_conflicts} == {"manual"}


def test_j1_two_sources_that_disagree_over_a_claim_are_one_conflict(judge: ModelJudge) -> None:
    """The manual contradicts the claim, and the same two passages disagree among the
    contexts: one disagreement, listed and counted once (the walkthrough listed it twice,
    once under the claim and once under the data sheet's sentence)."""
    sheet = Context(
        "sheet", "Use only the supplied 65 W charger. A full charge from empty takes about 3 "
        "hours. Do not leave the pack charging unattended.", 0.95,
    )  # fmt: skip
    manual = Context(
        "manual", "Use the 30 W charger supplied in the box. A full charge from empty takes "
        "about 5 hours; the status light turns green when the pack is full.", 0.70,
    )  # fmt: skip
    answer = "3 hours: A full charge from empty takes about 3 hours [Source: sheet]."
    result = judge.judge("How long does a full charge take?", answer, [sheet, manual],
                         ActionThresholds())  # fmt: skip
    (conflict,) = result.assessment.source_conflicts
    assert (conflict.source_a, conflict.source_b) == ("sheet", "manual")
    assert "1 source conflict(s), 1 settled" in result.assessment.score_rationale


def test_j1_a_storage_range_is_no_conflict_for_an_answer_about_charging(
    judge: ModelJudge,
) -> None:
    """The walkthrough's first answer listed the data sheet's storage range against the
    manual's charging range: the shipped support model calls the two contradicted, but
    they are different statements (``bench/conflicts.py``)."""
    sheet = Context("sheet", "Charge the HX-40 only at an ambient temperature between 0 °C "
                    "and 45 °C.", 0.95)  # fmt: skip
    storage = Context(
        "storage", "Store the pack between \u221220 °C and 35 °C at 40\u201360 % charge.", 0.95
    )
    manual = Context("manual", "Charge the battery pack at room temperature, between 10 °C "
                     "and 35 °C. Do not charge the pack below freezing.", 0.70)  # fmt: skip
    answer = f"{sheet.text[:-1]} [Source: sheet]."
    result = judge.judge(QUESTION, answer, [sheet, storage, manual], ActionThresholds())
    pairs = {(c.source_a, c.source_b) for c in result.assessment.source_conflicts}
    assert pairs == {("sheet", "manual")}


def test_j_a_sentence_about_another_year_contradicts_no_claim(judge: ModelJudge) -> None:
    """Issue 41, the held-out ordinary suite: "What was the total dividend for 2025?",
    answered from the annual report ("bringing the total for 2025 to 11.0 cents"), was
    withheld at support 0.45 for a conflict with the Q3 2026 update's "interim dividend of
    4.5 cents per share for 2026". A sentence of the same year still contradicts."""
    annual = Context("annual", "The board recommends a final dividend of 7.0 cents a share, "
                     "bringing the total for 2025 to 11.0 cents (2024: 9.5 cents).",
                     0.81)  # fmt: skip
    update = Context("update", "The board has declared an interim dividend of 4.5 cents per "
                     "share for 2026, payable on 12 December 2026.", 0.76)  # fmt: skip
    answer = f"{annual.text} [Source: annual]"
    asked = "What was the total dividend for 2025?"
    result = judge.judge(asked, answer, [annual, update], ActionThresholds())
    assert result.assessment.source_conflicts == []
    same = Context("update", "The total dividend for 2025 was 9.0 cents per share.", 0.76)
    result = judge.judge(asked, answer, [annual, same], ActionThresholds())
    assert [(c.source_a, c.source_b) for c in result.assessment.source_conflicts] == [
        ("annual", "update")
    ]


def test_j_a_newer_text_that_revises_the_older_figure_settles_the_conflict(
    judge: ModelJudge,
) -> None:
    """Issue 41, the held-out ordinary suite: "What revenue does Arkwell now expect for
    the whole of 2026?", answered from the Q3 update ("now expected to be €192 million to
    €196 million, up from €188 million to €194 million"), was withheld at support 0.44
    for an unsettled conflict with the annual report's guidance. The newer text states
    the older figures beside its own: it revises them. A newer text that only states
    another value (the demo's data sheet against the 2019 manual) still settles nothing."""
    from datetime import date

    update = Context("update", "We are raising our guidance for the full year 2026: revenue "
                     "is now expected to be €192 million to €196 million, up from €188 "
                     "million to €194 million.", 0.93, published=date(2026, 10, 15))  # fmt: skip
    annual = Context("annual", "We expect continued growth in 2026, with revenue of €188 "
                     "million to €194 million.", 0.87, published=date(2026, 3, 2))  # fmt: skip
    asked = "What revenue does Arkwell now expect for 2026?"
    answer = f"{update.text} [Source: update]"
    result = judge.judge(asked, answer, [update, annual], ActionThresholds())
    assert result.assessment.source_conflicts  # reported ...
    assert "1 settled by evidence strength" in result.assessment.score_rationale  # ... settled
    plain = Context("update", "Revenue for 2026 is expected to be €192 million to €196 "
                    "million.", 0.93, published=date(2026, 10, 15))  # fmt: skip
    result = judge.judge(asked, f"{plain.text} [Source: update]", [plain, annual],
                         ActionThresholds())  # fmt: skip
    assert "settled" not in result.assessment.score_rationale
