"""Which passages of other sources answer otherwise than the lead (pure).

:func:`assay.answer.choose.choose` picks the sentence that drafts the answer; a passage
of another source that answers too but gives another value is a *disagreement*, named
beside the answer with its source. Two values disagree when they state other durations
("two weeks" against "30 days"), other figures of the same thing ("7.5 ampere fuse"
against "15 amp fuse", but not a current against a fuse rating, nor a value within the
other's bound), or for a name or date no word in common (:func:`disagree`). The reader's
span of each passage it read is compared with the lead's; a passage it did not read is
compared by its best sentence's typed value; for a yes-or-no question, a sentence that
denies what the lead affirms (or the reverse) disagrees, a reassurance ("no problems")
being no denial. A rival statement counts where it speaks to what the lead says of the
question (:func:`assay.text.speaks_to`); a forum post or a review clearly less reliable
than the lead's source says the opposite in its own words ("Had to pay £15 for the
courtesy car" against "A courtesy car is free"), so it needs fewer of the question's
words. A value stated as a limit ("20kg max") rivals the lead's limit ("up to 23 kg").
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.answer.bounds import meets_bound, states_limit
from assay.answer.expected import ENDLESS, MONEY, AnswerKind
from assay.answer.polarity import says_no
from assay.answer.reading import Found
from assay.answer.short import short_answer
from assay.answer.within import Sentence
from assay.judge.schema import Context
from assay.judge.strength import more_reliable
from assay.text import (
    NEGATION,
    NUMBER,
    SPEAKS_TO,
    figures,
    sentence_spans,
    speaks_to,
    stem,
    stemmed_terms,
    titled,
)

__all__ = [
    "DISAGREES_WITHIN", "WEAKER_RATED", "WEAKER_SHARE", "YES_NO_WITHIN", "YES_OR_NO",
    "Disagreement", "answers_no_to", "disagree", "disagreeing", "opener_holds",
    "other_source",
]  # fmt: skip


#: for a yes-or-no question, the share a clearly stronger passage's best sentence needs
YES_NO_WITHIN = 0.15
#: the share of the best rating a passage the reader did not read needs for its value to
#: disagree: a forum's "FSCS only covers you up to £85,000" (rated 0.46 against the
#: terms' 0.87) states another limit, though it reads as answering less well
DISAGREES_WITHIN = 0.5
#: the share of the question's terms the answer holds that the statement of a clearly
#: less reliable source must hold to speak to it (:data:`assay.text.SPEAKS_TO` for any
#: other): a review's "Had to pay £15 for the courtesy car" contradicts "A courtesy car
#: is free" in other words than the question's "free". Held for every source, it named
#: 14 statements of official texts about other things on the fitting suite
WEAKER_SHARE = 0.5
#: the share of the best rating that such a statement needs for :data:`WEAKER_SHARE`: a
#: forum's "paid £75 for the resit" (0.20 against 0.77) is about last year's fee, not
#: the cap asked for
WEAKER_RATED = 0.5
#: a passage that opens with its answer: "No.", "Yes, ..."
YES_OR_NO = re.compile(r"^\W*(yes|no)\b(?=\s*[.,;:!\u2014-])", re.IGNORECASE)
#: a word that forbids; with :data:`assay.text.NEGATION` (which holds "nothing": "bring
#: nothing inflatable"), a sentence with one and a sentence without say opposite things
_FORBIDS = re.compile(r"\b(?:avoid|forbidden|prohibited|banned)\b", re.IGNORECASE)
#: a negation that reassures rather than denies: "no problems", "don't worry", "did no
#: harm" affirm what a forum post says works ("Python 3.9 still works with 4.3, ... no
#: problems" against "Python 3.9 is no longer supported")
_REASSURES = re.compile(
    r"\b(?:no|without(?: any)?|never (?:had|caused) (?:any|an?))\s+"
    r"(?:problems?|issues?|trouble|harm|worries)\b"
    r"|\b(?:do not|don't|no need to) worry\b|\bnot an? (?:problem|issue)\b"
    r"|\bnothing to worry about\b",
    re.IGNORECASE,
)
_COUNT = "one two three four five six seven eight nine ten eleven twelve".split()
_DAYS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "week": 7, "month": 30, "year": 365}
_DURATION = re.compile(
    rf"\b(\d+(?:\.\d+)?|{'|'.join(_COUNT)}|an?)[\s-]+({'|'.join(_DAYS)})s?\b", re.IGNORECASE
)
#: a rate: "2 days a week" states no length of time
_RATE = re.compile(
    rf"{_DURATION.pattern}\s+(?:a|an|per|each|every)\s+(?:{'|'.join(_DAYS)})\b", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A passage of another source that answers otherwise, and what it states."""

    context: Context
    states: str


