"""Plain-text helpers shared by corroboration, query coverage and lexical matching.

Deliberately simple and deterministic: case-folded word tokens in any script, with
numbers and product codes kept whole ("4.5", "HX-40", "UN3480" each stay one token),
English stopwords dropped, and a light suffix stemmer so that "charging" matches
"charge" and "batteries" matches "battery"; lexical search (:func:`lexical_terms`) uses
the stronger Snowball stemmer.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

import Stemmer

_SPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"\w+(?:[-.,]\w+)*")
_WORD = re.compile(r"\w+")
# English stopwords plus question words and fillers that say nothing about the topic.
_STOPWORDS = frozenset(
    """
    a about all also am an and any are as at be been but by can could did do does for from
    get gets getting got had has have he her here hers him his how i if in into is it
    its just know many may me might much must my no not of on one or our please shall
    she should so some such tell than that the their them then there these they this
    those to too us very was we were what when where which while who whom whose why
    will with would you your
    """.split()
)


_SNOWBALL = Stemmer.Stemmer("english")


#: stopwords added since the first release ("am" on 2026-12-07): audit replay reads a row
#: written before with them as words (``content_terms(..., keep=ADDED_STOPWORDS)``)
ADDED_STOPWORDS = frozenset({"am"})


def content_terms(text: str, *, keep: frozenset[str] = frozenset()) -> list[str]:
    """The meaningful words of ``text`` in order: lowercased, stopwords removed, but those
    in ``keep`` (the stopwords of :data:`ADDED_STOPWORDS`, for replaying rows written
    before they were added)."""
    return [t for t in _TOKEN.findall(text.casefold()) if t not in _STOPWORDS or t in keep]


def lexical_terms(text: str) -> list[str]:
    """The words lexical search indexes and matches: case and accents folded ("Café" is
    "cafe"), split at every non-word character (so "HX-40" matches "HX 40" and
    "Anglo-Saxon" matches "Saxon", as in full-text engines), stopwords dropped, and each
    cut to its Snowball English stem ("aerodynamics" matches "aerodynamic").

    With them, ``bench/retrieval.py`` measures lexical recall@5 of the gold SQuAD 2.0
    paragraph 0.948 and Cranfield nDCG@10 0.336, where SQLite FTS5 (porter stemmer) had
    0.949 and 0.331; keeping compound tokens whole or stemming lightly lost more.
    """
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in decomposed if not unicodedata.combining(c))
    words = [w for w in _WORD.findall(text.casefold()) if w not in _STOPWORDS]
    return list(_SNOWBALL.stemWords(words))


def stem(term: str) -> str:
    """A light English stemmer: strips common inflections, never below 3 letters."""
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if term.endswith(suffix) and len(term) - len(suffix) >= 3 and not term.endswith("ss"):
            base = term[: -len(suffix)] + repl
            if suffix in ("ing", "ed") and base.endswith(base[-1] * 2):
                base = base[:-1]  # "stopped" -> "stop"
            return base.rstrip("e") if suffix in ("ing", "ed", "es") else base
    return term.rstrip("e") if len(term) > 3 else term


#: words that ask for a type of answer ("how long", "what year", "how quickly"): what is
#: missing there is the answer itself, not a subject the evidence fails to name
_ANSWER_TYPE_WORDS = """
    long old year years date dates day days month months time times century decade
    temperature temperatures hot cold warm price prices cost costs fee fees
    far tall high big large wide deep heavy often fast quickly soon close near
    percentage percent number amount size proportion quantity kind type sort
"""
#: words that judge, qualify or carry a question rather than name what it is about
_QUALIFYING_WORDS = """
    safe safely unsafe possible allowed permitted ok okay fine good bad best better worse
    worst recommended advisable normal typical usual usually right correct proper
    properly needed required necessary enough main important exactly actually really
    take takes taken happen happens happened mean means work works use used using need
    needs want make makes made way ways put puts come comes coming go goes going went
    keep keeps give gives let see say says said ask find still already ever else
    someone somebody something anyone anybody anything everyone everything
    out up down off over back away around along
