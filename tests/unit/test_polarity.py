"""Yes-or-no answers about cost or a limit, told by a price, "free" or a limit (issue 41,
found asking knowledge bases of my own)."""

from __future__ import annotations

import pytest

from assay.answer.extractive import ExtractiveAnswerer
from assay.answer.polarity import asks_cost, says_no, states_cost
from assay.judge.schema import Context
from assay.models.relevance import get_relevance_model


@pytest.mark.parametrize(
    ("question", "text", "no"),
    [
        ("Is roaming free in the EU?", "Roaming in the EU costs £2 a day.", True),
        ("Is roaming free in the EU?", "EU roaming is still free, I paid nothing.", False),
        ("Is roaming free in the EU?", "Roaming is no longer free.", True),
        ("Do I pay for returns?", "Returns by post cost £3.50.", False),  # yes, you pay
        ("Do I pay for returns?", "Returns to a store are free.", True),
        ("Is mileage unlimited?", "Each rental includes up to 150 miles per day.", True),
        ("Is mileage unlimited?", "Mileage is unlimited so we drove all over.", False),
        ("Is roaming free in the EU?", "Roaming works in every EU country.", None),
        ("Can I take the bike on a train?", "Bikes cost £2 an hour.", None),  # no cost asked
    ],
)  # fmt: skip
def test_a_price_free_or_a_limit_answers_yes_or_no(question: str, text: str, no: bool) -> None:
    assert says_no(question, text) is no


def test_questions_and_texts_about_cost() -> None:
    assert asks_cost("Is there a charge for a replacement card?")
    assert asks_cost("Does a smart meter cost anything?")
    assert not asks_cost("How long do refunds take?")
    assert states_cost("Returns to a store are free.") and states_cost("It costs £3.50.")
    assert not states_cost("We refund within 5 working days.")


def test_asked_whether_one_pays_a_sentence_that_says_what_it_costs_leads() -> None:
    """Found asking an outdoor shop's returns page: "Do I pay for returns?" quoted "We
    refund to your original payment method within 5 working days" ("payment" echoes the
    question) over the sentence that says what returns cost."""
    returns = Context(
        "returns", "You can return unused items within 30 days of delivery for a full "
        "refund. Returns by post cost £3.50, taken from your refund; returns to a store are "
        "free.", 0.68, title="Delivery and returns > Returns", source_id="shop",
    )  # fmt: skip
    refunds = Context(
        "refunds", "We refund to your original payment method within 5 working days of "
        "receiving your return.", 0.69, title="Delivery and returns > Refunds",
        source_id="shop",
    )  # fmt: skip
    answerer = ExtractiveAnswerer(get_relevance_model())
    draft = answerer.answer("Do I pay for returns?", [refunds, returns])
    assert draft.quoted.startswith("Returns by post cost £3.50")
