"""A question's own count past the bound its answer states (issue 41, found asking a
council's waste guide: "How much does it cost to collect 5 bulky items?" was answered
"£35", the price of up to three)."""

from __future__ import annotations

import pytest

from assay.answer.bounds import (
    asks_limit,
    exceeds_bound,
    falls_short,
    in_range,
    meets_bound,
    meets_condition,
    per_each,
    states_bound,
    states_limit,
)
from assay.answer.cases import meeting_case
from assay.answer.choose import disagree
from assay.answer.expected import expected_kind
from assay.answer.extractive import ExtractiveAnswerer
from assay.answer.reading import named_row
from assay.answer.within import Sentence, bounding, of_holiday
from assay.judge.schema import Context
from assay.models.relevance import get_relevance_model

BULKY = "We collect up to 3 bulky items, such as a sofa, a mattress or a fridge, for £35."


@pytest.mark.parametrize(
    ("question", "sentence", "past"),
    [
        ("How much does it cost to collect 5 bulky items?", BULKY, True),
        ("How much to collect 2 bulky items?", BULKY, False),  # within the bound
        ("How much to collect 3 bulky items?", BULKY, False),
        ("How much to collect 5 sofas?", BULKY, False),  # another noun: no such bound
        ("Can I bring 8 guests?", "Members may bring up to 4 guests a month.", True),
        ("How much for a £5 item?", "Up to 3 items cost £2.", False),  # a price, no count
        ("What does it cost in 2026?", "Up to 3 items cost £2.", False),
    ],
)  # fmt: skip
def test_a_count_past_the_bound_is_found(question: str, sentence: str, past: bool) -> None:
    assert exceeds_bound(question, sentence) is past


def test_past_the_bound_the_rule_is_quoted_on_and_no_short_value_leads() -> None:
    text = f"{BULKY} Each further item costs £10, up to 6 items in total.\nBook online."
    bulky = Context("bulky", text, 0.9, title="Waste guide > Bulky items")
    answerer = ExtractiveAnswerer(get_relevance_model())
    five = answerer.answer("How much does it cost to collect 5 bulky items?", [bulky])
    assert five.short is None and not five.text.startswith("£35")
    assert "Each further item costs £10, up to 6 items in total. [Source: bulky]" in five.text
    assert "Book online" not in five.text  # the next line is another statement
    two = answerer.answer("How much does it cost to collect 2 bulky items?", [bulky])
    assert two.short == "£35" and "Each further item" not in two.text


def test_a_month_is_measured_against_weeks_and_the_case_left_after_is_quoted() -> None:
    """Found asking a holiday cottage's booking terms of my own: "What happens if we
    cancel a month before?" was published as "If you cancel more than 6 weeks before
    arrival you lose the deposit."; a month is less than 6 weeks, and the case left is
    the next sentence's "If you cancel later". Months still never meet days."""
    assert meets_condition("Can I cancel a month before?", "more than 6 weeks before") is False
    assert meets_condition("Can I cancel 2 months before?", "more than 6 weeks before") is True
    assert meets_condition("I've been here 8 months.", "trips of 10 days or more") is None
    terms = Context(
        "terms", "If you cancel more than 6 weeks before arrival you lose the deposit. If you "
        "cancel later, you pay the full price.", 0.8, title="Booking terms > Cancelling",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model())
    late = answerer.answer("What happens if we cancel a month before?", [terms])
    assert "If you cancel later, you pay the full price." in late.quoted, late.text
    early = answerer.answer("What happens if we cancel two months before?", [terms])
    assert "later" not in early.quoted, early.text


def test_past_the_next_bound_too_the_rule_is_quoted_on_to_the_one_it_meets() -> None:
    """Found in an airline's baggage policy of the fitting suite: "My suitcase weighs 35
    kg, can I check it in?" was published as the 23 kg allowance and the 23-32 kg fee,
    without the sentence after them that refuses bags over 32 kg."""
    bags = Context(
        "bags", "Each checked bag may weigh up to 23 kg. A bag over 23 kg and up to 32 kg "
        "costs £45 per bag per flight at the airport. Bags over 32 kg are not accepted.",
        0.8, title="Baggage policy 2026 > Checked bags",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model())
    heavy = answerer.answer("My suitcase weighs 35 kg, can I check it in?", [bags])
    assert "Bags over 32 kg are not accepted." in heavy.quoted
    fee = answerer.answer("My suitcase weighs 28 kg, can I check it in?", [bags])
    assert "costs £45" in fee.quoted and "not accepted" not in fee.quoted