def other_source(a: Context, b: Context) -> bool:
    """Whether ``a`` comes from another source than ``b`` (or names none)."""
    return a.source_id is None or a.source_id != b.source_id


def _units(text: str) -> set[str]:
    """The words beside a span's figures: what they count ("eight" counts nothing)."""
    return {w for w in stemmed_terms(text) if not any(ch.isdigit() for ch in w) and w not in _COUNT}


def _durations(text: str) -> set[float]:
    """The durations ``text`` states, in days ("two weeks" is 14, "30 days" 30,
    "forever" infinite; "2 days a week" none)."""
    out = {math.inf} if re.search(ENDLESS, text, re.IGNORECASE) else set()
    for count, unit in _DURATION.findall(_RATE.sub(" ", text)):
        word = count.lower()
        n = 1.0 if word in ("a", "an") else _COUNT.index(word) + 1.0 if word in _COUNT else None
        out.add(round((float(count) if n is None else n) * _DAYS[unit.lower()], 4))
    return out


def _counted(text: str) -> set[str]:
    """The figures of ``text``, a count written in words among them ("eight" is "8"; not
    "one", which is as often a pronoun)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return figures(text) | {str(i + 1) for i, w in enumerate(_COUNT) if i and w in words}


def disagree(a: str, b: str, kind: AnswerKind | None, stating: tuple[str, str] = ("", "")) -> bool:
    """Whether two answers give different values: different durations when both state
    durations ("two weeks" against "30 days' notice"); different figures of the same
    thing when both state figures, a count in words among them ("7.5 ampere fuse" against
    "15 amp fuse", "eight" against "1 teacher per 15", but not "4.2 amperes" against "15
    amp", a current and a fuse rating, nor "0 °C" against "0 °C and 45 °C", one span cut
    shorter, nor "25" against "more than 10 days", a value within the other's bound, nor
    a price against a figure of something else, "£45" against "20kg max"); for
    a name or date, no word in common. ``stating`` are the sentences that state ``a`` and
    ``b``: a value that one states as a limit of its own is a rival limit, not a value
    within the other's bound ("up to 23 kg" against a forum's "20kg max"), and values
    that the sentence stating ``a`` lists together are no other values."""
    if (meets_bound(a, b) and not states_limit(stating[0], a)) or (
        meets_bound(b, a) and not states_limit(stating[1], b)
    ):  # "25" within "more than 10 days"
        return False
    if _listed_together(a, b, stating[0]):  # "15:30" and "08:30" of "08:30, 12:30 and 15:30"
        return False
    da, db = _durations(a), _durations(b)
    if da and db:
        return not (da <= db or db <= da)
    fa, fb = _counted(a), _counted(b)
    if fa and fb and _money(a, stating[0]) != _money(b, stating[1]):
        return False  # a price and a weight: "£45" against "20kg max"
    if fa and fb:
        ua, ub = _units(a), _units(b)
        nested = fa <= fb or fb <= fa  # "0 °C" of "0 °C and 45 °C": a span cut short
        return not nested and (not ua or not ub or bool(ua & ub))
    if kind is not None and kind.name in ("name", "date"):
        return not (stemmed_terms(a) & stemmed_terms(b))
    return False


def _money(span: str, sentence: str) -> bool:
    """Whether ``span`` states an amount of money, or its figure stands after a currency
    sign in ``sentence`` (a reader's "85,000" of "only covers you up to £85,000")."""
    return MONEY.found_in(span) or any(
        re.search(rf"[$€£¥]\s?{re.escape(n)}(?![\d.,]*\d)", sentence) for n in NUMBER.findall(span)
    )


#: values written as one list: "08:30, 12:30 and 15:30", "£5 or £10"
_LIST = re.compile(
    r"[$€£]?\d[\d:.,]*(?:\W*(?:,|\band\b|\bor\b|&)\W*[$€£]?\d[\d:.,]*)+", re.IGNORECASE
)


def _listed_together(a: str, b: str, text: str) -> bool:
    """Whether ``text`` lists the figures of ``a`` and ``b`` together, as one answer's
    values ("We hold emergency slots at 08:30, 12:30 and 15:30")."""
    fa, fb = _counted(a), _counted(b)
    return bool(fa and fb) and any(
        fa | fb <= figures(m.group(0)) for m in _LIST.finditer(text.replace("*", ""))
    )


def answers_no_to(question: str, sentence: Sentence) -> bool:
    """Whether ``sentence`` answers the yes-or-no ``question`` with no: as its passage
    opens, else by a price, "free" or a limit where the question asks about those
    (:func:`~assay.answer.polarity.says_no`: "Roaming in the EU costs £2 a day" against a
    forum's "EU roaming is still free"), else as it denies (:func:`_answers_no`)."""
    if YES_OR_NO.match(sentence.context.text) is None:
        said = says_no(question, sentence.text)
        if said is not None:
            return said
    return _answers_no(sentence)


def _answers_no(sentence: Sentence) -> bool:
    """Whether ``sentence`` answers a yes-or-no question with no: as its passage opens
    ("No. Only fully electric vehicles get the discount. Plug-in hybrids pay the
    standard price.": an FAQ's answer says it once for all its sentences) where that
    opening holds for it (:func:`opener_holds`), else as the sentence denies or forbids
    (:func:`_denies`)."""
    opener = YES_OR_NO.match(sentence.context.text)
    if opener is not None and opener_holds(sentence):
        return opener.group(1).lower() == "no"
    return _denies(sentence.text)


def opener_holds(sentence: Sentence) -> bool:
    """Whether the "Yes" or "No" that ``sentence``'s passage opens with answers for it
    too: not a "Yes." before a later sentence that itself denies. An FAQ's "Do you need a
    credit card?" opens "Yes. ... Debit cards are not accepted for the deposit.", and
    "Can I pay the deposit with a debit card?" was answered "Yes. Debit cards are not
    accepted ..."; without the opening, a sentence that denies answers no."""
    opener = YES_OR_NO.match(sentence.context.text)
    if opener is None:
        return False
    later = sentence.start >= opener.end()
    # a condition's "no" is no denial: "If your system has no C-wire, the T3 requires ..."
    main = _CONDITION.sub("", sentence.text, count=1)
    return not (later and opener.group(1).lower() == "yes" and _denies(main))


#: a sentence's opening condition, up to its comma: "If your system has no C-wire,"
_CONDITION = re.compile(r"^\W*(?:if|when|unless|where)\b[^,]*,", re.IGNORECASE)


def _denies(text: str) -> bool:
    """Whether ``text`` denies or forbids (a reassurance is no denial)."""
    text = _REASSURES.sub(" ", text)
    return NEGATION.search(text) is not None or _FORBIDS.search(text) is not None


#: the unit a question counts in: "How many hours a week ...?"
_ASKED_UNIT = re.compile(
    r"\bhow\s+many\s+(seconds|minutes|hours|days|weeks|months|years|miles|kilometres|km|kg)\b",
    re.IGNORECASE,
)


def disagreeing(
    question: str,
    lead: Sentence,
    found: Sequence[Found],
    heard: Sequence[Sentence],
    best: Sentence,
    kind: AnswerKind | None,
    *,
    yes_no: bool,
    by_context: dict[int, Found],
) -> tuple[Disagreement, ...]:
    """The passages of other sources that answer otherwise than ``lead`` (``heard``: the
    best-rated sentence of each passage, and those read aside)."""
    reading = by_context.get(id(lead.context))
    said = reading.span_in(lead.start, lead.end) if reading is not None else None
    unit = _ASKED_UNIT.search(question)
    rated = {id(s.context): _of_best(s, best) for s in heard}
    disagreeing = tuple(
        Disagreement(f.context, f.answer)
        for f in found
        if f.answers
        and f.context is not lead.context
        and other_source(f.context, lead.context)
        and said is not None
        # "How many hours a week do I work?": "up to 2 days a week" (from home) counts
        # something else than the asked hours
        and (unit is None or stem(unit.group(1).lower()) in stemmed_terms(f.answer))
        and disagree(said, f.answer, kind, (lead.text, _stating(f)))
        and _speaks_to(
            question,
            lead,
            f.context,
            f"{f.context.title or ''} {_stating(f)}",
            rated.get(id(f.context), 0.0),
        )
    )
    if kind is not None and not yes_no:
        disagreeing += _unread_disagreeing(question, lead, said, heard, best, kind, by_context)
    if yes_no:
        disagreeing += tuple(
            Disagreement(s.context, s.text.strip())
            for s in heard
            if s.context is not lead.context
            and other_source(s.context, lead.context)
            and s.score >= YES_NO_WITHIN * best.score
            and answers_no_to(question, s) != answers_no_to(question, lead)
            and _speaks_to(
                question,
                lead,
                s.context,
                titled(s.context.title, s.text),
                _of_best(s, best),
                said=titled(lead.context.title, lead.text),
            )
        )
    return disagreeing


def _of_best(sentence: Sentence, best: Sentence) -> float:
    """``sentence``'s rating as a share of the best one's."""
    return sentence.score / best.score if best.score > 0 else 0.0


def _speaks_to(
    question: str,
    lead: Sentence,
    rival: Context,
    stated: str,
    rated: float,
    *,
    said: str | None = None,
) -> bool:
    """Whether ``stated``, what ``rival`` says, speaks to what ``lead`` (or ``said``, its
    text as read) says of ``question`` (:func:`assay.text.speaks_to`); a clearly less
    reliable source whose sentence is ``rated`` at least :data:`WEAKER_RATED` of the best
    needs only :data:`WEAKER_SHARE` of the terms."""
    weaker = more_reliable(lead.context, rival) and rated >= WEAKER_RATED
    share = WEAKER_SHARE if weaker else SPEAKS_TO
    return speaks_to(question, lead.text if said is None else said, stated, share)


def _stating(found: Found) -> str:
    """Every sentence of the found passage that states its answer: a forum post says "paid
    £75 for the resit" and then "the same this year, £75 a module", and the two together
    say what it claims of the question."""
    text, said = found.context.text, found.answer
    stating = [text[a:b].strip() for a, b in sentence_spans(text) if said and said in text[a:b]]
    return " ".join(stating) or found.quote


def _unread_disagreeing(
    question: str,
    lead: Sentence,
    said: str | None,
    heard: Sequence[Sentence],
    best: Sentence,
    kind: AnswerKind,
    by_context: dict[int, Found],
) -> tuple[Disagreement, ...]:
    """For a question that asks for a value of a kind, the passages of other sources the
    reader did not read (it reads the strongest few) whose best sentence answers (rated
    within :data:`DISAGREES_WITHIN` of the best) with another value of that kind: a forum's
    "3 years warranty on all laptops as standard" against the policy's "24 months". The
    values compared are the typed short answers (:func:`assay.answer.short.short_answer`)
    where the reader gave none; the disagreement states the sentence whole, as a
    yes-or-no one does ("14 year" of "My 14 year old rides ..." says too little)."""
    stated = said or short_answer(question, lead.text)
    if stated is None:
        return ()
    out = []
    for s in heard:
        if (
            id(s.context) in by_context
            or s.context is lead.context
            or not other_source(s.context, lead.context)
            or s.score < DISAGREES_WITHIN * best.score
        ):
            continue
        value = short_answer(question, s.text)
        if (
            value is not None
            and disagree(stated, value, kind, (lead.text, s.text))
            and _speaks_to(
                question,
                lead,
                s.context,
                f"{s.context.title or ''} {s.text}",
                _of_best(s, best),
            )
        ):
            out.append(Disagreement(s.context, s.text.strip()))  # unread: said whole
    return tuple(out)
