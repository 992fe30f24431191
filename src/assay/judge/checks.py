"""The judge's checks that need no model: evidence sufficiency, speculation, definitions.

* :func:`missing_information` (J2, evidence sufficiency): what the query asks for that
  no context holds. The query's figures (or, for a figure with a unit, some figure in
  that unit), years and proper names must appear in some
  context, and the kind of answer the query's wording asks for
  (:mod:`assay.answer.expected`: a date for "when", a duration for "how long", a name
  for "who") must appear in one. Synonyms are not chased: a query about the
  "price" is not met by a context about the "cost" only if neither word is a figure.
* :func:`speculation` (J2, speculation check): claims that hedge, generalise or infer
  ("probably", "always", "therefore") where the evidence they rest on does not.
* :func:`definition_conflicts`: two contexts that define the same term differently
  ("X means ...", "X is defined as ...") -- a definitional conflict in the J1 sense.
* :func:`out_of_range`: a figure of the claim that falls outside a range a context
  gives for the same thing in the same unit ("charges fine at 70 °C" against "charge
  only between 0 °C and 45 °C") -- a contradiction that shares too few words for the
  support model or a sentence alignment to see.
* :func:`beyond_bound`: the same for a bound ("business class is allowed on any flight
  over 4 hours" against "may be booked only for flights ... over 6 hours"), which
  texts state far more often than a range, so the two sentences must share more.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from assay.answer.expected import expected_kind
from assay.answer.headings import heading_answer
from assay.answer.qualifiers import day_kinds
from assay.days_of_week import days_named
from assay.judge.schema import Context
from assay.text import (
    BOUND,
    MONTH,
    NOT_NAMES,
    NUMBER,
    SENTENCE_BREAK,
    YEAR,
    content_terms,
    countries_grouped,
    holidays_dated,
    measured_figures,
    stem,
    term_cosine,
    titled,
)

__all__ = [
    "beyond_bound",
    "definition_conflicts",
    "missing_information",
    "out_of_range",
    "speculation",
]

_NAME = re.compile(r"(?<!^)\b[A-Z][\w'-]*[A-Za-z0-9]")
#: a figure the query states, not a digit of a code: "LN2" is a name, held where a
#: context says "LN2", not a figure 2 that no context states
_FIGURE = re.compile(rf"(?<![A-Za-z0-9]){NUMBER.pattern}")
_SPECULATIVE = re.compile(
    r"\b(?:probably|likely|possibly|perhaps|presumably|apparently|seems?|appears?|suggests?|"
    r"might|generally|usually|typically|normally|always|never|all|every|everyone|everything|"
    r"most|in general|therefore|thus|hence|implies|implying|consequently)\b",
    re.I,
)
_DEFINITION = re.compile(
    r"^\W*(?:an?\s+|the\s+)?(?P<term>[\w][\w\s'-]{0,40}?)\s+(?:is\s+defined\s+as|means|"
    r"refers\s+to|is\s+the\s+term\s+for)\s+(?P<body>.+)$",
    re.I,
)


_UNIT = r"(°\s?[CFK]\b|%|[A-Za-z]{1,8}\b)"
_VALUE = re.compile(rf"(?<![\w.])(-?\d+(?:\.\d+)?)\s*{_UNIT}")
_RANGE = re.compile(
    rf"(-?\d+(?:\.\d+)?)\s*{_UNIT}?\s*(?:-|\u2013|\u2014|to|and)\s*(-?\d+(?:\.\d+)?)\s*{_UNIT}"
)


_UNITS = frozenset(
    "mg g kg ml l mm cm km m s h min hours hour minutes days years volts watts psi bar".split()
)


_QUANTITIES = frozenset(
    """temperature temperatures temp degree degrees heat weight mass time duration length
    distance size dose dosage amount level range limit limits maximum minimum max min value
    values rate speed pressure voltage current capacity percentage percent""".split()
)


def _unit(text: str | None) -> str:
    return re.sub(r"\s+", "", text or "").casefold()


def _subject(text: str) -> set[str]:
    """Stemmed meaningful words without figures, units, product codes or names of
    quantities: what a statement is about ("charge", "store"), not which item or which
    measure it names ("HX-40", "temperature")."""
    return {
        stem(t)
        for t in content_terms(text)
        if not any(ch.isdigit() for ch in t) and len(t) > 2 and t not in _UNITS | _QUANTITIES
    }


def out_of_range(claim: str, text: str) -> str | None:
    """The sentence of ``text`` giving a range, in the unit of a single figure of a
    sentence of ``claim``, that the figure falls outside of -- when the two sentences
    are about the same thing (they share a meaningful word that is not a figure, unit,
    product code or the name of a quantity)."""
    for said in SENTENCE_BREAK.split(claim.strip()):
        ranged = [m.span() for m in _RANGE.finditer(said)]
        values = [
            (float(m.group(1)), _unit(m.group(2)))
            for m in _VALUE.finditer(said)
            if not any(a <= m.start() < b for a, b in ranged)  # its own ranges aside
        ]
        about = _subject(said) if values else set()
        for sentence in SENTENCE_BREAK.split(text.strip()) if about else ():
            for m in _RANGE.finditer(sentence) if about & _subject(sentence) else ():
                low, high = sorted((float(m.group(1)), float(m.group(3))))
                unit = _unit(m.group(4))
                if m.group(2) and _unit(m.group(2)) != unit:
                    continue
                if any(u == unit and not low <= v <= high for v, u in values):
                    return sentence
    return None


_LOWER = (
    r"over|above|more\s+than|greater\s+than|longer\s+than|exceeding|at\s+least|"
    r"no\s+less\s+than|in\s+excess\s+of|a\s+minimum\s+of"
)
_UPPER = (
    r"under|below|less\s+than|fewer\s+than|shorter\s+than|up\s+to|at\s+most|"
    r"no\s+more\s+than|not\s+exceeding|a\s+maximum\s+of"
)
_BOUND = re.compile(
    rf"\b(?:(?P<lower>{_LOWER})|(?P<upper>{_UPPER}))\s+(-?\d+(?:\.\d+)?)\s*{_UNIT}", re.I
)
#: the words of a bound, which say how a figure compares, not what a statement is about
_COMPARISONS = frozenset(
    stem(w) for w in "over above more greater longer exceeding least less excess minimum "
    "under below fewer shorter most maximum".split()
)  # fmt: skip
_BOUND_SHARED = 2  # meaningful words a bound's sentence shares with the claim's
_ONLY = re.compile(r"\bonly\b", re.I)


def _figures(sentence: str) -> list[tuple[float, str, str | None]]:
    """(value, unit, ``"lower"``, ``"upper"`` or ``None`` for a plain figure) of each
    figure with a unit outside the sentence's own ranges."""
    ranged = [m.span() for m in _RANGE.finditer(sentence)]
    bounds = {
        m.start(3): "lower" if m.group("lower") is not None else "upper"
        for m in _BOUND.finditer(sentence)
    }
    return [
        (float(m.group(1)), _unit(m.group(2)), bounds.get(m.start(1)))
        for m in _VALUE.finditer(sentence)
        if not any(a <= m.start() < b for a, b in ranged)
    ]