def test_a_count_below_a_minimum_is_found() -> None:
    rule = "Full pay once you have worked for us for at least 12 months."
    assert falls_short("I've worked here for 8 months. Will I get full pay?", rule)
    assert not falls_short("I've worked here for 14 months. Will I get full pay?", rule)
    assert not falls_short("I'm 8. Will I get full pay?", rule)  # no months: another thing
    assert not exceeds_bound("I've worked here for 8 months. Will I get full pay?", rule)


def test_a_value_for_each_of_what_the_asker_counts_is_found() -> None:
    """From an employment contract of my own: "I've worked here 4 years, how much notice
    would the company give me?" led with the "1 month" that each year of service earns."""
    rule = "The company will give 1 month's notice for each complete year of service."
    assert per_each("I've worked here 4 years, how much notice would I get?", rule)
    assert not per_each("How much notice would the company give me?", rule)
    assert per_each("What does parking cost for 3 hours?", "It costs GBP 2.50 per hour.")
    assert not per_each("What does parking cost for 1 hour?", "It costs GBP 2.50 per hour.")


@pytest.mark.parametrize(
    ("value", "bound", "met"),
    [
        ("25", "more than 10 consecutive days", True),
        ("5", "more than 10 consecutive days", False),
        ("3", "up to 3 items", True),
        ("4", "at most 3 items", False),
        ("12 months", "at least 6 months", True),
        ("30 days", "28 days", False),  # no bound: two values
        ("3 or 4", "up to 5", False),  # not one figure
    ],
)
def test_a_value_within_a_bound_is_found(value: str, bound: str, met: bool) -> None:
    assert meets_bound(value, bound) is met


def test_a_value_within_a_rivals_bound_or_a_rate_is_no_disagreement() -> None:
    """Found asking an employment contract: "How many days of holiday do I get?" named
    the handbook's "more than 10 consecutive days" (which need a director's approval) as
    disagreeing with "25", and "How long is probation?" its "up to 2 days a week" (working
    from home) as disagreeing with "6 months"."""
    count = expected_kind("How many days of holiday do I get?")
    assert not disagree("25", "more than 10 consecutive days", count)
    assert disagree("5", "more than 10 consecutive days", count)
    duration = expected_kind("How long is probation?")
    assert not disagree("6 months", "up to 2 days a week", duration)
    assert disagree("6 months", "3 months", duration)


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Is mileage unlimited?", True),
        ("Is there a limit on how many guests I can bring?", True),
        ("Is there any maximum stay?", True),
        ("Is the data allowance limited?", True),
        ("Is mileage included?", False),
        ("How far can I drive per day?", False),
    ],
)  # fmt: skip
def test_a_question_whether_something_is_limited_is_told(question: str, asks: bool) -> None:
    assert asks_limit(question) is asks


def test_a_question_whether_something_is_limited_quotes_the_bound_rated_nearly_as_high() -> None:
    """Found asking a car hire's terms: "Is mileage unlimited?" quoted "Every extra mile
    costs 25p.", which the adapted relevance head rates a little above the bound beside
    it; the bound answers ("up to 150 miles per day"), and is what a forum's "unlimited"
    is named as disagreeing with. A bound rated far lower, or only in a less reliable
    source, does not take the lead."""
    terms = Context(
        "terms", "Each rental includes up to 150 miles per day. Every extra mile costs 25p.",
        0.57, "Rental terms > Mileage", "terms-2026", "official", reliability=1.0,
    )  # fmt: skip
    bound, extra = Sentence(terms, 0, 46, 0.205), Sentence(terms, 47, 74, 0.251)
    assert states_bound(bound.text) and not states_bound(extra.text)
    assert bounding(extra, [bound, extra]) == bound
    assert bounding(extra, [Sentence(terms, 0, 46, 0.1), extra]) == extra
    forum = Context(
        "forum", "You get up to 500 miles a day.", 0.6, "Forum", "forum", "unverified",
        reliability=0.25,
    )  # fmt: skip
    assert bounding(extra, [Sentence(forum, 0, 30, 0.25), extra]) == extra


