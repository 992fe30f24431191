"""What kind of answer a question expects, and whether a text holds one.

Classic question answering types a question by its wording before looking for the
answer (Moldovan et al., "The structure and performance of an open-domain question
answering system", ACL 2000): "when" wants a date, "how long" a duration, "who" a
name. assay uses the type three ways: the extractive answerer prefers sentences that
hold the type, the judge marks an answer that lacks it, and evidence sufficiency
reports contexts that hold none. Only types that can be recognised on the surface are
used; a question of no recognised type expects nothing in particular.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.text import MONTH, NUMBER, YEAR, stemmed_terms

__all__ = [
    "CONDITION",
    "CONTENTS",
    "CURRENCY_CODES",
    "DAY_OF_MONTH",
    "DURATION",
    "ENDLESS",
    "FREQUENCY",
    "INSTRUCTION",
    "MONEY",
    "PENCE",
    "AnswerKind",
    "asks_what_is_in",
    "asks_what_to_do",
    "asks_who_qualifies",
    "asks_yes_or_no",
    "expected_kind",
    "instructs",
    "wants_explanation",
]

_DURATION_UNITS = (
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|yrs?|"
    r"decades?|centuries|century)"
)
#: "5 business days", "ten working days", "30 calendar days"
_DAY_KINDS = r"(?:business|working|calendar|banking|school|consecutive|full|whole)"
_LENGTH_UNITS = r"(?:mm|cm|m|km|metres?|meters?|feet|foot|ft|inch(?:es)?|in|miles?|yards?)"
_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen|half"
)
_FIGURE = rf"(?:\d+(?:[.,]\d+)*|{_NUMBER_WORDS})"


#: a duration without end: "kept forever", "valid indefinitely"
ENDLESS = r"\b(?:forever|indefinitely|permanently|for\s+ever|without\s+(?:a\s+)?time\s+limit)\b"
#: how long, told by the date it ends: "The waiting list is kept until 31 December 2027"
UNTIL_DATE = (
    rf"\b(?:until|till)\s+(?:the\s+end\s+of\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?"
    rf"(?:{MONTH.pattern}|{YEAR.pattern})"
)

#: how often: "every other week", "twice a year", "3 times per day", "weekly"
FREQUENCY = (
    r"\bevery\s+(?:other\s+|second\s+|\w+\s+)?(?:\w+\s+)?(?:day|week|fortnight|month|year|"
    r"hour|minute|morning|evening|night|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday)s?\b|\b(?:once|twice|\w+\s+times)\s+(?:a|an|per|each|every)\s+(?:\d+\s+|other\s+)?\w+"
    r"|\b(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually)\b"
)


@dataclass(frozen=True, slots=True)
class AnswerKind:
    """A type of answer: its name, how to say it, and a pattern that finds it."""

    name: str
    description: str  #: "date or time period", for messages
    pattern: re.Pattern[str]
    #: spans that never count, though the pattern finds one in them: a count is no price
    unless: re.Pattern[str] | None = None

    def found_in(self, text: str) -> bool:
        """Whether ``text`` holds an answer of this kind."""
        return bool(self.pattern.search(self.without(text)))

    def without(self, text: str) -> str:
        """``text`` with the spans of :attr:`unless` blanked (as long as ``text``)."""
        if self.unless is None:
            return text
        return self.unless.sub(lambda m: " " * len(m.group(0)), text)


#: ISO 4217 codes written beside an amount ("EUR 14", "120 CHF")
CURRENCY_CODES = "usd|eur|gbp|chf|jpy|cad|aud|nzd|sek|nok|dkk|pln|czk|cny|inr|sgd|hkd"

#: pence or cents written after the figure: "24.1p per kWh", "50 pence", "99¢"; not the
#: "5p.m." of a clock
PENCE = r"\d+(?:[.,]\d+)*(?:p\b(?!\.m\b)|\s*(?:pence|cents)\b|\s?\u00a2)"

#: a duration or a length: "5-7 business days", "3 hours", "2 km"
_DURATION = (
    rf"\b{_FIGURE}\s*(?:-|\u2013|to)?\s*{_FIGURE}?\s*(?:{_DAY_KINDS}\s+){{0,2}}"
    rf"(?:{_DURATION_UNITS}|{_LENGTH_UNITS})\b"
)

#: an amount of money, whole: blanked where a count is read
_PRICES = re.compile(
    rf"[$€£¥]\s?\d+(?:[.,]\d+)*\w*|\b(?:{CURRENCY_CODES})\s?\d+(?:[.,]\d+)*\w*"
    rf"|\d+(?:[.,]\d+)*\s*(?:dollars|euros|pounds|cents|francs|yen|{CURRENCY_CODES})\b"
    rf"|{PENCE}",
    re.I,
)
#: a figure, not the digits of a code ("DC OH2", "Q3", "HP-300" name things, count nothing)
_FIGURES = rf"\b(?:{_NUMBER_WORDS})\b|(?<![A-Za-z\d.,])(?<![A-Za-z]-){NUMBER.pattern}"
#: a length: "up to 95 km", "2.5 metres"
_DISTANCE = rf"\b{_FIGURE}\s*(?:-|\u2013|to)?\s*{_FIGURE}?\s*{_LENGTH_UNITS}\b"
#: a weight: "31.6 kg", "200 lb"
WEIGHT_UNITS = r"(?:kg|kgs|kilos?|kilograms?|g|grams?|tonnes?|tons?|t|lbs?|ounces?|oz|stone)"

#: a rise or a fall: "rose", "go up", "growth", "cut"
_MOVES = (
    r"(?:go(?:es)?\s+(?:up|down)|went\s+(?:up|down)|gone\s+(?:up|down)|ris(?:e|es|en|ing)"
    r"|rose|increas(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|fall(?:s|en|ing)?|fell|dropp?(?:s|ed"
    r"|ing)?|grow(?:s|n|ing|th)?|grew|jump(?:s|ed)?|climb(?:s|ed)?|cut|shr[iu]nk(?:s)?)"
)
#: how much something rose or fell by, stated: "rose by 4.99% on last year", "an increase
#: of £12 a month", "5.9% growth", "Like-for-like growth (%): 5.9"
_CHANGE = (
    rf"\b(?:{_MOVES}|(?:up|down)(?!\s+to\b))\b[^.;:\d]{{0,20}}?[:(]?\s*(?:[$€£¥]\s?)?\d"
    rf"|\d(?:[.,]\d+)*\s*(?:%|percent|per\s+cent)\s+{_MOVES}\b"
)

#: a share of a sum that is paid, which says how much as well as a sum does: "a deposit
#: of 25% of the stay", "you pay 80% of the monthly charges left", "we refund half the
#: fare", "you pay 5% of your basic salary" (not what a fund pays "up to 75% of the
#: cost" of, which is no sum it holds); and a fee told as a share: "The yearly management
#: charge on the default fund is 0.35%"
_SUMS = (
    r"(?:stay|fare|price|cost|bill|total|rent|fee|fees|charges?|balance|booking|order|claim"
    r"|salary|salaries|wages?|earnings|income)"
)
_SHARE = r"\d+(?:\.\d+)?\s*(?:%|percent|per\s+cent)"
_SHARE_OF_SUM = (
    r"\b(?:pay|pays|paying|deposit\s+of|refund|refunds|charge|charges)\s+"
    rf"(?:{_SHARE}|half)\s+(?:of\s+)?(?:the\s+|your\s+|each\s+)?"
    rf"(?:\w+\s+){{0,4}}?{_SUMS}\b"
    rf"|\b(?:fees?|charges?|commission)\b[^.;:%]{{0,50}}?\b(?:is|are|of)\s+{_SHARE}"
)

#: a day of the month: "1st", "22nd", "31st"
DAY_OF_MONTH = r"(?:[12]?\d|3[01])(?:st|nd|rd|th)\b"

_KINDS = {
    "change": AnswerKind("change", "rise or fall", re.compile(_CHANGE, re.I)),
    "date": AnswerKind(
        "date",
        "date or time period",
        re.compile(
            rf"{YEAR.pattern}|{MONTH.pattern}|\b\d{{1,2}}:\d{{2}}\b|\b(?:monday|tuesday|"
            r"wednesday|thursday|friday|saturday|sunday|century|decade)\b"
            # a day of the month: "on the 1st, 8th, 15th or 22nd of the month"
            rf"|\b{DAY_OF_MONTH}(?=(?:,?\s+(?:or|and)\s+\d|,\s*\d|\s+of\b))"
            # a time counted from an event: "When am I enrolled?": "after 3 months of
            # employment" (days or longer: "time out after 20 seconds" is no when)
            rf"|\b(?:after|within)\s+(?:the\s+first\s+)?{_FIGURE}\s*(?:{_DAY_KINDS}\s+)?"
            r"(?:days?|weeks?|fortnights?|months?|years?)\b",
            re.I,
        ),
    ),
    "duration": AnswerKind(
        "duration",
        "duration or length",
        re.compile(rf"{_DURATION}|{ENDLESS}|{UNTIL_DATE}", re.I),  # "kept forever"
    ),
    "deadline": AnswerKind(
        "deadline",
        "date or time limit",
        re.compile(
            rf"{YEAR.pattern}|{MONTH.pattern}|\b(?:monday|tuesday|wednesday|thursday|"
            rf"friday|saturday|sunday)\b|\b(?:within|no\s+later\s+than)\s+(?:{_DURATION})"
            r"|\b\d{1,2}(?::\d{2})?\s*[ap]\.?m\b"  # "by 7am on your collection day"
            # "at least 48 hours before you fly": a time set by the event it comes before
            rf"|\b(?:{_DURATION})\s+(?:before|ahead\s+of|prior\s+to)\b",
            re.I,
        ),  # a limit, not any length: "within 12 months", not "4 weeks of leave"
    ),
    "temperature": AnswerKind(
        "temperature", "temperature", re.compile(r"\d\s*°|\b[Dd]egrees?\b|\d\s?[CF]\b")
    ),
    "money": AnswerKind(
        "money",
        "price or amount of money",
        re.compile(
            rf"[$€£¥]\s?\d|\b(?:{CURRENCY_CODES})\s?\d"
            rf"|\d\s*(?:dollars|euros|pounds|cents|francs|yen|{CURRENCY_CODES})\b|{PENCE}"
            rf"|{_SHARE_OF_SUM}",
            re.I,
        ),
    ),
    "frequency": AnswerKind(  # or the interval: "the batteries last about 12 months"
        "frequency",
        "how often",
        re.compile(rf"{FREQUENCY}|{_DURATION}", re.I),
    ),
    "figure": AnswerKind("figure", "figure or quantity", re.compile(_FIGURES, re.I)),
    # "How many new shops ...?": a number of things, never the price beside it; a share
    # may answer ("How many Victorians are Catholic?": "26.7%")
    "count": AnswerKind("count", "number", re.compile(_FIGURES, re.I), unless=_PRICES),
    "distance": AnswerKind("distance", "distance", re.compile(_DISTANCE, re.I)),
    "weight": AnswerKind("weight", "weight", re.compile(rf"\b{_FIGURE}\s*{WEIGHT_UNITS}\b", re.I)),
    # "What time ...?": a time of day ("12:00 noon", "9 am"), not the date beside it
    "clock": AnswerKind(
        "clock",
        "time of day",
        re.compile(
            r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*[ap]\.?m\b|\b(?:noon|midday|midnight)\b"
            # a time told by the event it comes before or after: "Last entry is 45
            # minutes before closing", "Gates open 90 minutes before kick-off"
            r"|\b\d{1,3}\s*(?:minutes?|mins?|hours?)\s+(?:before|after)\s+(?:closing|"
            r"opening|close|departure|kick-off|the\s+(?:start|end))\b",
            re.I,
        ),
    ),
    "name": AnswerKind(
        "name", "name of a person or organisation", re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+")
    ),
}
#: the kind a price is, for a reader that weighs it apart from the question's kind
MONEY = _KINDS["money"]
#: a length of time: no price ("Deliveries to Northern Ireland take up to 7 working days")
DURATION = _KINDS["duration"]

_QUESTION_KINDS: list[tuple[re.Pattern[str], str]] = [
    # "What are your opening hours?": the hours of a day ("08:00 to 18:00"), not the
    # weeks of a year beside them
    (re.compile(r"\b(?:at|by|until|from)\s+what\s+time\b|^\W*what\s+time\b(?!\s+(?:period|"
                r"frame|span|scale|zone|of\s+(?:the\s+)?(?:year|month|week)))"
                r"|\b(?:opening|office|business|visiting|surgery)\s+(?:hours|times)\b", re.I),
     "clock"),
    # "when will I get my final bill?": what the asker waits for, told as a date or as a
    # time limit ("within 6 weeks"), as "by when" is
    # "when do I need to tell you?" as well
    (re.compile(r"(?:^|[.;:!?]\s+)\W*when\s+(?:(?:will|would|should|must|shall)\s+"
                r"(?:I|we|you|my|our|your)\b|do(?:es)?\s+(?:I|we|you)\s+(?:need|have)\s+to\b"
                # "When do I get my deposit back?": "within 28 days of the end of ..."
                r"|do\s+(?:I|we)\s+(?:get|receive|hear)\b)",
                re.I), "deadline"),
    # "when" opening the question, not a clause of it ("How much ... when I'm abroad?")
    # "On which days is it refilled?": a day or days ("every Tuesday and Friday")
    (re.compile(r"(?:^|[.;:!?]\s+)\W*when\b|\b(?:what|which)\s+(?:year|date|day|month|time|"
                r"century|decade)s?\b", re.I), "date"),
    # "how much notice" is a length of time, not a figure: "one full calendar month"
    # "how long does my password need to be?": a size ("14 characters"), not a duration
    (re.compile(r"\bhow\s+long\s+(?:does|do|must|should|can|may|will|has|have|is|are)\b"
                r"[^?]*\bbe\s*\??\s*$", re.I), "figure"),
    # "by when must it be taken?": a date or a time limit ("within 12 months of the birth");
    # "What's the deadline to apply?": "Apply ... by 15 January", not "Offers are sent on
    # 16 April" beside it
    (re.compile(r"\b(?:by|until|till)\s+when\b|\b(?:what|which)\s+(?:is|are|was|were)\s+"
                r"the\s+(?:[\w-]+\s+){0,2}?(?:deadlines?|closing\s+dates?|cut-?offs?)\b",
                re.I), "deadline"),
    # "how far ahead" is a length of time too: "at least 8 weeks before it starts"
    (re.compile(r"\bhow\s+(?:long|old|soon)\b|\bhow\s+much\s+(?:notice|warning|time)\b"
                r"|\bhow\s+far\s+(?:ahead|in\s+advance|before(?:hand)?)\b", re.I),
     "duration"),
    # "What is the maximum term of a mortgage?": a length of time, not "90%" of the
    # maximum loan to value beside it
    (re.compile(r"\b(?:what|which)\s+(?:is|are|was|were)\s+the\s+(?:maximum|minimum|max|min|"
                r"longest|shortest)\s+(?:term|period|duration)s?\b", re.I), "duration"),
    (re.compile(r"\bhow\s+often\b", re.I), "frequency"),
    (re.compile(r"\b(?:what|which)\b.*\btemperatures?\b|\bhow\s+(?:hot|cold|warm)\b", re.I),
     "temperature"),
    # "how much ... pay", not "how much of a trip does the fund pay for" (a share); "how
    # much did I put down as a deposit" is a sum of money, not "30 days" beside it
    (re.compile(r"\bhow\s+much\b(?!\s+of\b).*\b(?:cost|pay|paid|charge\s+for|price|"
                r"deposit|fee|fine|rent|spend|spent|owe|refund)s?\b|"
                # "How much is band D council tax?", not "How much can council tax support
                # take off my bill?" (a share)
                r"\bhow\s+much\s+(?:tax\b|(?:is|are|was|were|will\s+be)\b[^?]*\btax(?:es)?\b"
                r"(?!\s+(?:support|relief|credits?|code|year|return|band|rate)s?\b))|"
                r"\bhow\s+much\s+money\b|\bwhat\s+(?:does|do|did|will|would)\b.*\bcost\b|\b(?:what|which)\s+"
                r"(?:is\s+the\s+|are\s+the\s+)?(?:price|cost|fee)s?\b|\bwhat\s+(?:is|are)\s+the\s+"
                r"charges?\s+(?:for|of|to)\b|"
                # "what is the processing fee for ...", "the starting price of ..."
                r"\b(?:what|which)\s+(?:is|are|was|were)\s+the\s+(?:[\w-]+\s+){0,3}(?:price|"
                r"cost|fee|fine|deposit|charge|rent|fare|premium|excess|tax)(?:s|es)?"
                r"(?=\s+(?:for|of|on|in|to|at|per|if|when|after)\b"
                r"|\s*\?|\s*$)", re.I), "money"),
    (re.compile(r"\bhow\s+far\b(?!\s+(?:back|into|in\s+advance|ahead))", re.I), "distance"),
    # "How much weight can the Haul take?" is a weight too ("200 kg"), not any figure
    (re.compile(r"\bhow\s+heavy\b|\b(?:how\s+much|what)\s+(?:does|do|did|will|would)\b.*"
                r"\bweigh\b|\bhow\s+much\s+weight\b", re.I), "weight"),
    # "How many hours will it run unplugged?": a length of time ("up to 11 h"), which
    # a count of anything else ("90 Wh") is not
    (re.compile(rf"\bhow\s+many\s+(?:more\s+|whole\s+|{_DAY_KINDS}\s+)?"
                rf"{_DURATION_UNITS}\b(?!\s+(?:a|an|per|each|every)\b)", re.I), "duration"),
    # "how many shops", not "how many pounds" nor "how many times more"
    (re.compile(r"\bhow\s+many\b(?!\s+(?:dollars|euros|pounds|cents|percent|per\s+cent|"
                r"times\s+(?:more|less|as)))", re.I), "count"),
    (re.compile(r"\bhow\s+(?:many|much|far|tall|high|big|large|wide|deep|heavy|fast)\b|"
                r"\bwhat\s+(?:percentage|percent|number|amount|size|proportion)\b|"
                # a bound: "the maximum tyre pressure", "the heaviest load ... may carry"
                r"\b(?:what|which)\s+(?:is|are|was|were)\s+the\s+(?:maximum|minimum|max|min|"
                r"heaviest)\b", re.I),
     "figure"),
    # not "the composer who was"; nor "Who can register?", "Who should I call?": a rule
    # says who ("You can register if you live within the practice boundary"), not a name
    (re.compile(r"^\W*(?:who|whom|whose)\b(?!\s+(?:can|could|may|might|must|should|shall"
                r"|qualif(?:y|ies)|gets?|needs?\s+to|(?:is|are)\s+(?:eligible|entitled|allowed)"
                r"|do\s+I|do\s+we)\b)", re.I), "name"),
]  # fmt: skip


#: "what's", "who's": the wordings above read "what is", "who is"
_IS_CONTRACTED = re.compile(r"\b(what|who|where|when|how|which)['\u2019]s\b", re.I)


#: "How much will my bill go up in April?", "By how much did sales grow?": how much it
#: rose or fell ("4.99%"), not the bill itself; "How much does it cost to ...?" asks a
#: price, and to drop something off or in is no fall
_ASKS_CHANGE = re.compile(
    rf"\b(?:by\s+)?how\s+much\s+(?:will|would|did|does|do|has|have|is|are|was|were)\b"
    rf"(?![^?]*\b(?:cost|costs|pay|paid)\b)[^?]*\b{_MOVES}\b(?<!drop)(?<!dropping)",
    re.I,
)


def expected_kind(question: str) -> AnswerKind | None:
    """The kind of answer ``question`` asks for; ``None`` when its wording does not say."""
    question = _IS_CONTRACTED.sub(r"\1 is", question)
    if _ASKS_CHANGE.search(question):
        return _KINDS["change"]
    for pattern, kind in _QUESTION_KINDS:
        if pattern.search(question):
            return _KINDS[kind]
    return None


#: questions that want an explanation or a yes or no, not a span: the reader, trained on
#: spans, neither declines them nor gives their short answer
_AUXILIARY = (
    r"(?:can|could|may|might|must|should|shall|is|are|was|were|do|does|did|will|would"
    r"|has|have|had)\b"
)
_EXPLAIN = re.compile(
    rf"^\W*why\b|^\W*how\s+(?:come\b|to\b|{_AUXILIARY})"
    r"|^\W*what\s+(?:happens|happened|will\s+happen|should\b|to\s+do\b|do\s+\w+\s+do\b)"
    rf"|^\W*{_AUXILIARY}",
    re.I,
)
#: a yes-or-no question, also when it follows a statement ("It blows a fuse; can I ...?")
_YES_NO = re.compile(rf"(?:^|[.;:!?]\s+)\W*{_AUXILIARY}(?:[^.;:!?]|\.(?=\d))*\?\s*$", re.I)


def wants_explanation(question: str) -> bool:
    """Whether ``question`` wants an explanation, a description or a yes or no ("Why
    ...", "How does ...", "What happens if ...", "Can I ..."), not a span of a passage.
    "How" followed by an adjective asks for a degree ("How accurate ...", "How long ..."),
    which a span states."""
    return _EXPLAIN.search(question) is not None


#: "My phone was stolen, what should I do?", "what do I do now?", "what are the steps?",
#: "How do I reset the router?"
_WHAT_TO_DO = re.compile(
    r"\bwhat\s+(?:should|shall|must|do)\s+(?:I|we)\s+do\b|\bwhat\s+to\s+do\b"
    r"|\bwhat\s+(?:are\s+)?the\s+(?:steps|next\s+steps)\b|\bwho\s+(?:should|do)\s+I\s+"
    r"(?:call|contact|tell)\b"
    # "How do I factory reset the router?": the steps, not "A factory reset deletes ..."
    r"|\bhow\s+(?:do|can|should)\s+(?:I|we)\s+(?!know\b|tell\b|qualify\b|find\s+out\b)",
    re.I,
)
#: a sentence that tells the reader what to do: it opens with an instruction ("Call us
#: on ...", "Report a missed collection within 2 working days") or says "you must"
INSTRUCTION = re.compile(
    r"^\W*(?:please\s+|first,?\s+|then,?\s+|if\s+[^,]{1,60},\s+)?(?:call|contact|report|tell"
    r"|send|email|e-mail|phone|ring|text|visit|go|take|bring|return|keep|check|make|give|ask"
    r"|book|apply|fill|complete|pay|cancel|stop|turn|switch|press|remove|follow|log|sign"
    r"|submit|request|notify|inform|wait|leave|put|move|seek|get|speak|write|raise|unplug"
    r"|disconnect|lock|change|reset|update|click|select|choose|enter|push|hold|insert|plug"
    r"|restart|install|download|tap|type|scan|register|attach|open|close|pour|bleed|drain"
    r"|freeze|order|wipe|wash|clean|use(?!\s+of\b))(?![\w-])"
    r"|\byou\s+(?:must|should|need\s+to|have\s+to|will\s+need\s+to)\b",
    re.I,
)


#: "Who can get the Warm Home Discount?", "Who qualifies for ...?", "Who is eligible ...?"
_WHO_QUALIFIES = re.compile(
    r"^\W*who\s+(?:can|may|qualif(?:y|ies)|gets?|is\s+(?:eligible|entitled|allowed)"
    r"|are\s+(?:eligible|entitled|allowed))\b",
    re.I,
)
#: a sentence that states a condition: "You may qualify if you receive Pension Credit"
CONDITION = re.compile(
    r"\bif\b|\bunless\b|\bqualif\w*|\bentitled\b|\bmust\s+(?:be|have)\b|\bonly\s+(?:if|when|for)\b"
    r"|\baged\b|\bprovided\s+(?:that\s+)?\b"
    # "Concessions are for over-65s, full-time students and jobseekers"
    r"|\b(?:is|are)\s+(?:only\s+)?(?:for|open\s+to|available\s+to)\s+"
    r"(?!(?:the|a|an|each|every|one|use|sale|hire)\b)",
    re.I,
)


#: "What's in an interim service?", "What does the Plus plan include?", "What is included
#: in the price?", "What do I get with a full service?"
_WHAT_IS_IN = re.compile(
    r"^\W*what(?:['\u2019]s|\s+is|\s+are)\s+(?:in|included\s+(?:in|with))\b"
    r"|^\W*what\s+(?:does|do)\b[^?]*\b(?:include|cover|come\s+with|contain)\b"
    r"|^\W*what\s+do\s+(?:I|we|you)\s+get\s+(?:with|for|in)\b",
    re.I,
)
#: a sentence that says what something holds: "It includes an oil and filter change" (not
#: "covers": "for cars that cover high mileage")
CONTENTS = re.compile(
    r"\b(?:includ(?:es|e|ing)|comes?\s+with|contains?|consists?\s+of|adds?)\b", re.I
)


def asks_what_is_in(question: str) -> bool:
    """Whether ``question`` asks what something holds ("What's in an interim service?"):
    a sentence that says what it includes answers it (:data:`CONTENTS`), not one that
    says what it is for ("An interim service is for cars that cover high mileage")."""
    return _WHAT_IS_IN.search(question) is not None


def asks_who_qualifies(question: str) -> bool:
    """Whether ``question`` asks who may have or do something ("Who can get the Warm Home
    Discount?"): a condition answers it (:data:`CONDITION`), not a sentence that names
    the thing ("Eligible customers receive a one-off £150 discount")."""
    return _WHO_QUALIFIES.search(question) is not None


#: an instruction for a purpose: "To close your account, send us a secure message"
_FOR_PURPOSE = re.compile(r"^\W*to\s+(?P<purpose>[^,]{1,60}),\s+(?P<rest>.*)", re.I | re.S)


def instructs(sentence: str, question: str) -> bool:
    """Whether ``sentence`` tells what to do (:data:`INSTRUCTION`) for what ``question``
    asks: an instruction for a stated purpose counts when the purpose is the asked one
    ("To close your account, send us ..." for "How do I close my account?", not "To
    restart the hub, switch it off ..." for "How do I factory reset the router?")."""
    if INSTRUCTION.search(sentence):
        return True
    purpose = _FOR_PURPOSE.match(sentence)
    return (
        purpose is not None
        and INSTRUCTION.search(purpose.group("rest")) is not None
        and bool(stemmed_terms(purpose.group("purpose")) & stemmed_terms(question))
    )


def asks_what_to_do(question: str) -> bool:
    """Whether ``question`` asks what to do ("My phone was stolen, what should I do?"):
    an instruction answers it (:data:`INSTRUCTION`), not a fact beside it."""
    return _WHAT_TO_DO.search(question) is not None


def asks_yes_or_no(question: str) -> bool:
    """Whether ``question`` is a yes-or-no question, also after a statement."""
    return _YES_NO.search(question) is not None
