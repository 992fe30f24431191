"""Which sentence of the lead's passage states what the question asks for (pure).

:mod:`assay.answer.choose` picks the passage that leads and its best-rated sentence; the
relevance model rates sentences by the question's words, so the best-rated one is often a
neighbour of the answer: the sentence that names the form beside the one that gives its
date, a price beside a delivery time, the weekday hours beside Saturday's. Each function
here moves the lead to another sentence of the same passage when that one holds what the
question asks for and the lead does not; :mod:`assay.answer.cases` does so between a
rule, its exceptions and its cases, :mod:`assay.answer.steps` for numbered steps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from assay.answer.bounds import states_bound
from assay.answer.expected import AnswerKind
from assay.answer.polarity import states_cost
from assay.answer.qualifiers import Qualifiers, day_kinds
from assay.answer.reading import Found
from assay.days_of_week import days_named
from assay.judge.schema import Context
from assay.judge.strength import more_reliable
from assay.text import (
    content_terms,
    holiday_dates,
    sentence_spans,
    stated_dates,
    stemmed_terms,
)

__all__ = [
    "ANSWERS_WITHIN", "POINTS_BACK", "Sentence", "best_of_passage", "bounding", "costing",
    "keeping_to", "keeps_to", "lead_in", "names_another", "of_day", "of_holiday", "of_kind",
    "question_words_in", "rated_near", "sentence_after", "sentence_before", "telling",
]  # fmt: skip

#: a passage whose best sentence rates at least this share of the best answers too
ANSWERS_WITHIN = 0.8
#: a sentence that opens by pointing back ("It must be returned by 30 September",
#: "Outside those months anyone may park"): quoted alone, it does not say what it is
#: about; a sentence that points at the document itself ("In this policy") does
_DOCUMENT = r"(?:policy|document|guide|section|page|leaflet|agreement|manual|article|chapter)\b"
POINTS_BACK = re.compile(
    rf"^\W*(?:it|they|this|these|those|that|such)\b(?!\s+{_DOCUMENT})"
    rf"|^\W*[A-Za-z]+\s+(?:this|these|those|that|such)\s+(?!{_DOCUMENT})[a-z]+",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence of a passage (characters ``[start, end)`` of its text) and its rating."""

    context: Context
    start: int
    end: int
    score: float

    @property
    def text(self) -> str:
        """The sentence itself."""
        return self.context.text[self.start : self.end]


def of_kind(
    lead: Sentence,
    kind: AnswerKind,
    by_context: dict[int, Found],
    sentences: Sequence[Sentence],
    question: str = "",
) -> Sentence:
    """The sentence of the lead's passage that holds the reader's span, when the lead
    holds no value of the kind asked for and that one does: for "By what date must the
    consent form be returned?", "It must be returned by 30 September each year", not the
    sentence before it that names the form ("one consent form covers the whole school
    year") and that the relevance model rates higher. Never one that names another thing
    of the kind the ``question`` names (:func:`names_another`)."""
    if kind.found_in(lead.text):
        return lead
    readers = lead_in(lead, by_context)
    if kind.found_in(readers.text) and not names_another(question, readers.text):
        return readers
    # else the passage's best-rated sentence that holds one: "By when must paternity leave
    # be taken?", "It must be taken within 12 months of the birth", not the sentence
    # before it that names the leave and that the reader likes
    return best_of_passage(
        lead, sentences, lambda text: kind.found_in(text) and not names_another(question, text)
    )


def names_another(question: str, text: str) -> bool:
    """Whether ``text`` names another thing of the kind ``question`` names by two words:
    for "What is the service charge?", "a corkage charge of £15 per bottle" (the service
    charge, "12.5%", is no sum of money, and it is the answer)."""
    words = content_terms(question)
    for first, head in pairwise(words):
        if not re.search(rf"\b{re.escape(first)}\s+{re.escape(head)}\b", question, re.I):
            continue  # not a phrase of the question ("charge ... for service")
        if re.search(rf"\b{re.escape(first)}\s+{re.escape(head)}\b", text, re.I):
            continue
        other = re.search(rf"\b(\w+)\s+{re.escape(head)}\b", text, re.I)
        if other is not None and content_terms(other.group(1)) and other.group(1).lower() != first:
            return True
    return False


def sentence_before(lead: Sentence) -> tuple[int, int] | None:
    """Where the sentence before ``lead`` stands on its line (characters of its passage);
    ``None`` when ``lead`` is the first of its line (a list item, a paragraph)."""
    text = lead.context.text
    before = [(a, b) for a, b in sentence_spans(text) if b <= lead.start]
    if not before or "\n" in text[before[-1][1] : lead.start]:
        return None
    return before[-1]


def sentence_after(lead: Sentence) -> tuple[int, int] | None:
    """Where the sentence after ``lead`` stands on its line (characters of its passage);
    ``None`` when ``lead`` is the last of its line."""
    text = lead.context.text
    after = [(a, b) for a, b in sentence_spans(text) if a >= lead.end]
    if not after or "\n" in text[lead.end : after[0][0]]:
        return None
    return after[0]


def best_of_passage(
    lead: Sentence, sentences: Sequence[Sentence], holds: Callable[[str], bool]
) -> Sentence:
    """The best-rated sentence of the lead's passage whose text ``holds``, when the lead's
    does not; else the lead."""
    if holds(lead.text):
        return lead
    holding = [s for s in sentences if s.context is lead.context and holds(s.text)]
    return max(holding, key=lambda s: s.score) if holding else lead


