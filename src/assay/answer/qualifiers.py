"""The qualifiers of a question, and whether a passage or clause keeps to them.

"Who won the men's singles in 2021?" is answered by the clause about the men's title of
2021, not by the women's, nor by 2020's, though all three are on topic. A reading model
that reads the topic and not these words picks whichever name it likes best; assay's
reader is such a model (issue 42 measures it), so the answerer checks its spans against
the question's qualifiers:

* *exclusive* qualifiers, of which a statement holds one value and a rival statement
  another: a year ("2021"), a quarter or half ("Q3", "third quarter", "H1"), a gender
  ("men's", "women's"), a model of a product line ("HP-150", "HP-300"), a release
  written as three numbers ("4.3.0": a changelog's section is about one), a labelled
  letter or number ("Zone F" against "Zones C, D or E", "Class 2"), a name of one of a
  kind ("the Business plan", "the Starter plan"), an ordinal of a thing ("a second
  permit", "a third permit"), a length that names a thing ("the 3 year bond" against
  "2 Year Fixed Bond"), a kind a text lists against others of the same thing
  ("a charcoal barbecue" against "Gas and electric barbecues may be used"), the period of a
  rate ("per day", "monthly": "GBP 2.50 per hour, capped at GBP 12 per day"). A text that
  states values of such a class but not the asked one *clashes* with the question. A
  rate's period only ever counts against a text: a sentence often states it once for
  all its clauses ("The nightly cap is EUR 170 in most cities, and EUR 220 in Paris");
* *names*: the capitalised words the question names ("Paris", "Raducanu"). A text
  that holds them keeps to the question; one that does not may still answer (the name
  may be in its heading), so names only ever count for a text, never against it.

Clauses (:func:`clauses`) are where a sentence lists several values with their own
qualifiers: "EUR 170 in most cities, and EUR 220 in London and Paris".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from itertools import pairwise

from assay.text import day_kinds, is_stopword, stem

__all__ = ["Qualifiers", "clauses", "day_kinds", "qualifiers", "singular", "with_years"]

_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_ORDINAL = {"first": "1", "second": "2", "third": "3", "fourth": "4", "1st": "1", "2nd": "2",
            "3rd": "3", "4th": "4"}  # fmt: skip
_QUARTER = re.compile(
    r"\b(?:Q([1-4])|([1-4])Q|(first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+quarter)\b", re.I
)
_HALF = re.compile(r"\b(?:H([12])|(first|second|1st|2nd)[\s-]+half)\b", re.I)
_GENDER = re.compile(
    r"\b(?:(men|man|male|boys?|gentlem[ae]n)|(wom[ae]n|female|girls?|lad(?:y|ies)))"
    r"(?:'s|s'|\u2019s)?\b",
    re.I,
)
_NAME = re.compile(r"(?<![\w.])(?:[A-Z][\w-]*\d[\w-]*|\d+[A-Z][\w-]*|[A-Z][a-z][\w'-]*)")
_QUESTION_OPENERS = {
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are",
    "was", "were", "do", "does", "did", "can", "could", "may", "might", "should", "will",
    "would", "has", "have", "had", "in", "on", "at", "for", "the", "a", "an", "i", "if",
}  # fmt: skip
#: where a sentence turns to another statement: a semicolon, a line, a comma followed
#: by a conjunction, or by a label ("Men's time: 2:14:36, Women's winner: ...", a table
#: row as :mod:`assay.ingest.tables` writes it), or "and other" ("emergencies within 4
#: hours and other repairs within 5 working days")
_CLAUSE_END = re.compile(
    r";|\n|,\s+(?:and|but|while|whereas|or)\b|\s+whereas\b|\s+while\b"
    r"|[,:]\s+(?=[^,:.;]{1,40}:\s)|\s+(?=(?:and|or)\s+(?:all\s+|any\s+)?other\b)"
)
#: the period of a rate: "per day", "daily", "annual" (not "a day": "twice a day" is no rate)
_RATE = re.compile(
    r"\bper\s+(hour|day|night|week|month|year|annum)\b|\b(hour|dai|night|week|month|year)ly\b"
    r"|\b(annual)(?:ly)?\b",
    re.I,
)
_PERIOD = {"dai": "day", "annum": "year", "annual": "year"}
#: "other" before a noun: "and other repairs"
_OTHER = re.compile(r"\bother\s+([A-Za-z]+)", re.IGNORECASE)
#: where a sentence turns to its next part, beyond which no period belongs to a value
_NEXT_PART = re.compile(r"[,;]|\s(?:and|or|but)\s")
#: how far after a value its rate's period is written ("12 per calendar day")
_RATE_REACH = 24
#: a model or part number ("HP-300", "X1"): its letters name a product line, of which a
#: statement names one model and a rival statement another
_MODEL = re.compile(r"\b([A-Z]{1,4})-?(\d{1,5}[A-Z]?)\b")
#: a release written as three numbers ("4.3.0", "v2.3.1"): one section of a changelog is
#: about one release, and a sentence under another's heading states another's changes
_VERSION = re.compile(r"(?<![\w.])[vV]?(\d+\.\d+\.\d+)(?![\w]|\.\d)")
#: a label and the letters or numbers it picks out: "Zone F", "Zones C, D or E", "Class
#: 2", "revision B"; one statement names one zone and a rival statement another
_ONE = r"(?:[A-Z]|\d{1,3})"
_LABELLED = re.compile(
    rf"\b([A-Za-z]{{3,}})\s+({_ONE}(?:\s*(?:,|\bor\b|\band\b|&)\s*{_ONE})*)(?![\w'-])"
)
_LABEL_VALUE = re.compile(_ONE)
#: a name that picks out one of a kind: "the Business plan" against "the Starter plan"
#: (after a determiner: "the Visits Support Fund pay" names no kind of paying)
_NAMED_KIND = re.compile(
    r"\b(?:the|a|an|my|our|your|their|its|this|that)\s+([A-Z][a-z][\w'-]*)\s+([a-z]{3,})\b"
)
#: the months, by number ("Sept" and three-letter forms too)
_MONTH_NUMBER = {
    name: number
    for number, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
         ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
         ("september", "sept", "sep"), ("october", "oct"), ("november", "nov"),
         ("december", "dec")),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b\.?"
)
_MONTH_ASKED = re.compile(rf"\b({_MONTH})", re.I)
#: a season of months a text states: "From April to September the centre is open 8am to
#: 6pm", "between November and February", "Oct-Mar" (a day or a year may stand beside
#: either end: "from 1 April 2026 to 31 March 2027")
_DAY = r"(?:\d{1,2}(?:st|nd|rd|th)?\s+)?"
_END = r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?\s*"
_MONTH_RANGE = re.compile(
    rf"\bbetween\s+{_DAY}({_MONTH}){_END}and\s*{_DAY}({_MONTH})"
    rf"|\b{_DAY}({_MONTH}){_END}(?:to|until|till|through|-|\u2013)\s*{_DAY}({_MONTH})",
    re.I,
)

#: a text that says what holds outside the season it states speaks of every month
_REST_OF_YEAR = re.compile(
    r"\b(?:outside\s+(?:th(?:ese|ose|at|is)|the)\s+(?:months?|period|season|dates)"
    r"|(?:the\s+)?rest\s+of\s+the\s+year|other\s+months|out\s+of\s+season|otherwise"
    r"|all\s+year(?:\s+round)?|year-round)\b",
    re.I,
)


def _asks_month(word: str, at: int) -> bool:
    """Whether ``word`` of a question, found at ``at``, names a month: a capitalised
    name not opening it ("May I ...?"), or a lower-case full name that is no verb."""
    if word[0].isupper():
        return word.lower() != "may" or at > 0
    return len(word) > 3 and word.lower() not in ("march", "sept")


def _months(first: str, last: str) -> set[str]:
    """The months from ``first`` to ``last`` inclusive, across the new year ("October to
    March"), as numbers."""
    a = _MONTH_NUMBER[first.rstrip(".").lower()]
    b = _MONTH_NUMBER[last.rstrip(".").lower()]
    return {str((a - 1 + i) % 12 + 1) for i in range((b - a) % 12 + 1)}


#: a phase of something: "during probation" against "After probation, you must give 1
#: month's notice"; a time of day or a date is no phase ("after 6pm")
_PHASE = re.compile(
    r"\b(during|throughout|after|following|before|once\s+(?:you\s+have\s+)?(?:passed|completed))"
    r"\s+(?:the\s+|your\s+|my\s+|their\s+|its\s+|his\s+|her\s+)?([a-z]{4,})\b",
    re.I,
)
_PHASE_VALUE = {"during": "during", "throughout": "during", "after": "after",
                "following": "after", "before": "before"}  # fmt: skip
#: periods that have their own class, whatever ordinal names them
_PERIODS = frozenset({"quarter", "half"})
#: an ordinal and what it counts: "a second permit" against "a third permit"
_ORDINAL_OF = re.compile(
    r"\b(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)\s+([a-z]{3,})\b", re.I
)
_ORDINALS = {"fifth": "5", "5th": "5"} | _ORDINAL
#: a length that names one of a kind of thing: "the 3 year bond", "a 90 Day Notice
#: account", "a two-year contract" (its unit singular, a word after it); "for 3 years"
#: and "90 days' notice" are lengths, no names
_TERM = re.compile(
    r"\b(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]"
    r"(hour|day|week|month|year)(?![\w'\u2019-])(?=[\s-]+([A-Za-z]{3,}))",
    re.I,
)
_NUMBERS = {word: str(n) for n, word in enumerate(
    ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
     "twelve"), start=1)}  # fmt: skip