"""
#: what is left of a contraction split at its apostrophe ("it's", "I'm", "don't")
_CONTRACTION_PARTS = "s m re ve ll d t don doesn didn isn aren wasn weren couldn shouldn wouldn"
#: the asker's own people ("My son is 16. Can he join?": the rules name members, not
#: sons), a bound asked for in a superlative ("What is the highest temperature it goes
#: to?": the evidence gives the range): frame words since
#: 2026-12-07 (audit rows written before replay with ``askers_words=False``)
_ASKERS_WORDS = """
    mother father mum mom dad parent parents son daughter wife husband partner spouse
    brother sister grandmother grandfather grandma grandpa nan gran grandson granddaughter
    friend boyfriend girlfriend
    highest lowest longest shortest maximum minimum max min earliest latest
"""
#: bringing carries a question as "take" and "put" do ("Can we bring our own wine?", of
#: "You may serve your own drinks"): "say what you mean by 'bring'" asked back about a
#: verb no rule need use; frame words since 2026-12-08 ("get" is a stopword)
_CARRYING_WORDS = "bring brings brought bringing"
_FRAME_BEFORE = frozenset(
    stem(w) for w in f"{_ANSWER_TYPE_WORDS} {_QUALIFYING_WORDS} {_CONTRACTION_PARTS}".split()
)
_ASKERS = frozenset(stem(w) for w in _ASKERS_WORDS.split())
_CARRYING = frozenset(stem(w) for w in _CARRYING_WORDS.split())
_FRAME = _FRAME_BEFORE | _ASKERS | _CARRYING


def subject_terms(
    terms: Sequence[str], *, askers_words: bool = True, carrying_words: bool = True
) -> list[str]:
    """``terms`` without the words that frame a question: those that ask for a type of
    answer ("long", "year", "cost", "highest"), those that judge or carry it
    ("safe", "allowed", "need", "put", "bring", "someone", "out"), the asker's own people
    ("my son") and the remains of contractions ("s" of "it's"). What is left names the
    subject (things, names, conditions): what a reader can add documents about, and what
    the evidence must mention to be about the question. ``askers_words=False`` keeps the
    people and superlatives as subject, as releases before 2026-12-07 did;
    ``carrying_words=False`` "bring", as releases before 2026-12-08 did."""
    frame = _FRAME
    if not (askers_words and carrying_words):  # the frame of an earlier release
        frame = _FRAME_BEFORE | (_ASKERS if askers_words else frozenset())
        frame |= _CARRYING if carrying_words else frozenset()
    return [t for t in terms if stem(t) not in frame]


def is_stopword(word: str) -> bool:
    """Whether the lowercased ``word`` is one of the stopwords :func:`content_terms` drops."""
    return word in _STOPWORDS


#: words whose full stop ends an abbreviation, not a sentence ("Max. speed indoors: 4
#: km/h", "approx. 3 hours"); "No." only before a number ("No. 5")
_ABBREVIATIONS = ("max", "min", "approx", "e.g", "i.e", "vs", "incl", "excl", "fig", "dept",
                  "mr", "mrs", "ms", "dr", "prof", "st", "mt")  # fmt: skip
#: where one sentence ends and the next begins: after ; or after . ! ? unless the stop
#: ends an abbreviation or what follows starts in lower case ("Max. speed"); and at a
#: blank line, unless the line before leads into what follows (":", ",", a code block's
#: fence before the sentence that explains it): a bold line standing as a heading
#: ("**Part 2: Uptime and maintenance**") is no part of the sentence after it
SENTENCE_BREAK = re.compile(
    r"(?<=;)\s+|(?<![:,;`])[ \t]*\n[ \t]*\n\s*|(?<=[.!?])"
    + "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _ABBREVIATIONS)
    + r"(?:(?<!\bno\.)|(?!\s+\d))\s+(?-i:(?![\sa-z]))",
    re.IGNORECASE,
)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, split at :data:`SENTENCE_BREAK`, each
    without its surrounding spaces; blank ones left out. The sentences are those of
    ``[s.strip() for s in SENTENCE_BREAK.split(text.strip())]``, with where they sit."""
    spans, start = [], 0
    breaks = [(m.start(), m.end()) for m in SENTENCE_BREAK.finditer(text)]
    for end, after in [*breaks, (len(text), len(text))]:
        piece = text[start:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + len(piece.rstrip())))
        start = after
    return spans


