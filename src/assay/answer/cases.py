"""A passage's rule, its exceptions and its cases: which of them the question asks for (pure).

A passage often states a rule, then its exceptions and the cases it depends on ("You can
return unused items within 30 days. Sale items can be returned within 14 days."; "If
you cancel more than 6 weeks before arrival you lose the deposit. If you cancel later,
..."). The relevance model rates whichever sentence shares most of the question's words,
so an exception or a case the asker is not in often leads. Each function here moves the
lead within its passage (:mod:`assay.answer.within`): to the rule when the question
names no exception, to the case whose bounds hold the asker's quantity, to the sentence
naming more of what the question names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from assay.answer.bounds import meets_condition
from assay.answer.expected import AnswerKind
from assay.answer.qualifiers import Qualifiers
from assay.answer.within import (
    POINTS_BACK,
    Sentence,
    best_of_passage,
    keeps_to,
    question_words_in,
    rated_near,
    sentence_after,
    sentence_before,
)
from assay.text import CELL_LABEL, NEGATION, TABLE_ROW, stemmed_terms

__all__ = [
    "meeting_case", "naming_more", "of_case", "rule_before_exception", "rule_before_row",
    "with_rule",
]  # fmt: skip


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
    after = sentence_after(lead) if moved is lead else None
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


#: a sentence that opens with the case it is for: "If you are over 70, ..."
_OPENS_CASE = re.compile(r"\W*(?:if|when|once|unless)\b", re.I)
#: the case a question asks about: "Where can I park if the hotel car park is full?"
_ASKED_CASE = re.compile(r"\b(?:if|when|whenever|while|once|unless)\s+([^,;?]+)", re.I)
#: a sentence that states a case: "When it is full, ...", "If you cancel later, ...",
#: "While a load is raised above 2 m, ..."
_STATES_CASE = re.compile(r"\b(?:if|when|whenever|while|once|unless)\b", re.I)


def of_case(question: str, lead: Sentence, sentences: Sequence[Sentence]) -> Sentence:
    """The best-rated sentence of the lead's passage, rated nearly as high
    (``within.ANSWERS_WITHIN``), that states a case and names more of the words of the case
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
        s for s in rated_near(lead, sentences)
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


def rule_before_exception(
    question: str,
    kind: AnswerKind,
    asked: Qualifiers | None,
    lead: Sentence,
    sentences: Sequence[Sentence],
) -> Sentence:
    """An earlier sentence of the lead's passage that states a value of ``kind``, as the
    lead does, names every word of the question the lead names, keeps to as
    many of its qualifiers ``asked`` and is rated nearly as high (``within.ANSWERS_WITHIN``):
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
            and (asked is None or keeps_to(asked, text, lead.text))
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
    and is rated nearly as high (``within.ANSWERS_WITHIN``): the relevance model reads the
    topic, the question's own words say which of its sentences answers. For "When are
    the wards closed to visitors?", "Wards close to visitors from 12:30 to 13:30", not
    "Adult wards are open to visitors from 11:00 to 20:00" (rated 0.78 against 0.71); for
    "Do I keep the months left on my old passport?", "Time left on your old passport is
    not added to your new one.", not "A new adult passport is valid for 10 years"."""
    if kind is not None and not kind.found_in(lead.text):
        return lead
    named = question_words_in(question, lead.text)
    every = question_words_in(question, question)
    near = rated_near(lead, sentences)
    more = [
        (s, said)
        for s in sentences
        if s.context is lead.context
        and (kind is None or kind.found_in(s.text))
        and (asked is None or keeps_to(asked, s.text, lead.text))
        and named < (said := _named_back(question, s))  # never the lead itself
        and (s in near or (said == every and s.score > 0))  # or names all it asks
    ]
    return max(more, key=lambda m: (len(m[1]), m[0].score))[0] if more else lead


def _named_back(question: str, sentence: Sentence) -> set[str]:
    """The question's words ``sentence`` names, and those the sentence before it on its
    line names when it opens by pointing back to it: "The waiver covers accidental damage
    ... It does not cover theft" names "waiver", "cover" and "theft"."""
    said = question_words_in(question, sentence.text)
    before = sentence_before(sentence) if POINTS_BACK.search(sentence.text) else None
    if before is not None:
        said |= question_words_in(question, sentence.context.text[before[0] : before[1]])
    return said


def rule_before_row(question: str, lead: Sentence, sentences: Sequence[Sentence]) -> Sentence:
    """For a yes-or-no question, an earlier sentence of the lead's passage, not a table row,
    that names every word of the question the lead (a table row) names and is rated nearly
    as high (``within.ANSWERS_WITHIN``), when the question names nothing of the row's header:
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
    (``within.ANSWERS_WITHIN``), whose text ``holds`` and that name every word of the
    question the lead names: where a passage states its rule."""
    named = question_words_in(question, lead.text)
    return [
        s
        for s in rated_near(lead, sentences)
        if s.start < lead.start and holds(s.text) and named <= question_words_in(question, s.text)
    ]
