"""Regressions found by the benchmarks: number words, relative "who", HaluEval rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.answer.expected import expected_kind
from assay.judge.evaluate import evaluate
from assay.training.datasets import halueval_pairs, halueval_rows


def test_every_number_word_is_a_figure() -> None:
    kind = expected_kind("For how many seasons did he play?")
    assert kind is not None
    for word in ("eleven", "fifteen", "seventy", "twelve"):
        assert kind.found_in(f"{word} seasons"), word


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many new shops did it open?", "count"),
        # a length of time counted in its unit ("up to 11 h"), not a count of anything
        ("How many hours will the Tessel 16 run unplugged?", "duration"),
        ("How many working days does a refund take?", "duration"),
        ("How many days a week is the gym open?", "count"),  # "7 days a week"
        ("On which days is the supply vessel refilled?", "date"),  # "every Tuesday"
        ("How much weight can the Haul take in total?", "weight"),
        ("How many pounds did it raise?", "figure"),
        ("What is the charge for a loan request?", "money"),
        ("How much does a loan request cost?", "money"),
        ("How much of a residential trip will the fund pay for?", "figure"),  # a share
        ("How much money is in the fund this year?", "money"),
        ("What does the Silver plan cost per month?", "money"),
        ("What is the processing fee for a lost item?", "money"),  # a fee, named
        ("What is the starting price of the Tessel 16?", "money"),
        ("What is the late cancellation fee?", "money"),
        ("How much notice do I need to give to cancel?", "duration"),
        ("How far ahead do I have to request a block of leave?", "duration"),
        ("By when must paternity leave be taken?", "deadline"),  # a date or a time limit
        # what the asker waits for: a date or a time limit ("within 6 weeks")
        ("When will I get my final bill after moving?", "deadline"),
        # "at least 48 hours before you fly": a time set by what it comes before
        ("When do I need to tell you about my powered wheelchair?", "deadline"),
        ("When was the bridge opened?", "date"),
        ("How long does my password need to be?", "figure"),  # a size, not a duration
        ("How long is the standard warranty?", "duration"),
        ("At what charge level should the battery go on charge?", None),
        ("How far will it go on one charge?", "distance"),
        ("How far ahead can I book a class?", "duration"),  # a time, not a length
        ("How heavy is the Haul?", "weight"),
        ("What time must essays be handed in?", "clock"),
        ("What time period did the treaty end?", "date"),
        ("Which day is recycling collected?", "date"),
        # a bound is a figure: "What is the heaviest load a reach truck may carry?"
        ("What is the heaviest load a reach truck may carry?", "figure"),
        ("What is the maximum tyre pressure for the Glide?", "figure"),
        ("What is the maximum term of a mortgage?", "duration"),  # not "90%" of its LTV
        # what the asker waits for: "We return it within 28 days of the end of ..."
        ("When do I get my deposit back?", "deadline"),
        # "Apply ... by 15 January 2027", not "Offers are sent on 16 April 2027"
        ("What's the deadline to apply?", "deadline"),
        ("What is the closing date for entries?", "deadline"),
        ("What is the maximum fine for flying too high?", "money"),
        ("What is the hotel limit in Paris per night?", None),
        ("Who won the men's singles in 2021?", "name"),
        ("Who can register at the practice?", None),  # a rule says who, not a name
        ("Who is eligible for the discount?", None),
    ],
)
def test_a_question_asks_for_the_kind_its_words_name(question: str, kind: str | None) -> None:
    found = expected_kind(question)
    assert (found and found.name) == kind


def test_a_duration_without_end_is_a_duration() -> None:
    kind = expected_kind("How long are backups kept?")
    assert kind is not None and kind.found_in("Backups are kept forever, as far as I know.")


def test_a_duration_told_by_the_date_it_ends_is_a_duration() -> None:
    """Found asking a school's admissions policy: "How long do they keep the waiting
    list?" was drafted as "20 school days: Appeals must be lodged ...", the one sentence
    near it holding a length, over "The waiting list is kept until 31 December 2027"."""
    kind = expected_kind("How long do they keep the waiting list?")
    assert kind is not None and kind.name == "duration"
    assert kind.found_in("The waiting list is kept until 31 December 2027.")
    assert kind.found_in("Vouchers are valid until the end of 2027.")
    assert not kind.found_in("The waiting list is ranked by the same order.")


def test_a_when_may_be_told_as_a_time_counted_from_an_event() -> None:
    """Found asking a pension plan's guide: "When am I enrolled?" was judged to lack the
    date asked of "You are enrolled automatically after 3 months of employment" and
    withheld. Seconds after an event are no when ("When did iOS 16 become required?" of
    a changelog led with "Route requests time out after 20 seconds")."""
    kind = expected_kind("When am I enrolled?")
    assert kind is not None and kind.name == "date"
    assert kind.found_in("You are enrolled automatically after 3 months of employment.")
    assert kind.found_in("We reply within 5 working days.")
    assert not kind.found_in("Route requests time out after 20 seconds instead of 10.")


def test_a_duration_may_count_its_days_twice() -> None:
    kind = expected_kind("How much notice do I need to give?")
    assert kind is not None and kind.found_in("Give one full calendar month's notice.")


def test_pence_and_cents_are_money_and_a_clock_is_not() -> None:
    kind = expected_kind("What is the daily standing charge for gas?")
    assert kind is not None and kind.name == "money"
    for priced in ("Standing charge: 31.4p per day.", "It costs 50 pence.", "Only 99\u00a2."):
        assert kind.found_in(priced), priced
    assert not kind.found_in("Doors open at 5p.m. on weekdays.")
    count = expected_kind("How many new shops opened?")
    assert count is not None and not count.found_in("A stamp costs 85p.")


def test_a_share_of_a_sum_says_how_much() -> None:
    """Found asking a campsite's terms of my own: "How much is the deposit?" of "Pay a
    deposit of 25% of the stay" was judged to give "no price or amount of money", and a
    contract's "you pay 80% of the monthly charges left" likewise for what leaving early
    costs. A share of a sum is an amount; a share of anything else is not."""
    kind = expected_kind("How much is the deposit?")
    assert kind is not None and kind.name == "money"
    for share in (
        "Pay a deposit of 25% of the stay when you book.",
        "If you leave early, you pay 80% of the monthly charges left.",
        "You also pay 20% of the rest of the claim.",
        "We refund half the fare.",
        "You pay 5% of your basic salary and Marwood pays 6%.",  # "How much do I pay in?"
        "The yearly management charge on the default fund is 0.35%.",  # a fee told as a share
    ):
        assert kind.found_in(share), share
    for other in ("25% of customers renew.", "Revenue grew 5%.", "Half the staff work remotely."):
        assert not kind.found_in(other), other


def test_a_time_told_by_the_event_it_comes_before_is_a_time_of_day() -> None:
    """Found asking a museum's pages: "What time is last entry?" moved from "Last entry is
    45 minutes before closing." to the opening hours, the one sentence holding a clock."""
    kind = expected_kind("What time is last entry?")
    assert kind is not None and kind.name == "clock"
    assert kind.found_in("Last entry is 45 minutes before closing.")
    assert kind.found_in("Gates open 90 minutes before kick-off.")
    assert not kind.found_in("The tour lasts 45 minutes.")


