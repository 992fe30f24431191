"""The short answer a question asks for, taken from the sentence that answers it.

"When was the bridge opened?" wants a date, "How many people live there?" a figure, "Who
designed it?" a name (:mod:`assay.answer.expected`). The extractive answerer states that
first and quotes the sentence it came from after it: "1932: The bridge was opened in
1932 by ...". The short answer is a span of the sentence of the type asked for that the
question does not already contain; where the sentence holds several, the one with the
most of the question's words around it (what the question asks about is usually said
next to the answer; of equals, the one whose own coordinated part names it: "waste every
Monday and recycling every Thursday"), never one followed by another rate's period than
the question's ("GBP 2.50 per hour" for "per day"), nor the number of a clause ("4.1 A
card is blocked ..."). A sentence with several names gets no short answer, since the
nearest was right only one time in five on SQuAD's validation articles, nor does one
whose nearest value is an item of a list ("Meals are served at 08:00, 12:30 and 17:30"
for lunch: the first item is only the nearest). A question of no recognised type gets
no short answer, and a reader's span that is a table row's header or column name, or a
clause's number, never leads.
"""

from __future__ import annotations

import re

from assay.answer.expected import (
    CURRENCY_CODES,
    DAY_OF_MONTH,
    FREQUENCY,
    PENCE,
    WEIGHT_UNITS,
    AnswerKind,
    expected_kind,
)
from assay.answer.qualifiers import clauses, qualifiers, singular
from assay.text import CELL_LABEL, TABLE_ROW, content_terms, figures, stem

__all__ = ["asks_price", "in_window", "lead_value", "short_answer"]