def titled(title: str | None, text: str) -> str:
    """A passage as it is embedded and read: its title path, a line break, its text."""
    return f"{title}\n{text}" if title else text


#: a table row as ingestion writes it: its first cell (the row's header), then its cells
#: as "Label: value", comma-separated ("Species Dog: Vaccine: Rabies, Price per dose: £68.")
TABLE_ROW = re.compile(r"^(?P<header>[^:]{1,80}?):\s+(?P<cells>.+)$", re.DOTALL)
#: a cell's label inside :data:`TABLE_ROW`'s cells
CELL_LABEL = re.compile(r"(?:^|,\s)([^:,]{1,60}?):\s")
#: one cell of a row, cut out at its clause (:func:`assay.answer.qualifiers.clauses`):
#: "Column name: value"
TABLE_CELL = re.compile(r"^[\s,:]*(?P<label>[^,:;]{1,60}?):\s+(?P<value>.+?)[\s.]*$")


def row_subject(sentence: str) -> tuple[str, str] | None:
    """What a table row is about: its header and, where it holds no figure, its first
    cell ("Species Dog", "Rabies": one table lists each species' several vaccines);
    ``None`` for prose. Two rows with different subjects state different things, however
    many of their labels they share."""
    match = TABLE_ROW.match(sentence.strip())
    if match is None:
        return None
    parts = CELL_LABEL.split(match.group("cells"))
    if len(parts) < 3:  # no labelled cell: a sentence with a colon, not a row
        return None
    first = parts[2].strip().rstrip(".,").casefold()
    key = "" if NUMBER.search(first) else first
    return squash_spaces(match.group("header")).casefold(), key


def stemmed_terms(text: str) -> set[str]:
    """The stems of ``text``'s content terms."""
    return {stem(t) for t in content_terms(text)}


def named_terms(text: str) -> set[str]:
    """The stemmed terms of ``text`` that are names or codes: capitalised inside it, or
    holding a digit ("Gold", "HX-40")."""
    named = stemmed_terms(" ".join(NAME.findall(text)))
    return named | {stem(t) for t in content_terms(text) if any(c.isdigit() for c in t)}


#: days and months: capitalised, but conditions a rule answers ("on a Sunday": "at
#: weekends"), not names the evidence must repeat
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays january february march april may june july august "
    "september october november december".split()
)
#: capitalised words that name nothing: "I" and its contractions, "OK" ("Is it OK to
#: have a glass of wine while I'm taking Calventa?" names Calventa alone). The judge's
#: missing information leaves them out; :func:`given_names` keeps them, as the router's
#: decisions written to the audit log replay with it
NOT_NAMES = frozenset("i i'm i've i'd i'll ok okay".split())


def given_names(text: str) -> set[str]:
    """The names ``text`` gives, lower-cased as coverage lists its terms: the words
    capitalised inside a sentence ("Dart Plus", "the Professional plan", "HCM240"), days
    and months aside."""
    return {w.lower() for w in NAME.findall(text)} - _CALENDAR


#: an acronym as a question writes it: "MFA", "KIT" (three to six capitals)
ACRONYM = re.compile(r"\b[A-Z]{3,6}\b")


def spelled_out(acronym: str, texts: Sequence[str]) -> bool:
    """Whether one of ``texts`` spells ``acronym`` out: words whose initials are its
    letters, joined by a hyphen somewhere ("keeping-in-touch" for KIT, "Multi-factor
    authentication" for MFA) or each capitalised ("Data Protection Impact Assessment"),
    so that a run of common words ("a previous invoice") does not pass for "API"."""
    words = [rf"{re.escape(letter)}[a-z]+" for letter in acronym.lower()]
    phrase = re.compile(r"\b" + r"[\s-]".join(words) + r"\b", re.IGNORECASE)
    for text in texts:
        for m in phrase.finditer(text):
            said = m.group(0)
            if "-" in said or all(w[0].isupper() for w in re.split(r"[\s-]", said)):
                return True
    return False