def test_a_count_is_never_a_price() -> None:
    kind = expected_kind("How many new bakeries opened?")
    assert kind is not None
    assert not kind.found_in("Revenue rose to £162.5m, from £150.3m.")
    assert kind.found_in("Revenue rose to £162.5m with 17 new bakeries.")
    assert kind.found_in("Bakeries rose by 8.1%.")  # a share may answer how many


def test_the_digits_of_a_code_are_no_figure() -> None:
    """From the fitting suite's forklift procedure: "the heaviest load a truck may carry
    at DC OH2" was quoted for the heaviest load, its "2" read as the figure asked for."""
    kind = expected_kind("What is the heaviest load a reach truck may carry?")
    assert kind is not None
    for code in ("at DC OH2", "the HP-300", "in Q3", "the Lepto L4 vaccine"):
        assert not kind.found_in(f"The limit applies {code}."), code
    assert kind.found_in("Class B: 1,100 kg.") and kind.found_in("up to 20% more")


def test_a_relative_who_does_not_ask_for_a_name() -> None:
    assert expected_kind("Which music did the composer who was first play?") is None
    kind = expected_kind("Who was the first composer?")
    assert kind is not None and kind.name == "name"


def test_j2_a_claim_is_read_as_the_answer_to_the_query() -> None:
    """ "Yes, both are American bands" means nothing alone; read after the question, the
    context that calls one of them Canadian does not support it."""
    judgment = evaluate(
        "Are both The New Pornographers and Kings of Leon American rock bands?",
        "Yes, both The New Pornographers and Kings of Leon are now American rock bands.",
        [
            {
                "id": "c1",
                "text": "The New Pornographers is a Canadian indie rock band formed in 1997. "
                "Kings of Leon is an American rock band that formed in Nashville in 1999.",
            }
        ],
    )
    assert judgment.assessment.recommended_action != "publish"