CANCEL = "What do I get back if I cancel three days before I travel?"
FULL = "If you cancel 7 days or more before departure you get a full refund."
HALF = "If you cancel less than 7 days before, we refund half the fare."


@pytest.mark.parametrize(
    ("question", "sentence", "meets"),
    [
        (CANCEL, FULL, False),
        (CANCEL, HALF, True),
        (CANCEL, "Passengers who do not turn up get no refund.", None),  # no case
        (CANCEL, "Refunds reach your card within 5 working days.", True),
        ("Can I fly business on a 9-hour flight?", "Flights longer than 8 hours.", True),
        ("Can I fly business on a 9-hour flight?", "Flights of up to 8 hours.", False),
        ("My 70-year-old father travels with me.", "Seniors (65 years and over)", True),
        ("I've worked here for 8 months.", "Once you have worked at least 12 months.", False),
        ("I've worked here for 8 months.", "Trips of 10 days or more.", None),  # other unit
        # a week is 7 days, an hour 60 minutes (a campsite's terms of my own)
        ("Do I get my money back if I cancel a week before?",
         "If you cancel 28 days or less before arrival, you lose the deposit.", True),
        ("Do I get my money back if I cancel a week before?",
         "If you cancel more than 28 days before you arrive, we refund everything.", False),
        ("What if I'm an hour late?", "Returns up to 30 minutes late are free.", False),
        ("What does it cost?", FULL, None),  # the asker states no quantity
        # an age a rule starts or stops at (a pet insurer's summary of my own)
        ("Can I insure my 12 year old dog?", "Until your pet is 10 years old.", False),
        ("Can I insure my 12 year old dog?", "We insure dogs from 8 weeks old.", None),
        ("Can I insure my 6 week old puppy?", "We insure dogs from 8 weeks old.", False),
        ("Can my 17-year-old hire an e-bike?", "Riders aged 18 or over.", False),
        ("Can my 70-year-old mum come?", "Seniors aged 65 and over.", True),
        ("Can my 12 year old swim alone?", "Children aged under 16 need an adult.", True),
        ("Can my 12 year old swim alone?", "Under the age of 8, with an adult.", False),
        # an age the asker gives bare, and a rule's ages without the unit (a blood
        # service's guide of my own)
        ("I'm 68, can I still give blood?", "If you are over 70, you can keep donating.",
         False),
        ("I'm 68, can I still give blood?", "You can give if you are aged 17 to 70.", True),
        ("My son is 16. Can he give blood?", "You can give if you are aged 17 to 70.", False),
        ("I'm 68 years old. Can I give?", "Donors aged 17 to 66.", False),
        ("I'm 6 foot tall, can I join?", "If you are over 70, you can keep donating.", None),
    ],
)  # fmt: skip
def test_the_case_of_a_rule_that_holds_the_askers_quantity_is_found(
    question: str, sentence: str, meets: bool | None
) -> None:
    assert meets_condition(question, sentence) is meets


def test_the_lead_moves_to_the_case_that_holds_the_asker() -> None:
    """Found asking a ferry's booking conditions of my own: "What do I get back if I
    cancel three days before I travel?" was published as "Full refund: If you cancel 7
    days or more before departure ...", which the relevance model rates above the case
    that holds three days. A case of another passage does not take the lead."""
    terms = Context("terms", f"{FULL} {HALF}", 0.7, "Conditions > Cancellations", "c-2026")
    full = Sentence(terms, 0, len(FULL), 0.76)
    half = Sentence(terms, len(FULL) + 1, len(FULL) + 1 + len(HALF), 0.50)
    assert meeting_case(CANCEL, full, [full, half]) == half
    assert meeting_case(CANCEL, half, [full, half]) == half
    assert meeting_case("What do I get back if I cancel 9 days before?", full, [full, half]) == full
    other = Context("faq", HALF, 0.7, "FAQ", "faq")
    assert meeting_case(CANCEL, full, [full, Sentence(other, 0, len(HALF), 0.7)]) == full
    # a question whether something holds is answered by the case that leaves it out
    sale, unused = "Sale items can be returned within 14 days.", "Unused items: within 30 days."
    returns = Context("returns", f"{unused} {sale}", 0.75, "Returns")
    rule = Sentence(returns, len(unused) + 1, len(unused) + 1 + len(sale), 0.6)
    others = Sentence(returns, 0, len(unused), 0.5)
    asked = "I bought a sale item 20 days ago, can I still return it?"
    assert meeting_case(asked, rule, [rule, others]) == rule


