"""What the evidence lacks, said in words a reader accepts, and the short answer a
question asks for (issue: coverage that understands; answers as short as the question
wants)."""

from __future__ import annotations

import pytest

from assay.answer.expected import expected_kind
from assay.answer.gaps import evidence_gaps, subject_terms
from assay.answer.short import lead_value, short_answer, whole_figure


def test_a_hedge_never_names_the_words_that_frame_the_question() -> None:
    # "how long" asks for a duration; the data sheet states one in other words
    assert (
        evidence_gaps(
            "How long does a full charge of the HX-40 take?",
            ["long", "take"],
            ["A full charge from empty takes about 3 hours."],
        )
        == []
    )
    assert evidence_gaps(  # bringing carries the question as taking does
        "Can we bring our own drinks and glasses?",
        ["bring", "glasses"],
        ["You may serve your own drinks free of charge to guests."],
    ) == ["'glasses'"]
    assert evidence_gaps(
        "What ambient temperature range is safe for charging?",
        ["safe", "temperature", "range"],
        ["Charge only between 0 °C and 45 °C."],
    ) == ["'range'"]


def test_a_missing_answer_type_is_named_as_the_type() -> None:
    gaps = evidence_gaps(
        "How long does a full charge of the HX-40 take?",
        ["long", "take"],
        ["Charge only between 0 °C and 45 °C."],
    )
    assert gaps == ["a duration or length"]


def test_subject_terms_keep_names_and_things() -> None:
    assert subject_terms(["warranty", "normal", "hx-40", "recommended", "cells"]) == [
        "warranty",
        "hx-40",
        "cells",
    ]


@pytest.mark.parametrize(
    ("question", "sentence", "expected"),
    [
        ("When was the bridge opened?", "The bridge was opened on 12 May 1932 by the king.",
         "12 May 1932"),
        ("How long does a full charge take?", "A full charge from empty takes about 3 hours.",
         "about 3 hours"),
        ("How many people live in Warsaw?", "Warsaw had 1.7 million inhabitants in 2014.",
         "1.7 million"),
        ("What temperature is safe for charging?",
         "Charge only at an ambient temperature between 0 °C and 45 °C.",
         "between 0 °C and 45 °C"),
        ("Who designed the bridge?",
         "The Sydney bridge was designed by John Bradfield in 1916.", "John Bradfield"),
        ("How much does parking cost per day?",
         "Parking costs GBP 2.50 per hour, capped at GBP 12 per day.", "GBP 12"),
        ("How much does a ticket cost?", "A ticket costs 14 EUR at the desk.", "14 EUR"),
        ("How long are daily snapshots kept?",  # "weekly" opens the next part, no period
         "It keeps daily snapshots for 30 days, weekly snapshots for 12 weeks and monthly "
         "snapshots for 24 months.", "30 days"),
        ("At what amount owed is a card blocked?",
         "10.1 A card is blocked when charges owed reach £10.", "10"),
        ("How many people live there?", "4.1 million people live there.", "4.1 million"),
        ("How often is the blue bin collected?", "Blue bins are collected every other week.",
         "every other week"),
        ("How often do I need to give a meter reading?",
         "Send us a meter reading at least once every 3 months.", "once every 3 months"),
        ("How often do I swap the batteries?", "The batteries last about 12 months.",
         "about 12 months"),
        ("What does the pack weigh?", "The pack weighs 2.1 kg.", "2.1 kg"),
        ("How many new shops opened?", "Revenue rose to £162.5m, and 17 new shops opened.",
         "17"),  # a count, not the price beside it
        ("How far will it go on one charge?", "Range: up to 95 km, or 4.5 h of riding.",
         "up to 95 km"),
        ("How heavy is the Haul?", "The Haul weighs 31.6 kg and carries 80 kg on its rack.",
         "31.6 kg"),
        ("What time must essays be handed in?",
         "Essays are due on Friday 30 April 2027 at 12:00 noon.", "12:00 noon"),
        ("What is the charge for a loan request?", "A loan request costs £4.00 within 2 weeks.",
         "£4.00"),
        ("What is the daily standing charge for gas?",  # pence after the figure
         "Fuel Gas: Unit rate: 6.3p per kWh, Standing charge: 31.4p per day.", "31.4p"),
        ("When will I get my final bill after moving?",
         "Give us a final reading on the day you move, and we will send your final bill "
         "within 6 weeks.", "within 6 weeks"),
        # what a thing costs, not the amount it changes another to; asked for that other
        # amount, that one
        ("How much is excess reduction cover?",
         "Excess reduction cover lowers the excess to £100 and costs £18 per day.", "£18"),
        ("What does excess reduction cover cost?",
         "Excess reduction cover lowers the excess to £100 and costs £18 per day.", "£18"),
        ("How much is the excess with excess reduction cover?",
         "Excess reduction cover lowers the excess to £100 and costs £18 per day.", "100"),
        ("How much is the 2019 free cash flow?", "Free cash flow: 2019: 123.4, 2018: 99.0.",
         "123.4"),  # a table's bare figures, where no amount of money is written
        ("How long is company sick pay?",  # a length, not the window it is counted in
         "Company sick pay is full pay for up to 10 working days in any 12-month period, then "
         "statutory sick pay.", "up to 10 working days"),
        # of a span of hours, the end for a question about closing, the start for opening
        ("What time does the centre close in January?",
         "From October to March it is open 8am to 4pm.", "4pm"),
        ("What time do the gates open?", "Gates open 06:30 to 21:00 on weekdays.", "06:30"),
        ("What time is the desk staffed?", "It is staffed 8am to 4pm.", "8am to 4pm"),
        # opening hours ask for both ends (a nursery's handbook of my own: "50 weeks a year"
        # led), and so does "When is it open?"
        ("What are your opening hours?",
         "The nursery is open Monday to Friday, 08:00 to 18:00, for 50 weeks a year.",
         "08:00 to 18:00"),
        ("What time is the laundry room open?",
         "The laundry room is open from 08:00 to 21:00.", "08:00 to 21:00"),
        ("What colour is the pack?", "The pack is 2.1 kg of blue plastic.", None),  # no type
        ("When was it built?", "It was built long ago.", None),  # the sentence holds none
        ("Who founded Warsaw?", "Warsaw was founded by Boleslaw or by Konrad.", None),
    ],
)  # fmt: skip
def test_short_answers_state_the_type_asked_for(
    question: str, sentence: str, expected: str | None
) -> None:
    assert short_answer(question, sentence) == expected