#: the share of what an answer says of the question that a rival statement must say too
SPEAKS_TO = 0.75


def speaks_to(question: str, said: str, other: str, share: float = SPEAKS_TO) -> bool:
    """Whether ``other`` holds the terms of ``question`` that ``said`` holds (names and
    codes aside; ``share`` of them, :data:`SPEAKS_TO` unless given, all of up to three):
    whether a rival statement is about what an answer says of the question. "A fee of £5
    a month while frozen" is not about the joining fee that "A joining fee of £15 applies
    to Silver and Gold" gives; a manual's "charge the battery pack between 10 and 35 °C"
    is about charging the HX-40, which it need not name; "Glass goes in the purple box,
    not in the blue bin" answers "Can I put glass in the blue bin?" without "put"; one
    that holds as many of the question's terms as the answer, other ones, speaks to it
    too."""
    terms = stemmed_terms(question) - named_terms(question)
    asked, rival = terms & stemmed_terms(said), terms & stemmed_terms(other)
    # or it holds as much of the question as the answer does, in its own words: "A glass
    # of wine with Calventa is fine" against "Avoid alcohol while taking Calventa"
    return len(asked & rival) >= share * len(asked) or len(rival) >= len(asked)


#: a figure as written: "45", "4.5", "1,200"
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
#: a capitalised word that does not start a sentence: most often a name
NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]+")


def figures(text: str) -> set[str]:
    """The figures of ``text`` without thousands separators ("1,200" is "1200")."""
    return {n.replace(",", "") for n in NUMBER.findall(text)}


#: units a figure of the asker's own situation is written with: "a 300 g drone", "a
#: 7-hour flight", "my 14-year-old", "£40", "8 metres", "10 people"
_MEASURE_UNITS = (
    r"(?:mm|cm|m|km|metres?|meters?|feet|foot|ft|inch(?:es)?|miles?|yards?|kg|kgs|kilos?|"
    r"kilograms?|g|grams?|mg|tonnes?|lbs?|ounces?|oz|stone|l|litres?|liters?|ml|seconds?|"
    r"secs?|minutes?|mins?|hours?|hrs?|h|days?|nights?|weeks?|months?|years?(?:[ -]olds?)?|"
    r"yrs?|v|volts?|a|amps?|amperes?|w|watts?|kw|kwh|mah|ghz|mhz|hz|%|percent|per ?cent|"
    r"°[cf]?|degrees?|people|persons?|guests?|passengers?|children|kids|adults|wires?|"
    r"seats?|desks?|pages?|items?|bags?)"
)
#: a figure with its unit or currency; an age or a size the asker states ("I'm 70", "my
#: son is 7", "a group of 14": up to three digits, so never a year)
MEASURED = re.compile(
    rf"(?:[$€£¥]\s?|\b(?:usd|eur|gbp)\s?)(\d+(?:[.,]\d+)*)"
    rf"|\b(\d+(?:[.,]\d+)*)(?:\s?-\s?|\s)?{_MEASURE_UNITS}(?!\w)"
    r"|\b(?:i'm|i am|we're|we are|he's|he is|she's|she is|they're|they are|is|are|aged?|"
    r"turned|turning|(?:group|party|family|team|class|household) of)\s+(\d{1,3})\b(?![.,:]\d)",
    re.IGNORECASE,
)


def measured_figures(text: str) -> set[str]:
    """The figures of ``text`` written as a quantity (with a unit or a currency), an age
    or a size (:data:`MEASURED`), without thousands separators: in a question, the
    asker's own situation (a condition a rule answers: "a 7-hour flight" against "flights
    longer than 6 hours"), not a qualifier that picks out another item or event (a year,
    a quarter, a model number)."""
    return {"".join(found).replace(",", "") for found in MEASURED.findall(text)}