def test_a_question_whether_quotes_the_sentence_that_bounds_the_askers_quantity() -> None:
    """A pet insurer's summary of my own: "Can I insure my 12 year old dog?" was published
    as "We insure cats and dogs from 8 weeks old", beside the sentence that answers it; a
    bike share's "aged 18 or over" keeps the lead over "at least 16 years old"."""
    youngest, oldest = (
        "We insure cats and dogs from 8 weeks old.",
        ("A new policy can be taken out until your pet is 10 years old."),
    )
    ages = Context("summary", f"{youngest} {oldest}", 0.7, "Cover summary > Ages")
    first = Sentence(ages, 0, len(youngest), 0.7)
    second = Sentence(ages, len(youngest) + 1, len(youngest) + 1 + len(oldest), 0.4)
    assert meeting_case("Can I insure my 12 year old dog?", first, [first, second]) == second
    assert meeting_case("Can I insure my dog?", first, [first, second]) == first
    adults, anyone = (
        "E-bikes may only be hired by riders aged 18 or over.",
        ("You must be at least 16 years old to hire a bike."),
    )
    hire = Context("terms", f"{anyone} {adults}", 0.7, "Terms > Who can hire")
    rule = Sentence(hire, len(anyone) + 1, len(anyone) + 1 + len(adults), 0.6)
    other = Sentence(hire, 0, len(anyone), 0.5)
    assert meeting_case("Can my 17-year-old hire an e-bike?", rule, [rule, other]) == rule


def test_a_question_whether_leaves_a_case_the_asker_is_not_in() -> None:
    """A blood service's guide of my own: "I'm 68, can I still give blood?" was answered
    "If you are over 70, you can keep donating if you have given blood in the last 2
    years", the relevance model rating it a hair above the rule whose ages hold 68."""
    ages, over = (
        "You can give blood if you are aged 17 to 70 and weigh at least 50 kg.",
        "If you are over 70, you can keep donating if you have given blood in the last 2 years.",
    )
    guide = Context("guide", f"{ages} {over}", 0.7, "Who can give blood")
    rule = Sentence(guide, 0, len(ages), 0.74)
    case = Sentence(guide, len(ages) + 1, len(ages) + 1 + len(over), 0.75)
    assert meeting_case("I'm 68, can I still give blood?", case, [case, rule]) == rule
    assert meeting_case("I'm 72, can I still give blood?", case, [case, rule]) == case


def test_the_answer_quotes_the_case_that_holds_the_asker() -> None:
    """The same through the extractive answerer, its relevance model rating them."""
    terms = Context("terms", f"{FULL} {HALF}", 0.7, "Conditions > Cancellations and refunds")
    answerer = ExtractiveAnswerer(get_relevance_model())
    assert HALF in answerer.answer(CANCEL, [terms]).text
    assert FULL in answerer.answer("What do I get back if I cancel 9 days before?", [terms]).text


def test_a_holiday_is_answered_by_the_sentence_giving_its_date() -> None:
    """A ferry timetable of my own: "Is there a ferry on Christmas Day?" quoted the
    Christmas Eve sailings once its holiday was covered by its date."""
    text = (
        "There are no sailings on 25 December and 1 January. "
        "On 24 and 31 December the last sailing from Mirran leaves at 14:50."
    )
    times = Context("timetable", text, 0.8, "Winter timetable")
    none = Sentence(times, 0, 51, 0.30)
    eve = Sentence(times, 52, len(text), 0.42)
    assert of_holiday("Is there a ferry on Christmas Day?", eve, [none, eve]) == none
    assert of_holiday("Is there a ferry on Christmas Eve?", eve, [none, eve]) == eve
    assert of_holiday("Is there a ferry on Sundays?", eve, [none, eve]) == eve