def telling(lead: Sentence, sentences: Sequence[Sentence], form: Callable[[str], bool]) -> Sentence:
    """The best-rated sentence of the lead's passage of the ``form`` the question asks
    for, when the lead is not of it: for "My phone was stolen, what should I do?" an
    instruction (:func:`~assay.answer.expected.instructs`), "Call us on 0330 123 4567
    straight away and we will bar your SIM", not "A replacement SIM is free and arrives in
    2 working days" that the relevance model rates higher; for "Who can get the Warm Home
    Discount?" a condition (:data:`~assay.answer.expected.CONDITION`), "You may qualify if
    you receive Pension Credit", not "Eligible customers receive a one-off £150 discount"."""
    return best_of_passage(lead, sentences, form)


def of_day(
    asked: Qualifiers | None, lead: Sentence, sentences: Sequence[Sentence], question: str = ""
) -> Sentence:
    """For a question about a kind of day ("Is the practice open on Saturday?"), the
    best-rated sentence of the lead's passage that speaks of that kind of day, when the
    lead speaks only of others: "On Saturdays it is open 9am to 12pm ...", not "The
    practice is open 8am to 6:30pm Monday to Friday". A passage that says nothing of the
    asked day keeps its lead (its weekday rule may be the answer). A day the ``question``
    names goes by its name first: for "Is the museum open on Mondays?", "It is closed on
    Mondays, except bank holiday Mondays", not "open Tuesday to Sunday" (weekdays too)."""
    named = days_named(question)
    if named and days_named(lead.text) and not named & days_named(lead.text):
        return best_of_passage(lead, sentences, lambda text: bool(named & days_named(text)))
    days = asked.exclusive.get("days") if asked is not None else None
    if not days or not day_kinds(lead.text):
        return lead
    return best_of_passage(lead, sentences, lambda text: bool(days & day_kinds(text)))


def of_holiday(question: str, lead: Sentence, sentences: Sequence[Sentence]) -> Sentence:
    """For a question about a holiday on one date ("Is there a ferry on Christmas
    Day?"), the best-rated sentence of the lead's passage that states its date, when the
    lead does not: "There are no sailings on 25 December and 1 January", not "On 24 and
    31 December the last sailing from Mirran leaves at 14:50"."""
    dates = set(holiday_dates(question).values())
    if not dates:
        return lead
    return best_of_passage(lead, sentences, lambda text: bool(dates & stated_dates(text)))


def costing(lead: Sentence, sentences: Sequence[Sentence]) -> Sentence:
    """For a question whether something costs anything, the best-rated sentence rated
    nearly as high as the lead (:data:`ANSWERS_WITHIN`) that states a price or "free",
    from a source no less reliable, when the lead states neither: for "Do I pay for
    returns?", "Returns by post cost £3.50, ...; returns to a store are free", not "We
    refund to your original payment method within 5 working days" (its "payment" echoes
    the question)."""
    return _nearly_as_high(lead, sentences, states_cost)


def bounding(lead: Sentence, sentences: Sequence[Sentence]) -> Sentence:
    """For a question whether something is limited, the best-rated sentence rated nearly
    as high as the lead that states a bound, from a source no less reliable, when the
    lead states none: for "Is mileage unlimited?", "Each rental includes up to 150 miles
    per day", not "Every extra mile costs 25p" beside it."""
    return _nearly_as_high(lead, sentences, states_bound)


def _nearly_as_high(
    lead: Sentence, sentences: Sequence[Sentence], holds: Callable[[str], bool]
) -> Sentence:
    """The best-rated sentence whose text ``holds``, rated at least :data:`ANSWERS_WITHIN`
    of the lead and from a source no less reliable, when the lead's text does not hold."""
    if holds(lead.text):
        return lead
    holding = [
        s for s in sentences
        if s.score >= ANSWERS_WITHIN * lead.score
        and holds(s.text)
        and not more_reliable(lead.context, s.context)
    ]  # fmt: skip
    return max(holding, key=lambda s: s.score) if holding else lead


def keeping_to(asked: Qualifiers | None, lead: Sentence, by_context: dict[int, Found]) -> Sentence:
    """The sentence of the lead's passage that holds the reader's span, when it states
    more of the question's qualifiers than the lead does: for "How late is it open on
    Thursday?", "On Thursdays it stays open until 21:00", not the general "open from
    10:00 to 17:00" that the relevance model rates higher."""
    if asked is None:
        return lead
    readers = lead_in(lead, by_context)
    return readers if asked.held(readers.text) > asked.held(lead.text) else lead


def lead_in(sentence: Sentence, by_context: dict[int, Found]) -> Sentence:
    """The sentence of ``sentence``'s passage that leads: the reader's, when it found an
    answer there, else ``sentence`` (the passage's best-rated)."""
    reading = by_context.get(id(sentence.context))
    if reading is not None and reading.answers:
        start, end = reading.sentence
        return Sentence(sentence.context, start, end, sentence.score)
    return sentence


def rated_near(lead: Sentence, sentences: Sequence[Sentence]) -> list[Sentence]:
    """The sentences of the lead's passage (the lead among them) rated nearly as high as
    it (:data:`ANSWERS_WITHIN`): those that may answer in its place."""
    return [
        s for s in sentences
        if s.context is lead.context and s.score >= ANSWERS_WITHIN * lead.score
    ]  # fmt: skip


def question_words_in(question: str, text: str) -> set[str]:
    """The question's words that ``text`` names, a word counting as named by a longer
    one it begins ("probation" by "probationary")."""
    said = stemmed_terms(text)
    return {
        t for t in stemmed_terms(question)
        if t in said or (len(t) >= 5 and any(s.startswith(t) for s in said))
    }  # fmt: skip


def keeps_to(asked: Qualifiers, text: str, lead: str) -> bool:
    """Whether ``text`` keeps to the question's qualifiers as well as ``lead`` does."""
    return asked.held(text) >= asked.held(lead) and not asked.clashes(text)