def beyond_bound(claim: str, text: str, *, shared: int = _BOUND_SHARED) -> str | None:
    """The sentence of ``text`` that bounds a quantity ("flights with a scheduled
    duration over 6 hours") which a figure of a sentence of ``claim``, in the same unit,
    falls short of or beyond ("a 5 hours flight") -- when the two sentences share at
    least ``shared`` meaningful words that are no figure, unit, product code, name of a
    quantity or word of comparison ("business", "class", "flight").

    A bound holds its own figure ("at least 6 hours" admits 6). A claim's own bound
    that runs the same way ("any flight over 4 hours") contradicts only a bound the text
    sets as the only one allowed ("only for flights ... over 6 hours"): "grew by more
    than 20 %" is no contradiction of "grew by over 30 %".
    """
    for said in SENTENCE_BREAK.split(claim.strip()):
        values = _figures(said)
        about = _subject(said) - _COMPARISONS if values else set()
        for sentence in SENTENCE_BREAK.split(text.strip()) if len(about) >= shared else ():
            if len(about & _subject(sentence)) < shared:
                continue
            spans = [m.span() for m in _RANGE.finditer(sentence)]
            only = bool(_ONLY.search(sentence))
            for m in _BOUND.finditer(sentence):
                if any(a <= m.start(3) < b for a, b in spans):
                    continue  # "between 6 and 9 hours" is a range: out_of_range reads it
                limit, unit = float(m.group(3)), _unit(m.group(4))
                way = "lower" if m.group("lower") is not None else "upper"
                for value, its_unit, its_way in values:
                    outside = value < limit if way == "lower" else value > limit
                    if its_unit == unit and outside and (its_way != way or only):
                        return sentence
    return None


def _contains(texts: Sequence[str], needle: str) -> bool:
    pattern = re.compile(rf"(?<!\w){re.escape(needle)}(?!\w)", re.I)
    return any(pattern.search(t) for t in texts)


#: a span of months: "1 December to 28 February", "April-September", "between May and
#: July", "March 2026 until June"
_MONTH_SPAN = re.compile(
    rf"(?:{MONTH.pattern})(?:\s+\d{{4}})?\s*(?:to|until|till|through|and|-|\u2013)\s*"
    rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?)?(?:{MONTH.pattern})"
)


