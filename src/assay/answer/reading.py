"""Each candidate passage read once for the span that answers the question.

The reader (:mod:`assay.models.reader`) reads a passage with its title path (document
title and headings: a data sheet's passage under "Harbor HP-300 > Electrical" answers a
question about the HP-300 though its text says only "the pump") and proposes its best
spans. Of those, :func:`read_evidence` keeps the one that

1. lies in the passage's text (not its heading), widened to whole words ("4.2 amp" of
   "4.2 amperes" is "4.2 amperes");
2. holds the kind of answer the question asks for, when it asks for one
   (:mod:`assay.answer.expected`: "what temperature" wants "50 °C", not "3.1 metres"),
   and is not followed by another rate's period than the question's (one clause often
   gives two: "GBP 2.50 per hour, capped at GBP 12 per day");
3. scores best once its clause is weighed: each of the question's qualifiers the clause
   states adds :data:`HELD_WEIGHT` to the reader's logit, a clause that clashes with
   them (another year, the other gender) loses :data:`CLASH_WEIGHT`
   (:mod:`assay.answer.qualifiers`), and so does a clause about "other" things of the
   kind asked ("and other repairs within 5 working days" for "an emergency repair").

A passage *answers* when the reader does not vote firmly that it holds none (its best
span scores at most :data:`MARGIN_FLOOR` below its null,
:attr:`assay.models.reader.Reading.margin`), a span passes 1-2, and the passage with its
heading does not clash with the question's qualifiers. The reader's null vote is
strict: on 58 SQuAD 2.0 validation questions whose gold passage was among the four
strongest, a floor of 0 kept 26 of them, -3 kept 47 (37 quoting the answer) and
let through half of the 84 questions asked without their answer, which the
correctness model rates next. End to end, on 100 SQuAD 2.0 test-article questions
asked under ``informational`` (``bench/answers.py``), declining at -3 answered 53
rightly and abstained on 82% of 200 without an answer; at -5, 60 and 78% (-7: the
same as -5), against 65 and 76% for the release before, which never declined: -5
keeps most right answers and some of the abstentions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.answer.bounds import in_range
from assay.answer.citations import defuse_citations
from assay.answer.expected import MONEY, AnswerKind, expected_kind
from assay.answer.lengths import minutes_stated
from assay.answer.qualifiers import Qualifiers, clauses, qualifiers
from assay.days_of_week import days_named
from assay.judge.schema import Context
from assay.models.reader import SpanReader
from assay.text import (
    CELL_LABEL,
    TABLE_CELL,
    TABLE_ROW,
    content_terms,
    sentence_spans,
    stem,
    titled,
)

__all__ = [
    "CLASH_WEIGHT",
    "HELD_WEIGHT",
    "MARGIN_FLOOR",
    "READ_TOP",
    "Found",
    "named_row",
    "read_evidence",
    "row_weights",
    "table_cell",
]

READ_TOP = 4  #: the strongest passages read; the answer comes from one of them
MARGIN_FLOOR = -5.0  #: a passage whose reader margin is lower holds no answer
HELD_WEIGHT = 2.0  #: logit added per question qualifier the span's clause states
CLASH_WEIGHT = 6.0  #: logit taken from a span whose clause clashes with the qualifiers
_WORD = re.compile(r"[\w°%€$£¥]")
#: the first end of a range just before a span that starts with a figure: "10:00 to ",
#: "between 0 °C and ", "5-" (of "5-7 days"); not a list's "4.3 and "
_FIGURE = r"\d[\d.,:]*(?:\s?(?:°\s?[CF]|%|[a-zA-Z]{1,3}))?"
_RANGE_START = re.compile(
    rf"(?:(?<![\w.:,]){_FIGURE}\s*(?:to|-|\u2013)|\bbetween\s+{_FIGURE}\s+and)\s*$",
    re.IGNORECASE,
)
#: a change from one value to another, not a range: "rose from 200 MB to " (the answer is
#: the value it rose to)
_CHANGED_FROM = re.compile(
    rf"\b(?:rose|risen|raised|increased|went\s+up|grew|fell|dropped|decreased|reduced|lowered|"
    rf"cut|changed|moved|extended|shortened)\s+from\s+{_FIGURE}\s*(?:to|-|\u2013)\s*$",
    re.IGNORECASE,
)
#: a question that asks for one end of a range: the reader's span is that end alone
_ONE_END = re.compile(
    r"\b(?:max(?:imum)?|min(?:imum)?|highest|lowest|upper|lower|latest|earliest|until|"
    r"opens?|closes?|starts?|ends?|most|least)\b",
    re.IGNORECASE,
)
#: a bound just before a figure: "at most ", "up to ", "no more than "
_BOUND = re.compile(
    r"\b(?:at\s+(?:most|least)|up\s+to|no\s+(?:more|less|fewer)\s+than|(?:more|less|fewer)"
    r"\s+than)\s+$",
    re.IGNORECASE,
)
#: a unit of measurement just after a figure the reader cut off before it
_UNIT_AFTER = re.compile(
    r"\s?(?:[kMGT]?(?:bps|b/s|B|Hz|Wh|W|VA|V)|mAh|Ah|km/h|mph|rpm|psi|bar|dB|lux|"
    r"mm|cm|km|kg|mg|ml|mL|lbs?|ft|sq\s?m|m²|m³)(?![\w/])"
)

#: the rest of a unit after its slash ("/h" of "km/h", "/min" of "L/min"), and a span
#: that ends in a figure's unit, which that rest belongs to
_PER_UNIT = re.compile(r"/[A-Za-z]{1,4}(?![\w/])")
_FIGURE_UNIT = re.compile(r"\d\s?[A-Za-z]{1,4}$")


@dataclass(frozen=True, slots=True)
class Found:
    """What one passage holds for the question: its fitting spans, best first."""

    context: Context
    #: (weighted score, start, end) of each span of ``context.text`` that passes 1-2
    spans: tuple[tuple[float, int, int], ...]
    margin: float  #: the reader's vote that the passage answers (best span - null)
    clashes: bool  #: the passage, heading included, clashes with the question's qualifiers

    @property
    def answers(self) -> bool:
        """Whether the passage holds an answer (see the module docstring)."""
        return self.margin > MARGIN_FLOOR and bool(self.spans) and not self.clashes

    @property
    def answer(self) -> str:
        """The best span; "" when none fits."""
        return self.span_in(0, len(self.context.text)) or ""

    @property
    def sentence(self) -> tuple[int, int]:
        """The sentence of ``context.text`` that holds the best span."""
        start = self.spans[0][1] if self.spans else 0
        return _enclosing(sentence_spans(self.context.text), start, start)

    @property
    def quote(self) -> str:
        """The sentence that holds the best span."""
        return self.context.text[slice(*self.sentence)].strip()

    def span_in(self, start: int, end: int) -> str | None:
        """The best span within characters ``[start, end)`` of the text, if any."""
        for _, a, b in self.spans:
            if start <= a and b <= end:
                return self.context.text[a:b]
        return None


def _widened(text: str, start: int, end: int, *, ranges: bool = True) -> tuple[int, int]:
    """``[start, end)`` widened to whole words, trimmed of edge punctuation, and taking
    in the bound before a figure the reader cut off ("at" of "at most two") and, with
    ``ranges``, the first end of a range ("10:00 to" of "10:00 to 20:00"; not for a
    question that asks for one end, "the maximum temperature")."""
    while start > 0 and _WORD.match(text[start - 1]) and _WORD.match(text[start]):
        start -= 1
    while end < len(text) and _WORD.match(text[end]) and _WORD.match(text[end - 1]):
        end += 1
    while end > start and text[end - 1] in " ,.;:)(\n":
        end -= 1
    while start < end and text[start] in " ,.;:)(\n":
        start += 1
    unit = _UNIT_AFTER.match(text, end) if start < end and text[end - 1].isdigit() else None
    if unit is not None:
        end = unit.end()  # "900" of "900 Mbps": the figure with its unit
    per = _PER_UNIT.match(text, end) if _FIGURE_UNIT.search(text[start:end]) else None
    if per is not None:
        end = per.end()  # "25 km" of "25 km/h": a unit is not cut at its slash
    before = text[max(0, start - 40) : start]
    if start < end and text[start].isdigit():
        ranged = ranges and not _CHANGED_FROM.search(before)
        cut = (_RANGE_START.search(before) if ranged else None) or _BOUND.search(before)
        if cut is not None:
            start -= len(before) - cut.start()
    elif text[start:end].lower().startswith(("most ", "least ")) and before.lower().endswith("at "):
        start -= 3
    return start, end


def _fits(kind: AnswerKind | None, span: str) -> bool:
    # "- " keeps a name's first capital from reading as a sentence start
    return kind is None or kind.found_in(f"- {span}")


def _enclosing(spans: Sequence[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    for a, b in spans:
        if a <= start < b:
            return a, max(b, end)
    return start, end


def _read_one(
    reader: SpanReader, question: str, context: Context, kind: AnswerKind | None, asked: Qualifiers
) -> Found:
    text = defuse_citations(context.text)  # as long as the text: offsets hold
    passage = titled(context.title, text)
    shift = len(passage) - len(text)
    many = getattr(reader, "spans", None)  # a reader that proposes several spans
    readings = many(question, passage) if many is not None else (reader.read(question, passage),)
    margin = max(r.margin for r in readings)
    sentences = sentence_spans(text)
    spans: list[tuple[float, int, int]] = []
    ranges = not _ONE_END.search(question)
    for reading in readings:
        if not reading.answer or reading.start < shift:
            continue  # no span, or one in the heading
        start, end = _widened(text, reading.start - shift, reading.end - shift, ranges=ranges)
        if end <= start or not _fits(kind, text[start:end]) or asked.clashes(text[start:end]):
            continue  # no answer of the kind asked, or one that names a rival value
        sentence = _enclosing(sentences, start, end)
        if any(a <= start < b < end for a, b in sentences):
            continue  # a span across sentences ("52 weeks ... The first 26 weeks") is no one value
        first, last = _enclosing(
            [(sentence[0] + x, sentence[0] + y) for x, y in clauses(text[slice(*sentence)])],
            start, start,
        )  # fmt: skip
        if end > last:
            continue  # a span across clauses (cells of a table row) is no one value
        clause = text[first:last]
        score = reading.score + HELD_WEIGHT * asked.held(clause)
        of_others = asked.of_others(clause, text[slice(*sentence)])
        score -= CLASH_WEIGHT * (asked.clashes(clause) or of_others)
        if asked.other_period_after(text[:last], end, start):
            continue  # "GBP 2.50" of "GBP 2.50 per hour" for a question asked per day
        if all((start, end) != (a, b) for _, a, b in spans):
            spans.append((score, start, end))
    spans.sort(key=lambda x: (-x[0], x[1]))
    return Found(context, tuple(spans), margin, asked.clashes(passage))


def read_evidence(
    reader: SpanReader, question: str, contexts: Sequence[Context], top: int = READ_TOP
) -> list[Found]:
    """What each of the first ``top`` of ``contexts`` (strongest first) holds for
    ``question``, in their order."""
    kind, asked = expected_kind(question), qualifiers(question)
    return [_read_one(reader, question, c, kind, asked) for c in contexts[:top]]


def rival_cells(question: str, sentence: str) -> bool:
    """Whether ``sentence`` is a table row with several values of the kind asked for,
    none under a column name that holds a word or qualifier of the question: which
    applies is then for the reader of the row to tell ("What does a swim cost on a
    Saturday?" of "Adult swim: Off-peak: £4.20, Peak: £5.60", where the rules say that
    weekends are peak), not for a short answer that takes the first."""
    kind, asked = expected_kind(question), qualifiers(question)
    words = {stem(t) for t in content_terms(question)}
    cells = [m for a, b in clauses(sentence) if (m := TABLE_CELL.match(sentence[a:b]))]
    # a value in the question's own words is what it asks about, not an answer to it
    fitting = [
        m
        for m in cells
        if _fits(kind, m.group("value"))
        and not words & {stem(t) for t in content_terms(m.group("value"))}
    ]
    named = any(
        asked.held(m.group("label")) or words & {stem(t) for t in content_terms(m.group("label"))}
        for m in fitting
    )
    return len({m.group("value") for m in fitting}) >= 2 and not named


def table_cell(question: str, sentence: str) -> str | None:
    """The value of a table row (:mod:`assay.ingest.tables`) that answers ``question``:
    of the row's cells whose value holds the kind asked for, the one whose column name
    holds most of the question's qualifiers and words (a day by the span of days it
    falls in: :func:`~assay.days_of_week.days_named`) and clashes with none; ``None``
    when ``sentence`` is no table row or no cell stands out. The reader, trained on
    prose, does not read table rows."""
    kind, asked = expected_kind(question), qualifiers(question)
    order = [stem(t) for t in content_terms(question)]
    words = set(order)
    priced = _HOW_MUCH.search(question) is not None  # "How much is an adult ticket?"
    days = days_named(question)  # "on a Tuesday": the column "Sunday to Thursday"
    cells = []
    for a, b in clauses(sentence):
        match = TABLE_CELL.match(sentence[a:b])
        if match is None:
            continue
        label, value = match.group("label"), match.group("value")
        if not _fits(kind, value) or asked.clashes(sentence[a:b]):
            continue
        if re.search(rf"(?<![\w.]){re.escape(value.strip())}(?![\w.])", question, re.I):
            continue  # "at 75% LTV": the question's own value is not its answer
        named = {stem(t) for t in content_terms(label)}
        score = HELD_WEIGHT * asked.held(label) + len(words & named)
        spanned = days_named(label) if days else set()
        if spanned and not days & spanned:
            continue  # a column of other days
        score += HELD_WEIGHT * bool(spanned and days <= spanned)
        # of two column names holding as many words, the one naming the later word: the
        # head of the question's noun phrase ("tyre pressure": Pressure range, not Tyre)
        score += max((order.index(w) + 1 for w in words & named), default=0) / (10 * len(order))
        cells.append((score + (priced and MONEY.found_in(f"- {value}")), value))
    cells.sort(key=lambda c: -c[0])
    if not cells or cells[0][0] <= (cells[1][0] if len(cells) > 1 else 0):
        return None
    return cells[0][1]


def named_row(question: str, text: str) -> tuple[int, int] | None:
    """The characters of the table row of ``text`` (:mod:`assay.ingest.tables`) that the
    question names, when it holds a value of the kind asked for: of each table's rows,
    the one whose header shares the largest part of its words with the question, more
    than any other row's. ``None`` when no row stands out. The reader, trained on
    prose, votes that a table holds no answer ("What would a full plot cost me?"
    against "Plot size Full plot (250 m²): Standard rent: £96, ..."), so a named row
    answers where the reader finds nothing. Where no header stands out, the one row
    whose header's range holds the quantity the asker states does ("40 minutes late":
    "Delay 30 to 59 minutes")."""
    kind = expected_kind(question)
    asked = {stem(t) for t in content_terms(question)}
    tables: dict[tuple[str, ...], list[tuple[float, int, int]]] = {}
    for start, end in sentence_spans(text):
        header = _header_share(text[start:end], asked)
        if header is not None:
            labels, share = header
            tables.setdefault(labels, []).append((share or 0.0, start, end))
    for rows in tables.values():
        rows.sort(key=lambda r: -r[0])
        share, start, end = rows[0]
        if len(rows) < 2:
            continue
        if share <= rows[1][0]:  # no header stands out: the one row whose case holds the
            # asker's quantity ("40 minutes late": "Delay 30 to 59 minutes"), or whose value
            # is in the unit the question counts ("How many watts?": "Power: 1,350 W"), if any
            meeting = [
                r for r in rows
                if r[0] == share
                and (_row_case(question, row := text[r[1] : r[2]]) or _in_unit_asked(question, row))
            ]  # fmt: skip
            if len(meeting) != 1:
                continue
            share, start, end = meeting[0]
        row = text[start:end]
        values = [m.group("value") for a, b in clauses(row) if (m := TABLE_CELL.match(row[a:b]))]
        if kind is None or any(_fits(kind, v) for v in values):
            return start, end
    return None


#: units a question counts in ("How many watts is it?") and the symbols a data sheet
#: writes them with ("1,350 W")
_UNIT_SYMBOLS = {
    "watt": "k?W", "volt": "V", "amp": "mA|A", "ampere": "mA|A", "litre": "m?l|L",
    "liter": "m?l|L", "kilo": "kg", "kilogram": "kg", "gram": "g", "metre": "[ckm]?m",
    "meter": "[ckm]?m", "centimetre": "cm", "millimetre": "mm", "inch": "in|\"", "bar": "bar",
    "decibel": "dB", "lumen": "lm", "hertz": "[kMG]?Hz", "calorie": "k?cal",
}  # fmt: skip
_COUNTED = re.compile(r"\bhow\s+many\s+([a-z]+)", re.I)


def _in_unit_asked(question: str, sentence: str) -> bool:
    """Whether the value of the table row ``sentence`` is in the unit ``question``
    counts in, by its name or its symbol ("How many watts is it?": "Power: 1,350 W")."""
    counted = _COUNTED.search(question)
    if counted is None:
        return False
    word = counted.group(1).lower()
    unit = word[:-2] if word.endswith("es") and word[:-2] in _UNIT_SYMBOLS else word.rstrip("s")
    if unit not in _UNIT_SYMBOLS:
        return False
    match = TABLE_ROW.match(sentence.strip())
    values = sentence[match.end("header") :] if match else ""
    return (
        re.search(rf"\d\s?(?:{_UNIT_SYMBOLS[unit]})(?!\w|\.\d)", values) is not None
        or re.search(rf"\d\s?{unit}s?\b", values, re.I) is not None
    )


def _row_case(question: str, sentence: str) -> bool | None:
    """Whether the quantity the asker states lies in the range the header of the table
    row ``sentence`` gives (:func:`~assay.answer.bounds.in_range`); ``None`` for prose or
    a header without one."""
    match = TABLE_ROW.match(sentence.strip())
    return in_range(question, match.group("header")) if match else None


def _header_share(sentence: str, asked: set[str]) -> tuple[tuple[str, ...], float | None] | None:
    """The column names of a table row and the share of its header's words that are
    among ``asked`` (stems; ``None`` for a header without words); ``None`` for prose."""
    match = TABLE_ROW.match(sentence.strip())
    labels = tuple(CELL_LABEL.findall(match.group("cells"))) if match else ()
    if match is None or not labels:
        return None
    named = {stem(t) for t in content_terms(match.group("header"))}
    return labels, (len(named & asked) / len(named) if named else None)


#: "how much" without a unit of its own ("how much water"): a price, when a cell has one
_HOW_MUCH = re.compile(r"\bhow\s+much\s+(?:is|are|was|were|does|do|did|will|would)\b", re.I)


def row_weights(question: str, rows: Sequence[tuple[object, str]]) -> list[float]:
    """A weight for each ``(table, sentence)``: among the rows of one table (the same
    ``table`` key, the same column names), a row whose header the question names less
    of than another row's weighs less, ``0.5 + 0.5 * share`` of the best row's. "How
    much is an adult ticket?" names all of "Ticket Adult" and half of "Ticket Family (2
    adults, up to 3 children)", whose price the relevance model rates higher for its
    extra "adults". A row whose header's range leaves out the quantity the asker states
    (:func:`~assay.answer.bounds.in_range`: "40 minutes late" against "Delay 15 to 29
    minutes") weighs half as much where another row's holds it. Where the
    question states a length of time that a row states
    (:func:`~assay.answer.lengths.minutes_stated`: "an hour-long massage", "60
    minutes"), a row of the same table stating only other lengths weighs half as much.
    Prose, and a table's only row, weigh 1."""
    asked = {stem(t) for t in content_terms(question)}
    shares: list[float | None] = []
    tables: dict[tuple[object, tuple[str, ...]], list[int]] = {}
    for n, (table, sentence) in enumerate(rows):
        header = _header_share(sentence, asked)
        if header is None:
            shares.append(None)
            continue
        labels, share = header
        shares.append(1.0 if share is None else share)
        tables.setdefault((table, labels), []).append(n)
    weights = [1.0] * len(rows)
    lengths = minutes_stated(question)
    for members in tables.values():
        if len(members) < 2:
            continue
        best = max(0.5 + 0.5 * (shares[n] or 0.0) for n in members)
        for n in members:
            weights[n] = (0.5 + 0.5 * (shares[n] or 0.0)) / best
        for fits in (  # "an hour-long massage": not the row of a 30-minute one; "40
            # minutes late": not the row of "Delay 15 to 29 minutes"
            {
                n: bool(lengths & stated)
                if lengths and (stated := minutes_stated(rows[n][1]))
                else None
                for n in members
            },
            {n: _row_case(question, rows[n][1]) for n in members},
        ):
            if any(fit is True for fit in fits.values()):
                for n in members:
                    weights[n] *= 0.5 if fits[n] is False else 1.0
    return weights
