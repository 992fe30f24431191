"""Which sentence drafts the answer: the best-answering one, unless a stronger source
answers too (pure). Within the lead's passage, :mod:`assay.answer.within` and
:mod:`assay.answer.cases` then move the lead to the sentence that holds what the
question asks for.

The relevance model rates each sentence of the evidence (:mod:`assay.answer.extractive`):
within one source, the best-rated sentence leads, as it held the answer more often than
the reader's span did on SQuAD's articles (78% against 75%). Across sources, evidence
strength decides: when an admitted passage of *another* source with a higher evidence
confidence (similarity, source reliability, freshness) answers too -- the reader finds
a fitting span in it (:attr:`assay.answer.reading.Found.answers`), or its best sentence
rates within :data:`ANSWERS_WITHIN` of the best -- the strongest such passage leads
instead. So a forum post that reads as the better answer never outranks a data sheet
that answers as well; a superseded text the gate let through never outranks its
successor. Evidence confidence weighs similarity to the question too, so source
reliability (the registry's) bounds it: a passage of a clearly less reliable source
(:data:`CLEARLY_MORE_RELIABLE`) never takes the lead from the best-rated sentence of a
more reliable one, and a clearly more reliable source that answers leads over the
best-rated sentence of a less reliable one, whatever their confidences ("Mine went amber
all evening", a forum thread titled "Router light amber", against the router guide's
"Solid amber: no internet connection"). It answers a question asking for a value of a
kind when its best sentence holds one and rates at least :data:`YES_NO_WITHIN` of a
forum post's best: the charges table's "Standing charge, per year: £48.00", not the post
"The standing charge is £44 a year" that echoes the question.

Within one source too, the reader can overrule the relevance model for a question that
asks for a value of a kind (a price, a date, a duration): when it reads a passage as
surely answering (margin at least :data:`SURE_MARGIN`, its span of the kind asked) and
that passage is at least as strong as the lead's, which it does not surely answer from,
that passage's best-rated sentence leads: "The charge is £4.00 per request" of the
reservations section, not the DVD row of the loans table that the relevance model rates
higher, for "What is the charge for an inter-library loan request?".

A yes-or-no question ("Can I still run 4.3 on Python 3.9?") is not read for a span, and
the relevance model rates highest the sentence that echoes its words, most often a
forum post restating it ("3.9 still works with 4.3"), while the official text states the
rule in its own words ("Python 3.9 is no longer supported"). For these questions a
passage of another source answers too when it is clearly stronger (its confidence
higher by :data:`CLEARLY_STRONGER`) and its best sentence rates at least
:data:`YES_NO_WITHIN` of the best.

Each answering passage of another source whose span gives another value than the
lead's -- other figures or durations ("two weeks" against "30 days"), or for a name or
date no word in common -- is a *disagreement* (:mod:`assay.answer.disagreement`), named
beside the answer with its source; the answer states the lead. So is a passage the
reader did not read (it reads the strongest few) whose best sentence answers and gives
another value of the kind asked.
For a yes-or-no question, a rated sentence of another source that denies what the lead
affirms, or affirms what it denies ("You can put glass in the blue bin" against "not in
the blue bin"), is one too; a reassurance ("no problems", "don't worry") is no denial.

A disagreement is settled by who says it: when a disagreeing passage's source is
clearly more reliable than the lead's (by :data:`CLEARLY_MORE_RELIABLE` in the
registry), it leads instead, and the first lead becomes the disagreement. Evidence
confidence weighs similarity to the question too, so a forum post that echoes the
question ("I brought my 8-year-old into the ICU") could outrank the policy that answers
it in its own words ("Children under 12 are not admitted to the ICU").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.answer import disagreement
from assay.answer.bounds import asks_limit
from assay.answer.cases import (
    meeting_case,
    naming_more,
    of_case,
    rule_before_exception,
    rule_before_row,
)
from assay.answer.disagreement import (
    YES_NO_WITHIN,
    YES_OR_NO,
    Disagreement,
    disagree,
    other_source,
)
from assay.answer.expected import (
    CONDITION,
    CONTENTS,
    DURATION,
    MONEY,
    AnswerKind,
    asks_what_is_in,
    asks_what_to_do,
    asks_who_qualifies,
    instructs,
)
from assay.answer.polarity import asks_cost
from assay.answer.qualifiers import Qualifiers
from assay.answer.reading import Found
from assay.answer.short import asks_price
from assay.answer.steps import on_step, steps_in
from assay.answer.within import (
    ANSWERS_WITHIN,
    Sentence,
    bounding,
    costing,
    keeping_to,
    lead_in,
    of_day,
    of_holiday,
    of_kind,
    question_words_in,
    telling,
)
from assay.judge.schema import Context
from assay.judge.strength import CLEARLY_MORE_RELIABLE, SETTLED, more_reliable
from assay.scoring.gate import IN_FORCE

__all__ = [
    "ANSWERS_WITHIN", "CLEARLY_MORE_RELIABLE", "CLEARLY_STRONGER", "SURE_MARGIN",
    "YES_NO_WITHIN", "YES_OR_NO", "Choice", "Disagreement", "Sentence", "choose", "disagree",
]  # fmt: skip

#: a reader margin at which a passage surely answers, so that its best sentence leads
#: over a better-rated one of a weaker passage: on the ordinary fitting suite
#: (``labels/ordinary-fit``) 3 drafted three more right answers and no wrong one, 2 and
#: below also quoted a passage's other time or price ("11:00" for the emergency slots);
#: for questions that ask for no kind of value it moved SQuAD and TAT-QA answers both
#: ways ("What does ... represent?" quoted a table's label), so they keep the relevance
#: model's choice
SURE_MARGIN = 3.0
#: how much higher a confidence is clearly stronger: the judge's margin for settling a
#: conflict by source strength
CLEARLY_STRONGER = SETTLED


@dataclass(frozen=True, slots=True)
class Choice:
    """The sentence that drafts the answer, what the reader found in its passage, and
    the passages of other sources that answer otherwise."""

    lead: Sentence
    reading: Found | None
    disagreeing: tuple[Disagreement, ...] = ()

    @property
    def span(self) -> str | None:
        """The reader's best span within the lead sentence, when it found one in a
        passage it reads as answering (a span of a passage read as holding no answer
        is no answer: "February" of "invoiced in February and must be paid by 31
        March")."""
        if self.reading is None or not self.reading.answers:
            return None
        return self.reading.span_in(self.lead.start, self.lead.end)


def _strength(c: Context) -> float:
    return -1.0 if c.confidence is None else c.confidence


def _weak(context: Context) -> bool:
    """Whether ``context``'s source is a forum post or a message (below
    :data:`~assay.scoring.gate.IN_FORCE`): one that answers alone is not published while a
    clearly more reliable source is admitted (:func:`~assay.judge.strength.weak_alone`)."""
    return context.reliability is not None and context.reliability < IN_FORCE


def choose(
    sentences: Sequence[Sentence],
    found: Sequence[Found],
    kind: AnswerKind | None,
    *,
    yes_no: bool = False,
    asked: Qualifiers | None = None,
    question: str = "",
    aside: Sequence[Sentence] = (),
) -> Choice | None:
    """The lead sentence of ``sentences`` (see the module docstring), with ``found``, the
    reader's findings in the strongest passages, for a yes-or-no question when
    ``yes_no``, keeping to the question's qualifiers ``asked``; the reader's span of
    another passage disagrees only where its sentence speaks to what the lead says of
    ``question`` (:func:`assay.text.speaks_to`; a denial always disagrees: "charge only
    between 0 and 45 °C" against "charges fine at 70 °C in the car"); ``aside`` are
    sentences of other sources rated only to find a yes-or-no disagreement, not to lead by
    their rating (a more reliable source that denies still settles it);
    ``None`` without sentences."""
    if not sentences:
        return None
    best = max(sentences, key=lambda s: s.score)  # the first of equals
    by_context = {id(f.context): f for f in found}
    rated: dict[int, Sentence] = {}
    for s in sentences:
        if id(s.context) not in rated or s.score > rated[id(s.context)].score:
            rated[id(s.context)] = s
    stronger, answering = [], []
    for s in rated.values():
        reading = by_context.get(id(s.context))
        # a forum post echoing the question ("Mileage is unlimited so we drove all over
        # Scotland", "The standing charge is £44 a year") against the terms ("up to 150
        # miles per day", the charges table's "Standing charge, per year: £48.00")
        outweighs_weak = _weak(best.context) and more_reliable(s.context, best.context)
        answers = (
            (reading is not None and reading.answers)
            or s.score >= ANSWERS_WITHIN * best.score
            or (
                s.score >= YES_NO_WITHIN * best.score
                and (
                    (
                        yes_no
                        and (
                            _strength(s.context) >= _strength(best.context) + CLEARLY_STRONGER
                            or outweighs_weak
                        )
                    )
                    or (kind is not None and outweighs_weak and kind.found_in(s.text))
                )
            )
        )
        if answers:
            answering.append(s)
        if (
            answers
            and (
                _strength(s.context) > _strength(best.context)
                or more_reliable(s.context, best.context)
            )
            and other_source(s.context, best.context)
            and not more_reliable(best.context, s.context)  # a forum post echoing the question
        ):
            stronger.append(s)
    lead = best
    if stronger:  # a clearly more reliable source first, then the strongest evidence
        first = max(
            stronger, key=lambda s: (more_reliable(s.context, best.context), _strength(s.context))
        )
        lead = lead_in(first, by_context)
    if kind is not None and not yes_no:  # a question that asks for a value of a kind
        lead = of_kind(_surely_read(lead, found, rated), kind, by_context, sentences, question)
        lead = _holding_kind(lead, kind, answering, by_context, sentences, question)
        if asks_price(question) and DURATION.found_in(lead.text) and not MONEY.found_in(lead.text):
            # "How much is delivery?": a price, not "Deliveries ... take up to 7 working days"
            lead = of_kind(lead, MONEY, by_context, sentences, question)
        lead = rule_before_exception(question, kind, asked, lead, sentences)
        lead = naming_more(question, kind, asked, lead, sentences)
    elif not yes_no:
        lead = _surely_read(lead, found, rated, by=CLEARLY_STRONGER)
        if asks_what_to_do(question):
            lead = _procedure(lead, sentences)
            if not on_step(lead):  # a numbered step instructs, whatever its verb ("Unscrew")
                lead = telling(lead, sentences, lambda text: instructs(text, question))
        elif asks_who_qualifies(question):
            lead = telling(lead, sentences, lambda text: CONDITION.search(text) is not None)
        elif asks_what_is_in(question):  # "It includes an oil and filter change ..."
            lead = telling(lead, sentences, lambda text: CONTENTS.search(text) is not None)
    elif asks_cost(question):
        lead = costing(lead, sentences)
    elif asks_limit(question):
        lead = bounding(lead, sentences)
    if yes_no:  # "Is it free to get in?": the rule, not the under-5s' row of its table
        lead = naming_more(question, None, asked, rule_before_row(question, lead, sentences),
                           sentences)  # fmt: skip
    lead = of_case(question, lead, sentences)  # "if the car park is full": "When it is full"
    lead = meeting_case(question, lead, sentences)  # "if I cancel three days before"
    heard = [*rated.values(), *aside]
    disagreeing = disagreement.disagreeing(
        question, lead, found, heard, best, kind, yes_no=yes_no, by_context=by_context
    )
    trusted = [d for d in disagreeing if more_reliable(d.context, lead.context)]
    if trusted:  # a contradiction is settled by who says it, not by who echoes the question
        top = max(trusted, key=lambda d: d.context.reliability or 0.0)
        lead = lead_in(rated[id(top.context)], by_context)
        disagreeing = disagreement.disagreeing(
            question, lead, found, heard, best, kind, yes_no=yes_no, by_context=by_context
        )
    lead = of_day(asked, keeping_to(asked, lead, by_context), sentences, question)
    lead = of_holiday(question, lead, sentences)  # "on Boxing Day?": "on 25 and 26 December"
    reading = by_context.get(id(lead.context))
    return Choice(lead, reading, disagreeing)


def _procedure(lead: Sentence, sentences: Sequence[Sentence]) -> Sentence:
    """For a question that asks what to do, the best-rated step of the strongest admitted
    passage that sets out numbered steps (:func:`~assay.answer.steps.steps_in`), when it
    is at least as strong as the lead's passage, which sets out none, and no less
    reliable: "How do I order a repeat prescription?" is answered by "1. Tick the items
    you need ... 2. Hand the form in ... 3. Collect your medicine", not by "Order your
    repeat prescription at least 7 days before you run out", which echoes the question
    (:func:`~assay.answer.steps.with_steps` quotes the steps whole)."""
    if steps_in(lead.context.text):
        return lead
    steps = [
        s for s in sentences
        if on_step(s)
        and _strength(s.context) >= _strength(lead.context)
        and not more_reliable(lead.context, s.context)
    ]  # fmt: skip
    if not steps:
        return lead
    return max(steps, key=lambda s: (_strength(s.context), s.score))


def _holding_kind(
    lead: Sentence,
    kind: AnswerKind,
    answering: Sequence[Sentence],
    by_context: dict[int, Found],
    sentences: Sequence[Sentence],
    question: str,
) -> Sentence:
    """The sentence of the kind asked for of the strongest other answering passage (of
    ``answering``, the best-rated sentences of the passages :func:`choose` reads as
    answering), when no sentence of the lead's passage holds a value of that kind: for
    "What is the monthly rent for Flat 4B?", "The rent is £1,450 per calendar month" of
    the rent clause, not the property clause that names the flat and that the relevance
    model rates a hair higher. One less reliable than the lead's never takes it, nor one
    that names none of the ``question``'s words."""

    def holds(context: Context) -> bool:
        return any(s.context is context and kind.found_in(s.text) for s in sentences)

    if kind.found_in(lead.text) or holds(lead.context):
        return lead
    holding = [
        s for s in answering
        if s.context is not lead.context
        and holds(s.context)
        and not more_reliable(lead.context, s.context)
    ]  # fmt: skip
    if not holding:
        return lead
    top = max(holding, key=lambda s: _strength(s.context))
    moved = of_kind(top, kind, by_context, sentences)
    # "How much is the deposit?" (25% of the stay): not "... except a £15 admin fee",
    # which names nothing the question asks about
    return moved if not question or question_words_in(question, moved.text) else lead


def _surely_read(
    lead: Sentence, found: Sequence[Found], rated: dict[int, Sentence], by: float = 0.0
) -> Sentence:
    """The best-rated sentence of the strongest passage the reader surely answers from
    (:data:`SURE_MARGIN`, or a margin above 0 and that much above the lead's passage's),
    when it is at least as strong as ``lead``'s passage (stronger by ``by``: a question
    that asks for no kind of value moves only to a clearly stronger one) and the reader
    does not surely answer from that one; else ``lead``. A passage more reliable than that
    one keeps the lead (a source that ranks lower for its similarity alone does not
    overrule a more reliable one)."""
    lead_margin = next((f.margin for f in found if f.context is lead.context), None)
    sure = [
        f for f in found
        if f.answers
        and (f.margin >= SURE_MARGIN or (lead_margin is not None and f.margin > 0
                                         and f.margin >= lead_margin + SURE_MARGIN))
    ]  # fmt: skip
    if not sure or any(f.context is lead.context for f in sure):
        return lead
    top = max(sure, key=lambda f: _strength(f.context))
    if _strength(top.context) < _strength(lead.context) + by or more_reliable(
        lead.context, top.context
    ):
        return lead
    own = rated.get(id(top.context))
    if own is not None and own.score > 0:
        return own
    return Sentence(top.context, *top.sentence, 0.0)
