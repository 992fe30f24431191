"""Which sentence of the lead's passage states what the question asks for (pure).

:mod:`assay.answer.choose` picks the passage that leads and its best-rated sentence; the
relevance model rates sentences by the question's words, so the best-rated one is often a
neighbour of the answer: the sentence that names the form beside the one that gives its
date, a price beside a delivery time, the weekday hours beside Saturday's, an exception
beside the rule it departs from. Each function here moves the lead to another sentence
of the same passage when that one holds what the question asks for and the lead does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from assay.answer.bounds import meets_condition, states_bound
from assay.answer.expected import AnswerKind
from assay.answer.polarity import states_cost
from assay.answer.qualifiers import Qualifiers, day_kinds
from assay.answer.reading import Found
from assay.days_of_week import days_named
from assay.judge.schema import Context
from assay.judge.strength import more_reliable
from assay.text import (
    CELL_LABEL,
    NEGATION,
    TABLE_ROW,
    content_terms,
    holiday_dates,
    sentence_spans,
    stated_dates,
    stemmed_terms,
)

__all__ = [
    "ANSWERS_WITHIN", "Sentence", "best_of_passage", "bounding", "costing", "keeping_to", "lead_in",
    "meeting_case", "naming_more", "of_case", "of_day", "of_holiday", "of_kind", "on_step",
    "question_words_in", "rule_before_exception", "rule_before_row", "sentence_before",
    "steps_in", "telling", "with_rule", "with_steps",
]  # fmt: skip

#: a passage whose best sentence rates at least this share of the best answers too
ANSWERS_WITHIN = 0.8
#: a line that is a numbered step: "1. Turn the boiler off", "2) Open both valves"
_STEP = re.compile(r"[ \t]*\d{1,2}[.)][ \t]+\S")
#: the most steps quoted whole; a longer procedure keeps the step that answers best
MOST_STEPS = 8


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


#: a clause asking whether something holds, also after a comma: "..., can I return it?"
_ASKS_WHETHER = re.compile(
    r"(?:^|[,.;:!?]\s*)\W*(?:can|could|may|might|must|should|shall|is|are|was|were|do|does|"
    r"did|will|would|has|have)\s+(?:I|we|you|he|she|it|they|my|our|the|this|that)\b",
    re.I,
)


def meeting_case(question: str, lead: Sentence, sentences: Sequence[Sentence]) -> Sentence:
    """The best-rated sentence of the lead's passage whose bounded case holds the
    quantity the asker states, when the lead's case leaves it out
    (:func:`~assay.answer.bounds.meets_condition`): for "What do I get back if I cancel
    three days before I travel?", "If you cancel less than 7 days before, we refund half
    the fare", not "If you cancel 7 days or more before departure you get a full refund",
    which the relevance model rates higher. Not for a question whether something holds,
    which the case that leaves the asker out may answer: "I bought a sale item 20 days
    ago, can I still return it?" is answered by "Sale items can be returned within 14
    days", not by "You can return unused items within 30 days". A question whether it holds
    is answered by the sentence that bounds the asker's quantity at all, when the lead's
    bounds none: "Can I insure my 12 year old dog?" by "A new policy can be taken out until
    your pet is 10 years old", not by "We insure cats and dogs from 8 weeks old". A lead
    that opens with a case the asker is not in gives way to the sentence whose bounds the
    asker meets: "If you are over 70, ..." to "You can give blood if you are aged 17 to
    70" for "I'm 68, can I still give blood?"."""
    verdict = meets_condition(question, lead.text)
    if _ASKS_WHETHER.search(question):
        if verdict is False and _OPENS_CASE.match(lead.text):
            # "I'm 68, can I still give blood?": not "If you are over 70, you can keep
            # donating ...", a case the asker is not in, but "You can give blood if you
            # are aged 17 to 70"
            return best_of_passage(
                lead, sentences, lambda text: meets_condition(question, text) is True
            )
        if verdict is not None:
            return lead
        return best_of_passage(
            lead, sentences, lambda text: meets_condition(question, text) is not None
        )
    if verdict is not False:
        return lead
    moved = best_of_passage(lead, sentences, lambda text: meets_condition(question, text) is True)
    after = _sentence_after(lead) if moved is lead else None
    if after is not None and _OTHER_CASE.match(lead.context.text, after[0]):
        # "a month before" against "If you cancel more than 6 weeks before arrival ...":
        # on to "If you cancel later, you pay the full price ...", which needs the case
        # before it to say what "later" is
        return replace(lead, end=after[1])
    return moved