def test_halueval_rows_line_up_with_the_pairs(tmp_path: Path) -> None:
    path = tmp_path / "qa.json"
    lines = [
        f'{{"knowledge": "k{i}", "question": "q{i}", "right_answer": "r{i}", '
        f'"hallucinated_answer": "h{i} is wrong"}}'
        for i in range(40)
    ]
    path.write_text("\n".join(lines) + "\n")
    for split in ("train", "validation", "test"):
        rows = halueval_rows(path, split)
        pairs = halueval_pairs(path, split)
        assert len(pairs) == 2 * len(rows)
        for k, row in enumerate(rows):
            assert pairs[2 * k].claim == f"{row['question']} {row['right_answer']}"
            assert pairs[2 * k + 1].claim == f"{row['question']} {row['hallucinated_answer']}"
    with pytest.raises(ValueError, match="split"):
        halueval_rows(path, "dev")


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What's the fine for leaving the bike outside a parking zone?", "money"),
        ("What's the council tax on a band A house?", "money"),
        ("How much is band D council tax this year?", "money"),
        ("What is the deposit?", "money"),
        ("Who's the landlord?", "name"),
        ("What is the tax year?", None),
        ("How much can council tax support take off my bill?", "figure"),  # a share
    ],
)  # fmt: skip
def test_a_contracted_what_is_and_a_tax_ask_as_written_out(question: str, kind: str | None) -> None:
    """A council's tax pages of my own: "What's the council tax on a band A house?" asked
    for nothing in particular (the wordings read "what is"), and the Valuation Office
    sentence led instead of the band A row."""
    asked = expected_kind(question)
    assert (asked and asked.name) == kind


@pytest.mark.parametrize(
    "question",
    [
        "How much did council tax go up this year?",
        "How much will my bill go up in April?",
        "By how much did like-for-like sales grow in the quarter?",
        "How much has the price gone up?",
    ],
)
def test_how_much_something_rose_asks_for_the_change(question: str) -> None:
    """ "How much did council tax go up this year?" quoted the band D row (£2,208.09)
    beside "The Band D charge rose by 4.99% on last year"."""
    kind = expected_kind(question)
    assert kind is not None and kind.name == "change"
    assert kind.found_in("The Band D charge rose by 4.99% on last year.")
    assert kind.found_in("Sales were up 3% on last year.")
    assert kind.found_in("Like-for-like growth (%): 5.9")
    assert kind.found_in("a 4% rise in prices")
    assert not kind.found_in("Band D: Yearly charge: £2,208.09.")
    assert not kind.found_in("You can take up to 3 bags.")


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How much does it cost to drop in for a day?", "money"),
        ("How much is it to drop off the car?", "figure"),
        ("How much can I change my flight date for?", "figure"),
    ],
)  # fmt: skip
def test_a_price_and_a_drop_off_ask_for_no_change(question: str, kind: str) -> None:
    asked = expected_kind(question)
    assert asked is not None and asked.name == kind


def test_days_of_the_month_are_dates() -> None:
    """ "Which days can my Direct Debit come out?" was withheld: the judge found no date in
    "taken on the 1st, 8th, 15th or 22nd of the month"."""
    kind = expected_kind("Which days can my Direct Debit come out?")
    assert kind is not None and kind.name == "date"
    assert kind.found_in("Payments can be taken on the 1st, 8th, 15th or 22nd of the month.")
    assert kind.found_in("Rent is due on the 15th of each month.")
    assert not kind.found_in("The office is on the 3rd floor.")
