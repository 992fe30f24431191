"""What answers "How do I ...?" and "what should I do?" (issue 41): an instruction for
the purpose asked, and a numbered procedure quoted whole."""

from __future__ import annotations

import pytest

from assay.answer.expected import instructs
from assay.answer.within import MOST_STEPS, Sentence, on_step, steps_in, with_steps
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