#: a sentence that opens with the case left after the one before it: "If you cancel
#: later, ...", "Otherwise, ..."
_OTHER_CASE = re.compile(
    r"\W*(?:otherwise|if\s+not|after\s+that|in\s+(?:any\s+)?other\s+cases?"
    r"|(?:if|when)\s+(?:you\s+|we\s+|it\s+)?(?:\w+\s+){0,2}?(?:later|earlier|sooner|"
    r"after\s+that|before\s+that))\b",
    re.I,
)


def _sentence_after(lead: Sentence) -> tuple[int, int] | None:
    """Where the sentence after ``lead`` stands on its line; ``None`` when it is the last."""
    text = lead.context.text
    after = [(a, b) for a, b in sentence_spans(text) if a >= lead.end]
    if not after or "\n" in text[lead.end : after[0][0]]:
        return None
    return after[0]


#: a sentence that opens with the case it is for: "If you are over 70, ..."
_OPENS_CASE = re.compile(r"\W*(?:if|when|once|unless)\b", re.I)
#: the case a question asks about: "Where can I park if the hotel car park is full?"
_ASKED_CASE = re.compile(r"\b(?:if|when|whenever|while|once|unless)\s+([^,;?]+)", re.I)
#: a sentence that states a case: "When it is full, ...", "If you cancel later, ...",
#: "While a load is raised above 2 m, ..."
_STATES_CASE = re.compile(r"\b(?:if|when|whenever|while|once|unless)\b", re.I)


def of_case(question: str, lead: Sentence, sentences: Sequence[Sentence]) -> Sentence:
    """The best-rated sentence of the lead's passage, rated nearly as high
    (:data:`ANSWERS_WITHIN`), that states a case and names more of the words of the case
    the question asks about than the lead does: for "Where can I park if the hotel car
    park is full?", "When it is full, the long-stay car park on Abbey Road is a
    five-minute walk away", not "Our car park has 14 spaces and cannot be booked in
    advance" that the relevance model rates a hair higher."""
    # a case the question puts, not the "When" it opens with ("When do I get my deposit
    # back?" asks for a time, and puts no case)
    m = next(
        (m for m in _ASKED_CASE.finditer(question) if re.search(r"\w", question[: m.start()])), None
    )
    case = stemmed_terms(m.group(1)) if m else set()
    if not case:
        return lead
    named = len(case & stemmed_terms(lead.text))
    stating = [
        s for s in _rated_near(lead, sentences)
        if _STATES_CASE.search(s.text) and len(case & stemmed_terms(s.text)) > named
    ]  # fmt: skip
    return max(stating, key=lambda s: s.score) if stating else lead


#: a permission denied only somewhere or at some time: "Dogs are not allowed in the Quay
#: Room or the spa"
_DENIED_WHERE = re.compile(
    r"\b(?:not|never)\s+(?:be\s+)?(?:allowed|permitted|accepted|admitted|welcome)\s+"
    r"(?:in|on|at|into|inside|during|before|after)\s+(.+)$",
    re.I,
)


#: a denial that opens with the time or case it holds in: "After 14 days, membership
#: cannot be refunded."
_DENIED_AFTER = re.compile(
    r"^\W*(?:after|before|beyond|outside|once|unless)\s+([^,]+),\s*(.+)$", re.I
)