@pytest.mark.parametrize(
    ("question", "label", "holds"),
    [
        ("My train was 40 minutes late.", "Delay 30 to 59 minutes", True),
        ("My train was 40 minutes late.", "Delay 15 to 29 minutes", False),
        ("My train was 40 minutes late.", "Delays of between 30 and 59 minutes", True),
        ("My train was 40 minutes late.", "Delay 60-119 minutes", False),
        ("My train was 40 minutes late.", "Delay 1 to 2 hours", False),
        ("My train was an hour late.", "Delay 60 to 119 minutes", True),
        ("My train was 3 days late.", "Delay 1 to 2 hours", None),  # no span in other words
        ("Does my 10 year old pay?", "Children aged 5 to 15", True),
        ("Does my 3 year old pay?", "Children aged 5 to 15", False),
        ("How much is a delay?", "Delay 30 to 59 minutes", None),  # no quantity asked
    ],
)  # fmt: skip
def test_a_row_header_s_range_holds_the_askers_quantity(
    question: str, label: str, holds: bool | None
) -> None:
    """A rail operator's Delay Repay table of my own; in prose a range is as often a
    value ("1 tablet every 6 to 8 hours" is no case of "in 24 hours"), so only a row's
    header is read so."""
    assert in_range(question, label) is holds


DELAY_REPAY = (
    "Delay 15 to 29 minutes: Single ticket: 25% of the fare, Return ticket: 12.5% of the fare.\n"
    "Delay 30 to 59 minutes: Single ticket: 50% of the fare, Return ticket: 25% of the fare.\n"
    "Delay 60 to 119 minutes: Single ticket: 100% of the fare, Return ticket: 50% of the fare."
)


def test_the_table_row_whose_range_holds_the_askers_quantity_is_named() -> None:
    """A rail operator's Delay Repay table of my own: "How much do I get back if my
    single train was 40 minutes late?" was refused (no row's header stands out: each is
    "Delay ... minutes")."""
    question = "How much do I get back if my single train was 40 minutes late?"
    where = named_row(question, DELAY_REPAY)
    assert where is not None
    assert DELAY_REPAY[where[0] : where[1]].startswith("Delay 30 to 59 minutes")
    assert named_row("How much do I get back for a delay?", DELAY_REPAY) is None


@pytest.mark.parametrize(
    ("text", "value", "limit"),
    [
        ("FSCS only covers you up to £85,000, so split your savings.", "£85,000", True),
        ("Checked bags are 20kg max on Skyrill, they weighed mine at the desk.", "20kg", True),
        ("It only ever pays 50% of a trip.", "50%", True),
        ("Guests have to be 18 or over.", "18", True),
        ("You get 25 days of annual leave.", "25", False),
        ("The rent is £1,450 per calendar month.", "£1,450", False),
        ("Bags of 20kg and 32kg.", "20 or 32", False),  # not one figure
    ],
)
def test_a_figure_stated_as_a_limit_is_found(text: str, value: str, limit: bool) -> None:
    assert states_limit(text, value) is limit


def test_r_two_limits_that_differ_disagree() -> None:
    """Issue 41, the ordinary fitting suite: a forum's "Checked bags are 20kg max" went
    unnamed beside the baggage policy's "up to 23 kg", and a parents' chat's "it only
    ever pays 50%" beside the fund's "up to 75%": 20 lies within "up to 23 kg", so it read
    as a value within the rule's bound. A value its own sentence states as a limit is a
    rival limit; an entitlement within a threshold is still no disagreement."""
    weight = expected_kind("How heavy can my checked bag be?")
    policy = "Each checked bag may weigh up to 23 kg."
    post = "Checked bags are 20kg max on Skyrill, they weighed mine at the desk."
    assert disagree("up to 23 kg", "20kg", weight, (policy, post))
    assert not disagree("up to 23 kg", "23 kg", weight, (policy, "Bags: 23 kg max."))
    assert not disagree("up to 23 kg", "20kg", weight)  # no sentence: within the bound
    figure = expected_kind("How much of my savings is protected?")
    terms = "Your savings are protected up to £120,000 per person."
    forum = "FSCS only covers you up to £85,000, so split your savings."
    assert disagree("£120,000", "85,000", figure, (terms, forum))  # the reader's span
    count = expected_kind("How many days of holiday do I get?")
    holiday = "You get 25 days of annual leave a year."
    assert not disagree("25", "more than 10 consecutive days", count, (holiday, ""))