def missing_information(query: str, contexts: Sequence[Context]) -> list[str]:
    """What ``query`` asks for that no context holds; [] when the contexts suffice. A
    context holds what its title path states: "Arkwell" of "What was Arkwell's revenue
    in Q2 2026?" is held by a table row under "Arkwell Instruments plc > Q3 2026 trading
    update", as the answerer and the coverage read it."""
    texts = [titled(c.title, c.text) for c in contexts]
    missing: list[str] = []
    units = {_unit(m.group(2)) for t in texts for m in _VALUE.finditer(t)}
    measured = {m.group(1): _unit(m.group(2)) for m in _VALUE.finditer(query)}
    # "Can I fly business class on a 7-hour flight?" is answered by a rule's bound
    # ("longer than 6 hours"): the asker's own figure is no figure a context must hold
    own = measured_figures(query) if any(BOUND.search(t) for t in texts) else set()
    for figure in dict.fromkeys(_FIGURE.findall(query)):
        # "can I charge it at 70 °C?" is answered by a context that gives limits in °C
        if _contains(texts, figure) or figure.replace(",", "") in own:
            continue
        if measured.get(figure, "") not in units:
            missing.append(f"the figure {figure} the query names")
    dated = holidays_dated(query, texts) | countries_grouped(query, texts)
    spanned = {day for t in texts for day in days_named(t)}
    names = [
        m.group(0)
        for m in _NAME.finditer(query)
        if content_terms(m.group(0)) and m.group(0).lower() not in NOT_NAMES
    ]
    for name in dict.fromkeys(names):
        name = re.sub(r"'s$", "", name)
        # "open on Tuesdays?" is answered by "Tuesday to Sunday", and "on Thursday?" by
        # "On Thursdays": the plural and the singular name the same
        singular = name[:-1] if name.endswith("s") and not name.endswith("ss") else name
        # and "on Sunday?" by "at weekends", "on Wednesday?" by "on weekdays"
        held = (
            any(_contains(texts, n) for n in (name, singular, f"{singular}s"))
            or any(_contains(texts, n) for kind in day_kinds(name) for n in (kind, f"{kind}s"))
            # and "on a Tuesday?" by "Sunday to Thursday: £110"
            or (bool(days_named(name)) and days_named(name) <= spanned)
            # and "in January?" by "from 1 December to 28 February": the span says whether
            # the month falls in it
            or (MONTH.fullmatch(name) is not None and any(_MONTH_SPAN.search(t) for t in texts))
            # and "on Boxing Day?" by "no collections on 25 and 26 December", "to France?"
            # by "to EU countries"
            or bool(set(content_terms(name)) & dated)
        )
        if not held and not YEAR.fullmatch(name):
            missing.append(f"'{name}', which the query names")
    kind = expected_kind(query)
    # the kind of answer asked for is looked for in the texts alone: a title's date
    # ("4.3.0 — 2026-10-02") answers no "when", unless its heading names the release
    # asked about ("When was 4.3.0 released?": :func:`assay.answer.headings.heading_answer`)
    if kind is not None and not any(
        kind.found_in(c.text) or heading_answer(query, c.title, c.text) for c in contexts
    ):
        missing.append(f"a {kind.description}, which the query asks for: no context gives one")
    return missing


def speculation(claims: Sequence[str], evidence: Sequence[str]) -> list[str]:
    """The claims whose hedging or generalising words their evidence does not share.

    ``evidence[i]`` is the text the i-th claim rests on ("" when it rests on none).
    """
    flagged = []
    for claim, text in zip(claims, evidence, strict=True):
        words = {m.group(0).lower() for m in _SPECULATIVE.finditer(claim)}
        if any(not _contains([text], w) for w in words):
            flagged.append(claim)
    return flagged


def _overlap(a: str, b: str) -> float:
    return term_cosine(Counter(content_terms(a)), Counter(content_terms(b)))


def _definitions(context: Context) -> list[tuple[str, str, str]]:
    """(term, what it is said to mean, the sentence) for each defining sentence."""
    found = []
    for sentence in SENTENCE_BREAK.split(context.text.strip()):
        match = _DEFINITION.match(sentence)
        if match:
            term = " ".join(stem(t) for t in content_terms(match.group("term")))
            if term:
                found.append((term, match.group("body"), sentence))
    return found


def definition_conflicts(
    contexts: Sequence[Context], *, same_below: float = 0.3
) -> list[tuple[str, str, str]]:
    """(sentence of the first context, id of the first, id of the second) for each term
    two contexts define with bodies sharing under ``same_below`` of their words."""
    conflicts = []
    defined = [(c, _definitions(c)) for c in contexts]
    for i, (first, defs_a) in enumerate(defined):
        for second, defs_b in defined[i + 1 :]:
            for term_a, body_a, sentence in defs_a:
                for term_b, body_b, _ in defs_b:
                    overlap = term_cosine(
                        Counter(content_terms(body_a)), Counter(content_terms(body_b))
                    )
                    if term_a == term_b and overlap < same_below:
                        conflicts.append((sentence, first.id, second.id))
    return conflicts
