"""A question's own count past the bound its answer states (issue 41, found asking a
council's waste guide: "How much does it cost to collect 5 bulky items?" was answered
"£35", the price of up to three)."""

from __future__ import annotations

import pytest

from assay.answer.bounds import (
    asks_limit,
    exceeds_bound,
    falls_short,
    meets_bound,
    per_each,
    states_bound,
)
from assay.answer.choose import disagree
from assay.answer.expected import expected_kind
from assay.answer.extractive import ExtractiveAnswerer
from assay.answer.within import Sentence, bounding
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