def test_a_short_answer_is_never_the_questions_own_words() -> None:
    assert (
        short_answer("What happened in 1932 when the bridge opened?", "In 1932 it opened.") is None
    )


def test_a_term_the_evidence_says_in_another_form_is_no_gap() -> None:
    evidence = ["Short-circuiting, crushing or heating the pack can cause thermal runaway."]
    assert evidence_gaps("What happens if the pack overheats?", ["overheats"], evidence) == []
    # a short stem inside a longer word is not the same word
    assert evidence_gaps("What is the art?", ["art"], ["Start it now."]) == ["'art'"]
    # nor a word inside another: a price list of plans never mentions an implant
    prices = ["Treatment plans: a porcelain crown costs £450."]
    assert evidence_gaps("How much does an implant cost?", ["implant"], prices) == ["'implant'"]


def test_a_short_word_the_evidence_holds_is_no_gap() -> None:
    """A refusal told the reader to add documents about 'late' and 'bike' to a knowledge
    base with a "Late returns" section on bikes: words of short stems ("lat", "bik")
    were never matched, not even by themselves."""
    texts = ["Rental terms > Late returns\nBikes returned late are charged EUR 12 an hour."]
    question = "What do I pay if I bring the bike back late?"
    gaps = evidence_gaps(question, ["pay", "bring", "bike", "late"], texts)
    assert gaps == ["'pay'"]  # "bring" carries the question (since 2026-12-08)


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("Which day is recycling collected?", "Thursday"),
        ("Which day is general waste collected?", "Monday"),
    ],
)
def test_of_coordinated_values_the_one_in_the_part_about_the_asked_thing(
    question: str, day: str
) -> None:
    """Both days have "collected" and "recycling" within reach; the part of the sentence
    that names recycling holds Thursday, and the shared verb says nothing of which."""
    sentence = "General waste is collected every Monday and recycling every Thursday."
    assert short_answer(question, sentence) == day
    assert (
        short_answer(
            question, "Recycling is collected every Thursday and general waste every Monday."
        )
        == day
    )