_WORD = r"[A-Za-z][a-z]{2,}"
#: kinds of one thing a text lists before its plural: "Gas and electric barbecues",
#: "oak, ash or beech floors". A text lists them to tell them apart; one adjective before
#: a noun ("late payment fee") does not, so it counts only where the text lists kinds of
#: that noun
_LISTED = re.compile(rf"\b({_WORD}(?:,\s*{_WORD})*),?\s+(?:and|or)\s+({_WORD})\s+([a-z]{{3,}})\b")
#: a word and the noun after it: "charcoal barbecue", what a kind is asked by
_PAIR = re.compile(rf"(?=\b({_WORD})\s+([a-z]{{3,}})\b)")


def singular(noun: str) -> str:
    """``noun`` without a plural ending, so "barbecues" and "barbecue" are one kind."""
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    if noun.endswith(("ches", "shes", "xes", "sses")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


def _plural(word: str) -> bool:
    """Whether ``word`` reads as a plural noun ("modules"), which names no kind of the
    noun after it ("gas", "glass" and "bus" do)."""
    return word.endswith("s") and not word.endswith(("ss", "us", "is", "as"))


def _kinds(text: str, asking: bool) -> dict[str, set[str]]:
    """The kinds of a noun ``text`` names (``kind <noun>``): every word before a noun
    when ``asking`` (a question names what it asks about), else only those of a noun
    the text lists kinds of (:data:`_LISTED`)."""
    kinds: dict[str, set[str]] = {}
    if asking:  # "the late rent fee": a fee of kind "late" or "rent"
        run: list[str] = []
        for m in re.finditer(r"[A-Za-z]+|[^\sA-Za-z]", text):
            word = m.group(0).lower()
            if len(word) < 3 or is_stopword(word):
                run = []
                continue
            for before in run[-2:]:
                kinds.setdefault(singular(word), set()).add(before)
            run.append(word)
        return {f"kind {noun}": words for noun, words in kinds.items()}
    for m in _LISTED.finditer(text):
        noun = singular(m.group(3))
        words = {w.strip().lower() for w in m.group(1).split(",")} | {m.group(2).lower()}
        if (
            noun != m.group(3)  # kinds of a thing are listed before its plural
            and not is_stopword(noun)
            and not any(is_stopword(w) or _plural(w) for w in words)  # "modules and ..."
        ):
            kinds.setdefault(noun, set()).update(words)
    for m in _PAIR.finditer(text):  # "Charcoal barbecues are not allowed" beside the list
        word, noun = m.group(1).lower(), singular(m.group(2))
        if noun in kinds and not is_stopword(word):
            kinds[noun].add(word)
    return {f"kind {noun}": words for noun, words in kinds.items()}


def _exclusive(text: str, asking: bool = False) -> dict[str, set[str]]:
    """Values of each exclusive class that ``text`` states (asks, when ``asking``). The
    kind of day a question asks about ("on Sunday": a weekend) counts only against the
    words just after a value (:meth:`Qualifiers.other_period_after`): "Monday to Friday"
    in a text is often the rule that answers "Is it open on Saturday?"."""
    found: dict[str, set[str]] = _kinds(text, asking)
    if asking and (days := day_kinds(text)):
        found["days"] = days
    for m in _YEAR.finditer(text):
        found.setdefault("year", set()).add(m.group(1))
    for m in _QUARTER.finditer(text):
        value = m.group(1) or m.group(2) or _ORDINAL[m.group(3).lower()]
        found.setdefault("quarter", set()).add(value)
    # a month the question asks about ("in January") against the seasons a text states:
    # "From April to September the centre is open 8am to 6pm" says nothing of January,
    # which its next sentence, "From October to March ... 8am to 4pm", does; a text that
    # names a month but no season of them states no month class (a date is no season)
    if asking:
        for m in _MONTH_RANGE.finditer(text):  # "in the July to September quarter"
            first, last = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            found.setdefault("month", set()).update(_months(first, last))
        for m in _MONTH_ASKED.finditer(text):
            word = m.group(1).rstrip(".")
            if _asks_month(word, m.start()):
                found.setdefault("month", set()).add(str(_MONTH_NUMBER[word.lower()]))
    else:
        for m in _MONTH_RANGE.finditer(text):
            first, last = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            found.setdefault("month", set()).update(_months(first, last))
        if "month" in found and _REST_OF_YEAR.search(text):  # "Outside those months ..."
            found["month"] = _months("january", "december")
    for m in _HALF.finditer(text):
        value = m.group(1) or _ORDINAL[m.group(2).lower()]
        found.setdefault("half", set()).add(value)
    for m in _GENDER.finditer(text):
        found.setdefault("gender", set()).add("m" if m.group(1) else "f")
    for m in _RATE.finditer(text):
        period = next(g for g in m.groups() if g).lower()
        found.setdefault("rate", set()).add(_PERIOD.get(period, period))
    for m in _VERSION.finditer(text):
        found.setdefault("version", set()).add(m.group(1))
    for m in _MODEL.finditer(text):
        found.setdefault(f"model {m.group(1)}", set()).add(m.group(2))
    for m in _LABELLED.finditer(text):
        label, values = m.group(1), set(_LABEL_VALUE.findall(m.group(2))) - {"I"}
        # a number only after a capitalised label: "Zone 1", not "within 5 days"
        if (label[0].islower() and any(v.isdigit() for v in values)) or is_stopword(label):
            continue
        if values:
            found.setdefault(f"labelled {singular(label.lower())}", set()).update(values)
    for m in _NAMED_KIND.finditer(text):
        name, kind = m.group(1), m.group(2)
        if not is_stopword(kind) and name.lower() not in _QUESTION_OPENERS:
            found.setdefault(f"named {singular(kind)}", set()).add(name.lower())
    for m in _PHASE.finditer(text):
        noun = m.group(2).lower()
        if not is_stopword(noun) and not noun.endswith("ing"):  # "before collecting": no phase
            when = _PHASE_VALUE.get(m.group(1).lower(), "after")  # "once you have passed"
            found.setdefault(f"phase {singular(noun)}", set()).add(when)
    for m in _ORDINAL_OF.finditer(text):
        # "the first quarter" is the quarter class's: a title's "third quarter" beside a
        # row's "Q1" states the asked quarter too
        if not is_stopword(m.group(2)) and stem(m.group(2).lower()) not in _PERIODS:
            value = _ORDINALS[m.group(1).lower()]
            found.setdefault(f"ordinal {singular(m.group(2).lower())}", set()).add(value)
    for m in _TERM.finditer(text):
        if not is_stopword(m.group(3)):
            value = _NUMBERS.get(m.group(1).lower(), m.group(1))
            found.setdefault(f"term {m.group(2).lower()}", set()).add(value)
    return found


def _fold(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "", word.lower())


@dataclass(frozen=True, slots=True)
class Qualifiers:
    """What a question pins down: values of exclusive classes, and names."""

    exclusive: dict[str, set[str]]
    names: frozenset[str]  #: folded: lower case, letters and digits only

    def clashes(self, text: str) -> bool:
        """Whether ``text`` states another value of a class the question pins down, and
        not the asked one ("2020" for a question about 2021)."""
        return bool(self.clashing(text))

    def clashing(self, text: str) -> list[str]:
        """What ``text`` states otherwise than the question, each as a word: "year",
        "quarter", "car" for "first car" against "a second car", "zone", "plan", "number
        of years" for "the 3 year bond" against "2 Year Fixed Bond"."""
        stated = _exclusive(text)
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
        return [
            cls.split()[-1] if cls.startswith(("ordinal ", "named ", "labelled ", "kind ")) else
            "model" if cls.startswith("model ") else
            f"phase of {cls.split()[-1]}" if cls.startswith("phase ") else
            f"number of {cls.split()[-1]}s" if cls.startswith("term ") else cls
            for cls, values in self.exclusive.items()
            if cls in stated and not (values & stated[cls])
            # "the driving test" of "the theory and practical tests ... independent
            # driving": a word the text says too names no rival kind
            and not (cls.startswith("kind ") and values & words)
        ]  # fmt: skip

    def misses_release(self, text: str) -> bool:
        """Whether the question names a release ("4.3.0") that ``text`` does not state:
        a sentence under no heading of that release is about another, or about none."""
        asked = self.exclusive.get("version")
        if not asked:
            return False
        return not asked & _exclusive(text).get("version", set())

    def of_others(self, clause: str, sentence: str) -> bool:
        """Whether ``clause`` of ``sentence`` speaks of "other" things of a kind the
        question asks about, which the sentence names elsewhere: "and other repairs
        within 5 working days" of "We aim to attend emergencies within 4 hours and other
        repairs ..." for "an emergency repair" (what it says is not said of the kind
        asked)."""
        elsewhere = {singular(w) for w in re.findall(r"[a-z]+", sentence.lower())}
        return any(
            kinds & elsewhere
            for m in _OTHER.finditer(clause)
            if (kinds := self.exclusive.get(f"kind {singular(m.group(1).lower())}"))
        )

    def other_period_after(self, text: str, end: int, start: int | None = None) -> bool:
        """Whether the words of ``text`` just after character ``end`` (a value) state
        the period of another rate than the question asks for ("GBP 2.50 per hour" for
        "How much per day?"), or another kind of day ("06:30 to 21:00 on weekdays" for
        "When does it open on Sunday?"); with ``start``, also whether the value itself
        names only another kind of day ("06:30 to 21:00 on weekdays and from 08:00 to
        18:00")."""
        days = self.exclusive.get("days")
        within = day_kinds(text[start:end]) if days and start is not None else set()
        if days and within and not days & within:
            return True
        # up to where the sentence turns to its next part: in "daily snapshots for 30
        # days, weekly snapshots for 12 weeks", "weekly" is not the period of "30 days"
        after = _NEXT_PART.split(text[end : end + _RATE_REACH], maxsplit=1)[0]
        rate = self.exclusive.get("rate")
        if rate and Qualifiers({"rate": rate}, frozenset()).clashes(after):
            return True
        said = day_kinds(after)
        return bool(days and said and not days & said)

    def held(self, text: str) -> int:
        """How many of the question's qualifiers ``text`` states: asked values of
        exclusive classes, and names."""
        stated = _exclusive(text)
        count = sum(
            bool(values & stated.get(cls, set()))
            for cls, values in self.exclusive.items()
            # a rate is said once for a sentence's clauses ("The nightly cap is ..."); a
            # named kind or an ordinal only tells a rival apart: a table row names its
            # tier in its header ("Tier Plus: ..."), a passage about the tiers in prose
            if not cls.startswith(("rate", "named ", "ordinal ", "kind "))
        )
        words = {_fold(w) for w in re.findall(r"[\w'-]+", text)}
        folded = _fold(text)
        return count + sum(
            name in words or (len(name) > 3 and name in folded) for name in self.names
        )


#: a year named by its distance from today: "this year", "last year", "next year"
_RELATIVE_YEAR = re.compile(r"\b(this|last|next)\s+year\b(?!\s*\()", re.I)
_YEARS_AWAY = {"this": 0, "last": -1, "next": 1}


def with_years(question: str, day: date) -> str:
    """``question`` with each year it names by its distance from ``day`` followed by the
    year itself: "How much did Arkwell sell in Q2 of last year?" asked in 2026 is about
    2025, and a reading that knows only the words takes 2026's Q2 as readily as 2025's."""
    return _RELATIVE_YEAR.sub(
        lambda m: f"{m.group(0)} ({day.year + _YEARS_AWAY[m.group(1).lower()]})", question
    )


def qualifiers(question: str) -> Qualifiers:
    """The qualifiers ``question`` states (see the module docstring)."""
    names = set()
    for m in _NAME.finditer(question):
        word = m.group(0).strip("'-")
        if word.lower() in _QUESTION_OPENERS or any(
            p.fullmatch(word) for p in (_YEAR, _QUARTER, _MODEL)
        ):
            continue  # an exclusive value, counted as one
        names.add(_fold(word))
    return Qualifiers(_exclusive(question, asking=True), frozenset(n for n in names if n))


def clauses(text: str) -> list[tuple[int, int]]:
    """``text`` cut where it turns to another statement (see :data:`_CLAUSE_END`), as
    ``(start, end)`` character offsets that cover it."""
    cuts = [0, *(m.start() for m in _CLAUSE_END.finditer(text)), len(text)]
    return [(a, b) for a, b in pairwise(cuts) if b > a]