_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December)"
)
_NUMBER_WORDS = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|thousand|million|billion|dozen)"
)
#: a time of day: "8am", "4 p.m.", "12:00 noon", "06:30"
_CLOCK = (
    r"(?:\b\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\b\.?|noon|midday|midnight)|\b\d{1,2}[:.]\d{2}\b)"
)
#: a question about when something ends ("What time does it close?") or starts: of a
#: span of hours, the end or the start answers it; "opening hours" asks for both
_CLOSES = re.compile(r"\b(?:clos\w*|shut\w*|end\w*|finish\w*|until|till)\b", re.I)
_OPENS = re.compile(r"\b(?:open\w*|start\w*|begin\w*|from)\b(?!\s+(?:hours|times)\b)", re.I)
#: "When is the laundry room open?" asks for the hours it is open, not when it opens
_OPEN_STATE = re.compile(r"\b(?:is|are|be|stays?)\b[^?]*\bopen\b", re.I)
_HOURS = re.compile(rf"({_CLOCK})\s*(?:-|\u2013|to|until)\s*({_CLOCK})", re.I)
#: what a window of time follows: "full pay for up to 10 working days in any 12-month
#: period" is 10 working days long, counted in a window of 12 months
_WINDOW_OF = re.compile(
    r"\b(?:in|within|during)\s+(?:any|each|every|a|one)\s*$|\b(?:per|every|each)\s*$", re.I
)
#: a question after the price of a thing: "How much is excess reduction cover?", "What
#: does a day pass cost?"; of "Excess reduction cover lowers the excess to £100 and costs
#: £18 per day", the amount it costs answers, not the amount it changes another to
_ASKS_PRICE = re.compile(
    r"^\W*(?:how\s+much\s+(?:is|are|does|do|will|would)\s+(?P<a>.+?)(?:\s+cost)?"
    r"|what\s+(?:does|do|will|would)\s+(?P<b>.+?)\s+cost|what\s+is\s+the\s+(?:price|cost)"
    r"\s+of\s+(?P<c>.+?))\s*\??\s*$",
    re.I,
)
#: where the name of the asked thing ends: "the excess with excess reduction cover"
_THING_ENDS = re.compile(r"\s+(?:with|for|on|in|at|if|when|per|to|from|after|before)\s+", re.I)
#: things that are themselves an amount: any amount a sentence states of them answers
_AMOUNT_NOUNS = frozenset(
    "excess deposit fine fee charge rent refund limit allowance discount surcharge penalty "
    "salary wage pay budget bonus payment balance bill".split()
)
#: the words just before an amount that say it is what something costs
_PRICE_CUE = re.compile(
    r"\b(?:costs?|costing|priced\s+at|price\s+(?:is|of)|for|charges?|pay|pays|at)\s*"
    r"(?:[$€£¥]|\b(?:usd|eur|gbp|chf))?\s*$",
    re.I,
)
_AMOUNT = rf"(?:\d+(?:[.,]\d+)*|{_NUMBER_WORDS}(?:[\s-]+{_NUMBER_WORDS})*)"
#: a question asking where, and a word that only counts (an :data:`_AMOUNT`): a
#: where-question's answer is no count of the things it names
_WHERE = re.compile(r"\W*where\b", re.I)
_COUNT = re.compile(_AMOUNT, re.I)
_SCALE = r"(?:\s+(?:hundred|thousand|million|billion|trillion))?"
_UNIT = (
    r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centuries|century|"
    r"mm|cm|km|m|metres?|meters?|kilometres?|kilometers?|feet|foot|ft|inch(?:es)?|miles?|"
    r"yards?|kg|kilograms?|tonnes?|tons?|pounds?|lbs?|g|grams?|percent|per\s+cent|%)"
)
_DURATION = (
    rf"\b(?:about\s+|around\s+|over\s+|up\s+to\s+)?{_AMOUNT}(?:\s*(?:-|\u2013|to)\s*{_AMOUNT})?"
    rf"(?:\s*-\s*|\s*)(?:(?:working|business|calendar|clear|school|full)\s+)?{_UNIT}\b"
)
_LENGTHS = (
    r"(?:mm|cm|km|m|metres?|meters?|kilometres?|kilometers?|feet|foot|ft|inch(?:es)?|miles?|"
    r"yards?)"
)
_VALUE = r"-?\d+(?:\.\d+)?"
_DEGREES = rf"{_VALUE}\s*(?:°\s*[CF]?|degrees(?:\s+(?:Celsius|Fahrenheit|C|F))?|[CF]\b)"
_OR_NTH = rf"(?:,\s*|,?\s+(?:or|and)\s+){DAY_OF_MONTH}"
#: the span each answer type is read as, broader than the test of whether one is present
_SPANS = {
    "date": re.compile(
        # days of the month: "the 1st, 8th, 15th or 22nd of the month", "the 1st or 15th"
        rf"\b{DAY_OF_MONTH}(?:{_OR_NTH})*\s+of\s+(?:the|each|every)\s+month\b"
        rf"|\b{DAY_OF_MONTH}(?:{_OR_NTH})+"
        rf"|\b(?:(?:\d{{1,2}}\s+)?{_MONTHS}(?:\s+\d{{1,2}})?,?\s+)?(?:1[0-9]|20)\d\ds?\b"
        rf"|\b{_MONTHS}\s+\d{{1,2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)\s+century\b"
        rf"|\b\d{{1,2}}:\d{{2}}(?:\s*[ap]\.?m\.?)?"
        r"|\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?\b"
    ),
    "duration": re.compile(_DURATION, re.I),
    # a date or a time limit: "by 31 January", "within 12 months of the birth"
    "deadline": re.compile(
        rf"\b(?:(?:\d{{1,2}}\s+)?{_MONTHS}(?:\s+\d{{1,2}})?,?\s+)?(?:1[0-9]|20)\d\d\b"
        rf"|\b\d{{1,2}}\s+{_MONTHS}\b|\b{_MONTHS}\s+\d{{1,2}}\b|(?:\bwithin\s+){_DURATION}",
        re.I,
    ),
    "temperature": re.compile(
        rf"(?:between\s+)?(?:{_DEGREES}|{_VALUE})(?:\s*(?:-|\u2013|to|and)\s*{_DEGREES})"
        rf"|{_DEGREES}"
    ),
    "money": re.compile(
        rf"(?:[$€£¥]\s?|\b(?:{CURRENCY_CODES})\s?)\d+(?:[.,]\d+)*{_SCALE}"
        rf"|\d+(?:[.,]\d+)*{_SCALE}\s*(?:dollars|euros|pounds|{CURRENCY_CODES})\b|{PENCE}",
        re.I,
    ),
    "frequency": re.compile(rf"{FREQUENCY}|{_DURATION}", re.I),  # or the interval
    "figure": re.compile(
        rf"\b\d+(?:[.,]\d+)*{_SCALE}(?:\s*(?:%|percent|per\s+cent))?|\b{_NUMBER_WORDS}{_SCALE}\b",
        re.I,
    ),
    "distance": re.compile(
        rf"\b(?:(?:up\s+to|about|around|over|under|within)\s+)?{_AMOUNT}"
        rf"(?:\s*(?:-|\u2013|to)\s*{_AMOUNT})?\s*{_LENGTHS}\b",
        re.I,
    ),
    "weight": re.compile(
        rf"\b(?:(?:up\s+to|about|around|over|under)\s+)?{_AMOUNT}\s*{WEIGHT_UNITS}\b", re.I
    ),
    "clock": re.compile(
        rf"{_CLOCK}(?:\s*(?:-|\u2013|to|until)\s*{_CLOCK})?|\b(?:noon|midday|midnight)\b", re.I
    ),
    "name": re.compile(
        r"\b[A-Z][\w'.-]*(?:\s+(?:(?:of|the|de|da|di|van|von|and|for|al)\s+)*[A-Z][\w'.-]*)*"
    ),
}
_SPANS["count"] = _SPANS["figure"]  # with its prices blanked (AnswerKind.without)
_SPANS["change"] = re.compile(f"{_SPANS['money'].pattern}|{_SPANS['figure'].pattern}", re.I)
#: a clause's number opening a sentence ("4.1 **Rolling memberships**", "10.1 A card"):
#: no figure of its text; "4.1 million people" goes on in lower case and is one
_CLAUSE_NUMBER = re.compile(r"^\W*\d+(?:\.\d+)+\.?\s+(?=[A-Z*_#(\"'])")
#: a question after one of a kind of thing: "Which plan has unlimited data?"
_WHICH = re.compile(r"\W*(?:which|what)\b", re.I)
#: what stands between the items of a list: "08:00, 12:30 and 17:30" (not "or": "every
#: 2 months, or every month if ..." puts a rule before its case)
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
#: what opens a range of two values, not a list: "between 02:00 and 04:00"
_RANGE_OPENER = re.compile(r"\b(?:between|from)\s*$", re.I)
_WINDOW = 8  # words on each side of a span that count as its surroundings
#: where a sentence's coordinated parts meet: "General waste is collected every Monday
#: and recycling every Thursday"
_PART = re.compile(r"[,;]|\s+(?:and|or|but|while|whereas)\s+", re.I)
#: a verb after an auxiliary ("is collected"): said of every part it coordinates, so it
#: tells less of which value is asked for than a part's own noun does
_AFTER_AUXILIARY = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got)\s+(\w+)", re.I)