#: a figure stated as a bound of a rule: "longer than 6 hours", "4 kg or more", "from 250 g
#: up to 4 kg", "children over 12", "aged 8 to 15"
BOUND = re.compile(
    r"\b(?:over|above|under|below|more than|less than|fewer than|longer than|shorter than|"
    r"greater than|up to|at least|at most|no more than|exceeding|between|from)\s+[$€£¥]?\d"
    r"|\d[\d.,]*\s?[^\s\d]{0,12}\s+or\s+(?:more|less|over|under|above|below|longer|fewer|"
    r"heavier|lighter)\b|\b\d+\s?(?:-|\u2013|to)\s?\d+\b",
    re.IGNORECASE,
)


#: a negation word, or a contracted "n't"; "nothing", "nobody", "none" and "no one" deny
#: too: a pool's "bring nothing inflatable" and its FAQ's "inflatables of your own are not
#: allowed" say the same
NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|without|neither|nor|nothing|nobody|none|no\s+one)\b|n't\b",
    re.IGNORECASE,
)

#: a year as written in running text: 1500-2099
YEAR = re.compile(r"\b(?:1[5-9]|20)\d\d\b")
#: an English month name, in any case but May's: "may" is most often the verb ("Children
#: under 12 may visit"), which read as a month made a sentence without a time answer "when"
#: (May stays case-sensitive inside a pattern compiled with IGNORECASE)
MONTH = re.compile(
    r"\b(?:(?i:january|february|march|april|june|july|august|september|october|november|"
    r"december)|(?-i:May))\b"
)


def squash_spaces(text: str) -> str:
    """``text`` with every run of white space made one space, and trimmed."""
    return _SPACE.sub(" ", text).strip()


def clip_words(text: str, max_chars: int) -> str:
    """``text`` with its spaces squashed and, when longer than ``max_chars``, cut at the
    last word boundary within them and marked " ...": what a model's finite context
    is shown of a passage."""
    text = squash_spaces(text)
    if len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit(" ", 1)[0] + " ..."


def term_cosine(a: Counter[str], b: Counter[str]) -> float:
    """Cosine similarity of two term-count vectors, in [0, 1] (0 if either is empty)."""
    if not a or not b:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    get = large.get  # not b[term]: a Counter's missing key costs a method call
    dot = sum(count * get(term, 0) for term, count in small.items())
    if not dot:
        return 0.0  # most pairs of sentences share no word: skip the norms
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return min(1.0, dot / norm)


#: a day of the week or a kind of day: "on weekdays", "Saturdays and Sundays", "at weekends"
_WEEKDAY = re.compile(r"\b(?:(?:mon|tues|wednes|thurs|fri)days?|week-?days?|week-?nights?)\b", re.I)
_WEEKEND = re.compile(r"\b(?:(?:satur|sun)days?|week-?ends?)\b", re.I)


#: holidays on one date every year, each with its (day, month): documents give the date
#: ("no sailings on 25 December"), people the name ("Is there a ferry on Christmas Day?")
_HOLIDAYS = (
    (re.compile(r"\bchristmas\s+eve\b", re.I), (24, 12)),
    (re.compile(r"\bchristmas(?:\s+day)?\b(?!\s+(?:eve|trees?|cards?|part(?:y|ies)|period|"
                r"holidays?|break|shopping|lights|market))", re.I), (25, 12)),
    (re.compile(r"\bboxing\s+day\b", re.I), (26, 12)),
    (re.compile(r"\bnew\s+year'?s\s+eve\b|\bhogmanay\b", re.I), (31, 12)),
    (re.compile(r"\bnew\s+year'?s(?:\s+day)?\b(?!\s+eve)", re.I), (1, 1)),
)  # fmt: skip
_MONTHS = (
    "january february march april may june july august september october november december"
).split()
#: a date by day and month, a list of days allowed: "25 December", "25 and 26 December",
#: "December 25"
_DAY = r"(?<![\d.,])\d{1,2}(?:st|nd|rd|th)?(?![\d.,]\d)"
_DAYS_OF = re.compile(
    rf"({_DAY}(?:(?:\s*,\s*|\s+(?:and|or)\s+|\s*&\s*){_DAY})*)\s+({'|'.join(_MONTHS)})\b"
    rf"|\b({'|'.join(_MONTHS)})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?![.,]\d)",
    re.I,
)