def with_rule(question: str, lead: Sentence) -> Sentence:
    """``lead`` with the sentence before it on its line, when ``lead`` denies something
    only in a place or at a time the question does not name and that sentence names what
    it denies: for "Are dogs allowed?", "Dogs are welcome in our ground-floor rooms ...
    Dogs are not allowed in the Quay Room or the spa.", not the exception alone, which
    the relevance model rates far higher for its "allowed"; for "Can I get my membership
    money back?", "You can cancel within 14 days of joining and get a full refund ...
    After 14 days, membership cannot be refunded.", not the time it is denied alone."""
    denied = _DENIED_WHERE.search(lead.text)
    if denied is not None:
        where, denies = denied.group(1), lead.text[: denied.start()]
    elif (opened := _DENIED_AFTER.match(lead.text)) and NEGATION.search(opened.group(2)):
        where, denies = opened.group(1), opened.group(2)
    else:
        return lead
    if stemmed_terms(where) & stemmed_terms(question):
        return lead
    before = sentence_before(lead)  # none for the first of its line: no rule before it
    if before is None or not stemmed_terms(denies) & stemmed_terms(
        lead.context.text[before[0] : before[1]]
    ):
        return lead
    return replace(lead, start=before[0])


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


def sentence_before(lead: Sentence) -> tuple[int, int] | None:
    """Where the sentence before ``lead`` stands on its line (characters of its passage);
    ``None`` when ``lead`` is the first of its line (a list item, a paragraph)."""
    text = lead.context.text
    before = [(a, b) for a, b in sentence_spans(text) if b <= lead.start]
    if not before or "\n" in text[before[-1][1] : lead.start]:
        return None
    return before[-1]


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


def rule_before_exception(
    question: str,
    kind: AnswerKind,
    asked: Qualifiers | None,
    lead: Sentence,
    sentences: Sequence[Sentence],
) -> Sentence:
    """An earlier sentence of the lead's passage that states a value of ``kind``, as the
    lead does, names every word of the question the lead names, keeps to as
    many of its qualifiers ``asked`` and is rated nearly as high (:data:`ANSWERS_WITHIN`):
    a passage states its rule before the exceptions to it, and a question that names no
    exception asks for the rule. For "How many days of holiday do I get?", "You are
    entitled to 25 days' paid holiday a year", not "You may carry up to 5 unused days into
    the next holiday year"; for "How long do I have to return something?", "You can
    return unused items within 30 days", not "Sale items can be returned within 14 days".
    A question that names the exception ("carry over", "sale items") keeps the lead: the
    earlier sentence lacks that word. An earlier sentence that opens with a case ("If you
    do not choose a fund, ... over the 10 years before ...") is an exception itself, no
    rule, unless the lead opens with one too."""
    if not kind.found_in(lead.text):
        return lead
    lead_case = _OPENS_CASE.match(lead.text) is not None
    earlier = _rules_before(
        question,
        lead,
        sentences,
        lambda text: (
            kind.found_in(text)
            and (asked is None or _keeps_to(asked, text, lead.text))
            and (lead_case or not _OPENS_CASE.match(text))
        ),
    )
    return min(earlier, key=lambda s: s.start) if earlier else lead