def _stems(text: str) -> set[str]:
    return {stem(t) for t in content_terms(text)}


def _names_the_subject(word: str, question: str) -> bool:
    """Whether ``word`` is a noun the question asks about ("the bridge")."""
    noun = re.escape(word.strip(",.;:").lower())
    return (
        bool(noun)
        and re.search(rf"\b(?:the|a|an|this|that|its)\s+{noun}\b", question, re.I) is not None
    )


def _in_own_part(sentence: str, at: int, asked: set[str]) -> float:
    """How many of the question's terms the coordinated part of ``sentence`` holding
    character ``at`` states, a verb after an auxiliary counting half: of "every Monday"
    and "recycling every Thursday", the second is the part about recycling."""
    cuts = [0, *(m.end() for m in _PART.finditer(sentence)), len(sentence) + 1]
    start = max(c for c in cuts if c <= at)
    end = min(c for c in cuts if c > at)
    part = sentence[start:end]
    verbs = {stem(m.group(1).lower()) for m in _AFTER_AUXILIARY.finditer(part)}
    return sum(0.5 if term in verbs else 1.0 for term in _stems(part) & asked)


def asks_price(question: str) -> bool:
    """Whether ``question`` asks what a thing costs, the thing being no amount itself
    ("How much is excess reduction cover?", not "How much is the deposit?")."""
    asked = _ASKS_PRICE.match(question)
    if asked is None:
        return False
    thing = _THING_ENDS.split(asked["a"] or asked["b"] or asked["c"], maxsplit=1)[0]
    words = re.findall(r"[a-z]+", thing.lower())
    return bool(words) and singular(words[-1]) not in _AMOUNT_NOUNS


