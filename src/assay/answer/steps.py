"""Numbered steps: a procedure quoted whole for a question that asks what to do (pure)."""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import pairwise

from assay.answer.within import Sentence

__all__ = ["MOST_STEPS", "on_step", "steps_in", "with_steps"]

#: a line that is a numbered step: "1. Turn the boiler off", "2) Open both valves"
_STEP = re.compile(r"[ \t]*\d{1,2}[.)][ \t]+\S")
#: the most steps quoted whole; a longer procedure keeps the step that answers best
MOST_STEPS = 8


def steps_in(text: str) -> bool:
    """Whether ``text`` sets out numbered steps: two lines or more of them in a row."""
    return any(_STEP.match(a) and _STEP.match(b) for a, b in pairwise(text.split("\n")))


def on_step(sentence: Sentence) -> bool:
    """Whether ``sentence`` stands on a numbered step's line."""
    text = sentence.context.text
    return _STEP.match(text, text.rfind("\n", 0, sentence.start) + 1) is not None


def with_steps(lead: Sentence) -> Sentence:
    """``lead`` widened to the numbered steps it is one of, for a question that asks what
    to do: "How do I top up the boiler pressure?" is answered by "1. Turn the boiler
    off ... 2. Open both valves on the filling loop ... 3. ... 4. ...", in order, not by
    the one step that rates best, which alone leaves the asker half way. A procedure of
    more than :data:`MOST_STEPS` steps keeps that step."""
    text = lead.context.text
    lines = []  # (start, end) of each line
    at = 0
    for line in text.split("\n"):
        lines.append((at, at + len(line)))
        at += len(line) + 1
    own = next(i for i, (a, b) in enumerate(lines) if a <= lead.start <= b)
    if not _STEP.match(text, lines[own][0]):
        return lead
    first = last = own
    while first > 0 and _STEP.match(text, lines[first - 1][0]):
        first -= 1
    while last + 1 < len(lines) and _STEP.match(text, lines[last + 1][0]):
        last += 1
    if first == last or last - first + 1 > MOST_STEPS:
        return lead
    return replace(lead, start=lines[first][0], end=lines[last][1])