def naming_more(
    question: str,
    kind: AnswerKind | None,
    asked: Qualifiers | None,
    lead: Sentence,
    sentences: Sequence[Sentence],
) -> Sentence:
    """Another sentence of the lead's passage that states a value of ``kind``, as the lead
    does (any sentence, for a yes-or-no question: ``kind`` ``None``), names every word of
    the question the lead names and more, keeps to as many of its qualifiers ``asked``
    and is rated nearly as high (:data:`ANSWERS_WITHIN`): the relevance model reads the
    topic, the question's own words say which of its sentences answers. For "When are
    the wards closed to visitors?", "Wards close to visitors from 12:30 to 13:30", not
    "Adult wards are open to visitors from 11:00 to 20:00" (rated 0.78 against 0.71); for
    "Do I keep the months left on my old passport?", "Time left on your old passport is
    not added to your new one.", not "A new adult passport is valid for 10 years"."""
    if kind is not None and not kind.found_in(lead.text):
        return lead
    named = question_words_in(question, lead.text)
    every = question_words_in(question, question)
    near = _rated_near(lead, sentences)
    more = [
        (s, said)
        for s in sentences
        if s.context is lead.context
        and (kind is None or kind.found_in(s.text))
        and (asked is None or _keeps_to(asked, s.text, lead.text))
        and named < (said := _named_back(question, s))  # never the lead itself
        and (s in near or (said == every and s.score > 0))  # or names all it asks
    ]
    return max(more, key=lambda m: (len(m[1]), m[0].score))[0] if more else lead


#: a sentence that opens by pointing back to the one before it: "It does not cover theft"
_POINTS_BACK = re.compile(r"\W*(?:it|they|this|these|that|those)\b(?!\s*[-:])", re.I)


def _named_back(question: str, sentence: Sentence) -> set[str]:
    """The question's words ``sentence`` names, and those the sentence before it on its
    line names when it opens by pointing back to it: "The waiver covers accidental damage
    ... It does not cover theft" names "waiver", "cover" and "theft"."""
    said = question_words_in(question, sentence.text)
    before = sentence_before(sentence) if _POINTS_BACK.match(sentence.text) else None
    if before is not None:
        said |= question_words_in(question, sentence.context.text[before[0] : before[1]])
    return said


def rule_before_row(question: str, lead: Sentence, sentences: Sequence[Sentence]) -> Sentence:
    """For a yes-or-no question, an earlier sentence of the lead's passage, not a table row,
    that names every word of the question the lead (a table row) names and is rated nearly
    as high (:data:`ANSWERS_WITHIN`), when the question names nothing of the row's header:
    the passage's rule before a table of its cases. For "Is it free to get in?", "Entry to
    the permanent galleries is free.", not the admission table's "Ticket Under 5: Price:
    Free."."""
    row = TABLE_ROW.match(lead.text.strip())
    if row is None or not CELL_LABEL.search(row.group("cells")):
        return lead
    if question_words_in(question, row.group("header")):
        return lead  # "Is it free for under 5s?" asks for the row
    earlier = _rules_before(
        question, lead, sentences, lambda text: TABLE_ROW.match(text.strip()) is None
    )
    if not earlier and not question_words_in(question, lead.text):
        # a row naming nothing asked answers nothing: "Is it cheaper to hire for the
        # weekend?", "a weekend ... costs the same as two days", however it was rated
        earlier = [
            s for s in sentences
            if s.context is lead.context and s.start < lead.start
            and TABLE_ROW.match(s.text.strip()) is None and question_words_in(question, s.text)
        ]  # fmt: skip
        return max(earlier, key=lambda s: (len(question_words_in(question, s.text)), s.score),
                   default=lead)  # fmt: skip
    return max(earlier, key=lambda s: s.score) if earlier else lead


def _rules_before(
    question: str, lead: Sentence, sentences: Sequence[Sentence], holds: Callable[[str], bool]
) -> list[Sentence]:
    """The sentences of the lead's passage before it, rated nearly as high
    (:data:`ANSWERS_WITHIN`), whose text ``holds`` and that name every word of the
    question the lead names: where a passage states its rule."""
    named = question_words_in(question, lead.text)
    return [
        s
        for s in _rated_near(lead, sentences)
        if s.start < lead.start and holds(s.text) and named <= question_words_in(question, s.text)
    ]


def _rated_near(lead: Sentence, sentences: Sequence[Sentence]) -> list[Sentence]:
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


def _keeps_to(asked: Qualifiers, text: str, lead: str) -> bool:
    """Whether ``text`` keeps to the question's qualifiers as well as ``lead`` does."""
    return asked.held(text) >= asked.held(lead) and not asked.clashes(text)