def in_window(sentence: str, span: str) -> bool:
    """Whether ``span`` of ``sentence`` is the window a length is counted in ("in any
    12-month period"), not a length."""
    at = sentence.find(span)
    return at >= 0 and _WINDOW_OF.search(sentence[:at]) is not None


def short_answer(question: str, sentence: str) -> str | None:
    """The span of ``sentence`` that answers ``question`` in the type it asks for; ``None``
    when the question asks for no recognised type or the sentence holds none."""
    kind = expected_kind(question)
    if kind is None or (kind.name == "change" and not kind.found_in(sentence)):
        return None  # a change is a figure beside a rise or a fall, not any figure
    values = _typed_values(question, sentence, kind)
    if not values or (kind.name == "name" and len(values) > 1):
        return None  # of several names, the nearest is too often the wrong one
    if _unsaid_which(sentence, kind, values):
        return None  # "at 08:00, 12:30 and 17:30" for lunch: nothing says which one
    if _counts_apart(values):
        return None  # "1 tablet every 8 hours ... 2 tablets": each counts what is asked
    best = max(values, key=lambda v: v[0])[3]  # the first of equals
    if kind.name == "clock" and (hours := _HOURS.fullmatch(best)):
        end = _asks_end(question)
        if end is not None:  # "4pm" of "8am to 4pm" for "What time does it close?"
            return hours.group(end)
    return best


_Value = tuple[tuple[int, int, int, float], int, int, str]  # nearness, start, end, span


def _typed_values(question: str, sentence: str, kind: AnswerKind) -> list[_Value]:
    """The values of ``kind`` in ``sentence`` that could answer ``question``, each with how
    near the question's words it stands (see the module docstring)."""
    asked, qualified = _stems(question), qualifiers(question)
    numbered = _CLAUSE_NUMBER.match(sentence)
    skip = numbered.end() if numbered else 0
    values: list[_Value] = []
    priced = kind.name in ("money", "figure") and asks_price(question)
    spans = _SPANS[kind.name]
    if priced and _SPANS["money"].search(sentence):
        spans = _SPANS["money"]  # "£18", not the "18" of a figure; a table's bare figures stay
    for match in spans.finditer(kind.without(sentence)):  # a count's prices blanked
        if match.end() <= skip:
            continue  # the clause's number
        span = match.group(0).strip(" ,.;:")
        if kind.name == "name":
            span = re.sub(r"^(?:The|A|An|In|On|At|By|For)\s+", "", span)
        words = _stems(span)
        if not span or (words and words <= asked) or _in_question(span, question):
            continue  # the question's own words are not its answer
        if qualified.other_period_after(sentence, match.end()):
            continue  # "GBP 2.50 per hour" for a question asked per day
        if kind.name == "duration" and _WINDOW_OF.search(sentence[: match.start()]):
            continue  # "in any 12-month period": the window a length is counted in
        after = sentence[match.end() :].split()[:_WINDOW]
        if kind.name == "name" and after and _names_the_subject(after[0], question):
            continue  # "the Sydney bridge": it names what the question asks about
        before = sentence[: match.start()].split()[-_WINDOW:]
        # of values with as many of the question's words around them, the one whose own
        # part of the sentence says what the question asks about
        near = (
            int(priced and _PRICE_CUE.search(sentence[: match.start()]) is not None),
            # "How many public schools ...?": "1,548 public schools", not "489 Catholic
            # schools" nor the "10 years" beside "12 other funds" for "How many funds?"
            len(_stems(" ".join(after[:2])) & asked) if kind.name == "count" else 0,
            len(_stems(" ".join(before + after)) & asked),
            _in_own_part(sentence, match.start(), asked),
        )
        values.append((near, match.start(), match.end(), span))
    return values


def _counts_apart(values: list[_Value]) -> bool:
    """Whether two different values count the thing a "How many ...?" question asks
    about as closely ("1 tablet every 8 hours ... 2 tablets (400 mg)"): the words beside
    them do not say which one answers."""
    if not values:
        return False
    most = max(v[0] for v in values)  # nothing else beside them says which either
    return most[1] > 0 and len({v[3] for v in values if v[0] == most}) > 1