def stated_dates(text: str) -> set[tuple[int, int]]:
    """The (day, month) dates ``text`` states: "25 and 26 December" states two."""
    found = set()
    for m in _DAYS_OF.finditer(text):
        if m.group(2):
            month = _MONTHS.index(m.group(2).lower()) + 1
            found |= {(int(d), month) for d in re.findall(r"\d{1,2}", m.group(1))}
        else:
            found.add((int(m.group(4)), _MONTHS.index(m.group(3).lower()) + 1))
    return found


def holiday_dates(question: str) -> dict[str, tuple[int, int]]:
    """The holidays on one date that ``question`` names ("Boxing Day"), each with its
    (day, month): an answer states the date ("no collections on 25 and 26 December")."""
    return {m.group(0): date for pattern, date in _HOLIDAYS for m in pattern.finditer(question)}


def holidays_dated(question: str, texts: Sequence[str]) -> set[str]:
    """The words of ``question`` that name a holiday whose date ``texts`` state
    (:func:`holiday_dates`): the evidence covers them in its own words."""
    named = holiday_dates(question)
    dates = {d for text in texts for d in stated_dates(text)} if named else set()
    return {word for name, date in named.items() if date in dates for word in content_terms(name)}


#: the member states of the European Union (since 2020), and Europe's other countries: a
#: question names the country ("Can I drive the car to France?"), terms name the group
#: ("Cars may be taken to EU countries")
_EU = frozenset(
    "austria belgium bulgaria croatia cyprus czechia czech denmark estonia finland france "
    "germany greece hungary ireland italy latvia lithuania luxembourg malta netherlands "
    "holland poland portugal romania slovakia slovenia spain sweden".split()
)
_EUROPE = _EU | frozenset(
    "albania andorra bosnia britain england iceland kosovo liechtenstein macedonia moldova "
    "monaco montenegro norway scotland serbia switzerland ukraine uk wales".split()
)
#: countries often travelled to from Europe, outside it
_ELSEWHERE = frozenset(
    "usa america canada mexico brazil argentina australia zealand japan china india "
    "thailand vietnam indonesia singapore malaysia turkey morocco egypt tunisia uae dubai "
    "israel jordan kenya tanzania".split()
)
_EU_NAMES = r"(?:the\s+)?(?:EU|E\.U\.|European\s+Union|EEA)"
#: a group of countries by what they lie outside: "outside the EU", "rest of the world"
_OUTSIDE = (
    (re.compile(rf"\b(?:outside|beyond)\s+{_EU_NAMES}\b", re.I), (_EUROPE - _EU) | _ELSEWHERE),
    (re.compile(r"\b(?:outside|beyond)\s+Europe\b|\brest\s+of\s+the\s+world\b", re.I),
     _ELSEWHERE),
)  # fmt: skip
#: a group of countries by name: "EU countries", "anywhere in Europe"
_WITHIN = (
    (re.compile(rf"\b{_EU_NAMES}\b|\bSchengen\b", re.I), _EU),
    (re.compile(r"\bEurope(?:an)?\b", re.I), _EUROPE),
)


def countries_grouped(question: str, texts: Sequence[str]) -> set[str]:
    """The countries ``question`` names ("France", "the USA") that belong to a group
    ``texts`` name ("EU countries", "anywhere in Europe", "outside the EU"): the evidence
    covers them in its own words."""
    named = {t for t in content_terms(question) if t in _EUROPE | _ELSEWHERE}
    if not named:
        return set()
    members: set[str] = set()
    for text in texts:
        for pattern, group in _OUTSIDE:
            if pattern.search(text):
                members |= group
                text = pattern.sub(" ", text)  # "outside the EU" names no EU country
        members |= {t for pattern, group in _WITHIN if pattern.search(text) for t in group}
    return named & members


def day_kinds(text: str) -> set[str]:
    """The kinds of day ``text`` names: "weekday" (Monday to Friday), "weekend"."""
    return {
        kind for kind, day in (("weekday", _WEEKDAY), ("weekend", _WEEKEND)) if day.search(text)
    }
