"""What answers "How do I ...?" and "what should I do?" (issue 41): an instruction for
the purpose asked, and a numbered procedure quoted whole."""

from __future__ import annotations

import pytest

from assay.answer.choose import choose
from assay.answer.expected import asks_what_is_in, instructs
from assay.answer.steps import MOST_STEPS, on_step, steps_in, with_steps
from assay.answer.within import Sentence
from assay.judge.schema import Context


@pytest.mark.parametrize(
    ("sentence", "question", "telling"),
    [
        ("Open both valves on the filling loop.", "How do I top up the pressure?", True),
        ("Pour warm water along the pipe.", "The pipe is frozen, what do I do?", True),
        ("If it comes back, call an engineer.", "What should I do?", True),
        # an instruction for the purpose asked, not for another one
        ("To close your account, send us a message.", "How do I close my account?", True),
        ("To restart the hub, switch it off.", "How do I factory reset the router?", False),
        ("Use of the gym is free for members.", "How do I join?", False),
        ("A factory reset deletes your settings.", "How do I factory reset it?", False),
    ],
)
def test_an_instruction_for_the_asked_purpose(sentence: str, question: str, telling: bool) -> None:
    assert instructs(sentence, question) is telling


PROCEDURE = (
    "Topping up the pressure\n"
    "1. Turn the boiler off at the switch.\n"
    "2. Open both valves on the filling loop.\n"
    "3. Close both valves at 1.5 bar.\n"
    "If you top up often, call an engineer."
)


def _sentence(text: str, words: str) -> Sentence:
    start = text.index(words)
    return Sentence(Context("guide", text), start, start + len(words), 0.5)


def test_a_step_of_a_numbered_procedure_is_quoted_with_every_step() -> None:
    lead = with_steps(_sentence(PROCEDURE, "Open both valves on the filling loop."))
    assert lead.text == (
        "1. Turn the boiler off at the switch.\n"
        "2. Open both valves on the filling loop.\n"
        "3. Close both valves at 1.5 bar."
    )


def test_a_sentence_outside_a_procedure_or_of_a_long_one_stays_alone() -> None:
    alone = _sentence(PROCEDURE, "If you top up often, call an engineer.")
    assert with_steps(alone) == alone
    long = "\n".join(f"{n}. Step {n}." for n in range(1, MOST_STEPS + 2))
    step = _sentence(long, "Step 2.")
    assert with_steps(step) == step
    single = _sentence("1. Press reset.\nThen wait.", "Press reset.")
    assert with_steps(single) == single


def test_numbered_steps_are_told_from_a_single_numbered_line() -> None:
    assert steps_in(PROCEDURE)
    assert not steps_in("1. Press reset.\nThen wait.")
    assert on_step(_sentence(PROCEDURE, "Open both valves on the filling loop."))
    assert not on_step(_sentence(PROCEDURE, "If you top up often, call an engineer."))


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What's in an interim service?", True),
        ("What does the Plus plan include?", True),
        ("What is included in the price?", True),
        ("What do I get with a full service?", True),
        ("What's the interim service?", False),
        ("What does it cost?", False),
    ],
)
def test_a_question_what_something_holds_is_told(question: str, asks: bool) -> None:
    assert asks_what_is_in(question) is asks


def test_what_something_holds_is_answered_by_what_it_includes() -> None:
    """A garage's pages of my own: "What's in an interim service?" quoted "An interim
    service is for cars that cover high mileage, between full services." beside "It
    includes an oil and filter change and 40 safety checks"."""
    text = (
        "An interim service is for cars that cover high mileage, between full services. "
        "It includes an oil and filter change and 40 safety checks."
    )
    passage = Context("services", text, 0.8, "What our services include > Interim service")
    first = text.index(". ") + 1
    purpose = Sentence(passage, 0, first, 0.76)
    contents = Sentence(passage, first + 1, len(text), 0.0)
    choice = choose([purpose, contents], [], None, question="What's in an interim service?")
    assert choice is not None and choice.lead == contents