def _in_question(span: str, question: str) -> bool:
    """Whether ``question`` says ``span`` itself, a figure as a whole figure: the "1" of
    "1 tablet" is not in "My 14-year-old ...", "£5" is in "Is it still £5?"."""
    edge = r"(?<![\w.,]){}(?![\w]|[.,]\d)" if span[:1].isdigit() else "{}"
    return re.search(edge.format(re.escape(span)), question, re.I) is not None


def _unsaid_which(sentence: str, kind: AnswerKind, values: list[_Value]) -> bool:
    """Whether the nearest of ``values`` is an item of a list of them ("08:00, 12:30 and
    17:30"): the question asks for one ("What time is lunch served?") and the sentence
    does not say which, so none leads. Of a list, the item nearest the question's words
    is only the first after them."""
    if not values:
        return False
    blanked = kind.without(sentence)

    def listed(a: int, b: int) -> bool:  # "2019: 123.4, 2018: 99.0" labels its values
        between = blanked[values[a][2] : values[b][1]]
        return bool(_LIST_SEPARATOR.fullmatch(between)) and not any(
            blanked[values[i][2] :].lstrip().startswith(":") for i in (a, b)
        )

    nearest = max(range(len(values)), key=lambda i: values[i][0])  # the first of equals
    first = last = nearest
    while first > 0 and listed(first - 1, first):
        first -= 1
    while last + 1 < len(values) and listed(last, last + 1):
        last += 1
    if last - first == 1 and _RANGE_OPENER.search(blanked[: values[first][1]]):
        return False  # "between 02:00 and 04:00": one span of time
    return last > first


def _asks_end(question: str) -> int | None:
    """Which end of a span of hours ``question`` asks for: 2 when it asks when something
    closes or ends, 1 when it opens or starts, ``None`` when it asks for both or
    neither ("What are the opening hours?", "When is it open?")."""
    closes = _CLOSES.search(question) is not None
    opens = _OPENS.search(question) is not None and not _OPEN_STATE.search(question)
    if closes != opens:
        return 2 if closes else 1
    return None


def _end_of_hours(question: str, value: str, span: str) -> bool:
    """Whether ``value`` is the end of a span of hours in ``span`` that ``question`` asks
    for: "18:00" of "08:00 to 18:00" for "What time do you close?"."""
    hours, end = _HOURS.search(span), _asks_end(question)
    return hours is not None and end is not None and value == hours.group(end)


#: values listed as alternatives: "1st, 8th, 15th or 22nd"
_ALTERNATIVES = re.compile(r"\d\w*(?:,\s*|,?\s+(?:or|and)\s+)\d")
SHORT_WORDS = 10  #: a longer reader span is no short answer
_RUN_ON_WORDS = 3  # a reader's span this many words longer than the value it holds runs on


def _runs_on(value: str, span: str) -> bool:
    """Whether the reader's ``span`` holds ``value`` and runs on well past it."""
    return value in span and len(span.split()) > len(value.split()) + _RUN_ON_WORDS


#: the rest of a figure a span stops inside: ",589.83" of "£1,589.83"
_FIGURE_GOES_ON = re.compile(r"(?:[.,]\d+)+")


def whole_figure(sentence: str, span: str) -> str:
    """``span`` carried to the end of the figure it stops inside in ``sentence``: the
    reader's word pieces split "£1,589.83" at its comma, and "£1" led the answer."""
    at = sentence.find(span)
    if at < 0 or not span[-1:].isdigit():
        return span
    rest = _FIGURE_GOES_ON.match(sentence, at + len(span))
    return span if rest is None else span + rest.group(0)


def _a_label(question: str, sentence: str, span: str) -> bool:
    """Whether ``span`` lies within the header or a column name of ``sentence``, a table
    row (:mod:`assay.ingest.tables`): what the row is about ("Plan Fibre 500", "Band F")
    or what a cell holds ("Value"), never the value asked for, unless the question asks
    which of the header's things ("Which plan ...?"). The reader, trained on prose,
    often picks them."""
    row = TABLE_ROW.match(sentence.strip())
    if row is None or not CELL_LABEL.search(row.group("cells")):
        return False
    header, cells = row.group("header"), row.group("cells")
    if (
        _WHICH.match(question)
        and span.strip() in header
        and header.split()[0].lower() in {t.lower() for t in content_terms(question)}
    ):
        return False  # "Which plan has unlimited data?": "Max" of "Plan Max: Data: ..."
    labels = [header, *(m.group(1) for m in CELL_LABEL.finditer(cells))]
    return any(span.strip() in label for label in labels)