@pytest.mark.parametrize(
    ("question", "span", "expected"),
    [
        ("What time do you close?", "Monday to Friday, 08:00 to 18:00", "18:00"),
        ("What time do you open?", "Monday to Friday, 08:00 to 18:00", "08:00"),
        ("When is the nursery open?", "Monday to Friday, 08:00 to 18:00",
         "Monday to Friday, 08:00 to 18:00"),
        ("What are your opening hours?", "50 weeks a year", "08:00 to 18:00"),
    ],
)  # fmt: skip
def test_the_asked_end_of_the_hours_leads_and_a_span_of_another_kind_does_not(
    question: str, span: str, expected: str
) -> None:
    """A nursery's handbook of my own: "What time do you close?" led with the reader's
    "Monday to Friday, 08:00 to 18:00", and "What are your opening hours?" with its "50
    weeks a year", a span that holds no time of day at all."""
    sentence = "The nursery is open Monday to Friday, 08:00 to 18:00, for 50 weeks a year."
    assert lead_value(question, sentence, span, expected_kind(question)) == expected


def test_a_figure_split_at_its_comma_leads_whole() -> None:
    """The reader's word pieces split "£1,589.83" at the comma and "£1" led the answer."""
    question = "How much of a band D bill goes to the county?"
    sentence = "Of a Band D bill, £1,589.83 goes to the county and £302.51 to the police."
    assert lead_value(question, sentence, "£1", expected_kind(question)) == "£1,589.83"
    assert whole_figure("It weighs 3.5 kg.", "3") == "3.5"
    assert whole_figure("Pick 1, 2 or 3.", "1") == "1"  # a list is no figure
    assert whole_figure("It came out in 2026. Then", "2026") == "2026"


def test_of_days_listed_every_one_leads() -> None:
    """ "Which days can my Direct Debit come out?" led with the reader's "22nd of the
    month", one of four days the sentence lists."""
    question = "Which days can my Direct Debit come out?"
    sentence = "Direct Debit payments can be taken on the 1st, 8th, 15th or 22nd of the month."
    days = "1st, 8th, 15th or 22nd of the month"
    assert short_answer(question, sentence) == days
    assert lead_value(question, sentence, "22nd of the month", expected_kind(question)) == days


def test_a_change_asked_is_no_figure_of_a_sentence_without_one() -> None:
    """ "How much will the rent go up?" led with the "1" of "from 1 March 2026"."""
    question = "How much will the rent go up next March?"
    assert short_answer(question, "The tenancy runs for 12 months, from 1 March 2026.") is None
    assert short_answer(question, "The rent rises by 3% each March.") == "3%"


def test_a_count_of_the_things_a_where_question_names_does_not_lead() -> None:
    """Found asking a theatre's access page: "Where are the wheelchair spaces?" led with the
    reader's "Four wheelchair spaces" (the quote says where: "in the stalls (row K)");
    "How many ...?" keeps it, and a place still leads a where-question."""
    sentence = "There are four wheelchair spaces in the stalls (row K) and two in the Studio."
    where, many = "Where are the wheelchair spaces?", "How many wheelchair spaces are there?"
    assert lead_value(where, sentence, "four wheelchair spaces", expected_kind(where)) is None
    assert lead_value(many, sentence, "four wheelchair spaces", expected_kind(many)) is not None
    station = "The nearest station is Hollinsford Central, a 10-minute walk."
    question = "Where is the nearest station?"
    assert lead_value(question, station, "Hollinsford Central", None) == "Hollinsford Central"