def lead_value(
    question: str, sentence: str, span: str | None, kind: AnswerKind | None
) -> str | None:
    """The value that leads an answer quoting ``sentence``: the reader's ``span`` of it
    when that says something the question does not and is short (at most
    :data:`SHORT_WORDS` words, two fewer than the sentence); none when the sentence's
    value of the asked ``kind`` nearest the question's words (:func:`short_answer`) is
    another ("EUR 55 at home and EUR 70 abroad": the reader likes the first, "abroad" is
    next to the second); the typed value where the span runs past a duration or lies
    inside it with no other figure ("once every 3 months", not "3 months"; but "50 °C" of
    "between 2 °C and 50 °C" for a maximum); without a span, the typed
    value of the clause that best keeps to the question's qualifiers."""
    numbered = _CLAUSE_NUMBER.match(sentence)
    if span is not None and (
        _a_label(question, sentence, span)
        or (numbered is not None and span.strip() in numbered.group(0))
    ):
        span = None  # "Plan Fibre 500" of "Plan Fibre 500: ..., Monthly price: £34"; "5.1"
    if (
        kind is not None
        and kind.name == "count"
        and _counts_apart(_typed_values(question, sentence, kind))
    ):
        return None  # nor the reader's pick of them: "1 tablet ... 2 tablets"
    if span is not None:
        span = whole_figure(sentence, span)
    said = {stem(t) for t in content_terms(span or "")}
    asked_terms = {stem(t) for t in content_terms(question)}
    if said and said <= asked_terms:
        span = None  # "Python" for "What Python version do I need?" says nothing new
    elif (
        span is not None
        and _WHERE.match(question)
        and all(_COUNT.fullmatch(t) for t in content_terms(span) if stem(t) not in asked_terms)
    ):
        span = None  # "four wheelchair spaces" for "Where are the wheelchair spaces?"
    if (
        span is not None
        and kind is not None
        and _unsaid_which(sentence, kind, values := _typed_values(question, sentence, kind))
        and any(span in v[3] or v[3] in span for v in values)
    ):
        return None  # the reader's pick of "08:00, 12:30 and 17:30" for lunch
    if span is not None:
        words = len(span.split())
        if 0 < words <= min(SHORT_WORDS, len(sentence.split()) - 2):
            typed = short_answer(question, sentence)
            duration = kind is not None and kind.name == "duration"
            if typed is not None and duration and in_window(sentence, span):
                return typed  # "10 working days", not the reader's "12-month period"
            if typed is not None and duration and _runs_on(typed, span):
                return typed  # "6 months", not "6 months of employment are a ... period"
            if typed is not None and kind is not None and not kind.found_in(span):
                return typed  # "08:00 to 18:00" for the hours, not the reader's "50 weeks"
            if typed is not None and typed not in span and span not in typed:
                return None  # two values, the reader's and the one near the question's words
            clock = kind is not None and kind.name == "clock"
            if typed is not None and (
                (clock and _runs_on(typed, span)) or _end_of_hours(question, typed, span)
            ):
                return typed  # "18:00" of "Monday to Friday, 08:00 to 18:00" for "close"
            if typed is not None and span in typed and figures(typed) == figures(span):
                return typed  # the whole value: "once every 3 months", not "3 months"
            if typed is not None and span in typed and _ALTERNATIVES.search(typed):
                return typed  # all the days: "1st, 8th, 15th or 22nd", not "22nd"
            return span
    asked = qualifiers(question)
    parts = [sentence[a:b] for a, b in clauses(sentence)]
    row = TABLE_ROW.match(sentence.strip())
    if row is not None and CELL_LABEL.search(row.group("cells")) and len(parts) > 1:
        # a row's header says what it is about, no value asked: "Mini digger (1.5 t)"
        parts = [p for p in parts if p.strip() not in row.group("header")] or parts
    best = max(parts, key=lambda p: asked.held(p) - 2 * asked.clashes(p))
    return short_answer(question, best) or short_answer(question, sentence)