def test_one_item_of_a_list_the_question_does_not_pick_never_leads() -> None:
    """Found asking a hospital's pages of my own: "What time is lunch served?" led with
    "08:00" of "Meals are served at 08:00, 12:30 and 17:30" (breakfast's). Nothing in the
    sentence says which is lunch, so the sentence answers alone; a range ("between 02:00
    and 04:00") is one value, and a rule before its case ("every 2 months, or every
    month if ...") keeps its lead."""
    lunch, meals = "What time is lunch served?", "Meals are served at 08:00, 12:30 and 17:30."
    assert short_answer(lunch, meals) is None
    assert lead_value(lunch, meals, "08:00", expected_kind(lunch)) is None
    refill = "The vessel is refilled by the supplier every Tuesday and Friday morning."
    assert short_answer("When is the vessel refilled?", refill) is None
    window = "Updates install between 02:00 and 04:00 local time."
    assert short_answer("When do updates install?", window) == "02:00"
    descale = "Descale the machine every 2 months, or every month if you live in a hard water area."
    assert short_answer("How often should I descale it?", descale) == "every 2 months"
    shifts = "Breakfast is at 08:00 and dinner at 18:00."
    assert short_answer("What time is dinner?", shifts) == "18:00"


def test_a_table_rows_header_or_column_name_never_leads() -> None:
    """Found reading what the fitting suite's right answers led with: the reader's span
    of a table row was often what the row is about ("Plan Fibre 500", "Seating area
    Stalls") or what a cell holds ("Value"), and a clause's number ("5.1") led a
    sentence of terms. The row's value leads instead, or none."""
    plan = "Plan Fibre 500: Average download: 500 Mbps, Monthly price: £34."
    question = "How much is Fibre 500 a month?"
    assert lead_value(question, plan, "Plan Fibre 500", expected_kind(question)) == "£34"
    which = "Which plan has unlimited data?"  # asks for the header's value
    assert (
        lead_value(which, "Plan Max: Data: Unlimited, Price per month: £22.", "Max", None) == "Max"
    )
    pump = "Item Pump pressure: Value: 15 bar."
    assert lead_value("What pressure is the pump?", pump, "Value", None) is None
    freeze = "5.1 You may freeze your membership for a maximum of 3 months in any year."
    question = "What is the longest I can freeze my membership for?"
    assert lead_value(question, freeze, "5.1", expected_kind(question)) != "5.1"
    # a figure inside the header says what the row is about: "How much is the mini
    # digger for a day?" led with "1.5" of "Mini digger (1.5 t)" (a tool hire's rates)
    digger = "Tool Mini digger (1.5 t): 1 day: £165, Extra day: £110, Week: £520."
    question = "How much is the mini digger for a day?"
    assert lead_value(question, digger, "1.5", expected_kind(question)) == "£165"


def test_a_count_leads_with_the_figure_that_counts_what_is_asked_or_none() -> None:
    """ "How many funds can I choose from?" counts funds, not the "10 years" beside them;
    where two figures count it ("1 tablet every 8 hours ... 2 tablets") nothing says which
    answers, and none leads. A figure of the question is its own only as a whole figure:
    the "1" of "1 tablet" is not the "14" of "my 14-year-old"."""
    funds = "There are 12 other funds, moved into lower-risk ones over the 10 years before."
    assert short_answer("How many funds can I choose from?", funds) == "12"
    dose = "Who Adolescents 12 to 17 years: Dose: 1 tablet every 8 hours, Most: 2 tablets."
    question = "My 14-year-old has a toothache. How many tablets can she have?"
    assert short_answer(question, dose) is None
    assert lead_value(question, dose, None, expected_kind(question)) is None
    assert short_answer("My 14-year-old is ill. How many tablets?", "Take 1 tablet.") == "1"
    # the figure that counts more of what is asked answers; the reader's odd span of a
    # list of counts does not lead (SQuAD 2.0's test articles)
    schools = "As of August 2010, Victoria had 1,548 public schools, 489 Catholic schools."
    question = "By August 2010 how many public schools did Victoria have?"
    assert short_answer(question, schools) == "1,548"
    assert lead_value(question, schools, "548 public schools, 489", expected_kind(question)) is None
    # two that count it, told apart by the question's other words ("Zone A"), keep a lead
    zones = "Buy up to 50 vouchers a year in Zones A and B, and 100 vouchers in Zones C and D."
    question = "How many vouchers can a household in Zone A buy a year?"
    assert short_answer(question, zones) == "50"
