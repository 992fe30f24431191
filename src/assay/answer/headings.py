"""The answer a heading gives: "Which version added the diff command?"

Some questions ask which part of a document says something, not what it says: "Which
version added the diff command?", "Which article covers flying at night?". In a
changelog or a regulation the answer is the heading of the section the sentence stands
under ("4.1.0 — 2026-04-02 > Added", "Article 11 — Flights at night"), and the
sentence itself names no version or article. The extractive answerer quotes that
sentence; this module finds the short answer it opens with in the sentence's title path,
nearest heading first, when the sentence holds none of its own ("Python 3.10 or newer is
now required" answers "Which version of Python ...?" itself). A changelog dates its
releases in their headings too ("4.3.0 — 2026-10-01"): "When was 4.3.0 released?" is
answered by the date of the heading that names the release asked about.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay.answer.expected import expected_kind
from assay.answer.qualifiers import qualifiers
from assay.answer.reading import Found
from assay.text import MONTH

__all__ = ["asked_part", "dated_heading", "heading_answer"]

#: "which version", "what article of the ordinance", "which release of Ledgerloom"
_ASKED = re.compile(
    r"\b(?:which|what)\s+(?P<part>version|release|edition|article|section|chapter|clause|"
    r"paragraph|schedule|annex|appendix|rule|regulation)s?\b",
    re.I,
)
_VERSIONED = frozenset({"version", "release", "edition"})
#: "4.1.0", "v2.3", "2026.10.14-2": a version as changelogs write it
_VERSION = re.compile(r"(?<![\w.])[vV]?\d+(?:\.\d+){1,3}(?:-[\w.]+)?(?![\w.])")
#: a whole date as headings write it: "2026-10-01", "1 October 2026", "October 1, 2026"
_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}\s+{MONTH.pattern}\s+\d{{4}}\b"
    rf"|{MONTH.pattern}\s+\d{{1,2}},?\s+\d{{4}}\b"
)
#: what a changelog's dated sections record: "added", "deprecated", "released"
_CHANGE = re.compile(
    r"\b(?:added|released|introduced|changed|deprecated|removed|dropped|fixed|launched|"
    r"published|announced|updated|renamed|raised|lowered)\b",
    re.I,
)
#: "11", "4.2", "12a", or a Roman numeral in capitals ("Chapter III", never "chapter civic")
_NUMBER = r"(?:\d+[A-Za-z]?(?:\.\d+)*|(?-i:[IVXLC]+))\b"


def asked_part(question: str) -> str | None:
    """The part of a document ``question`` asks for ("version", "article"); ``None``
    when it asks for none."""
    match = _ASKED.search(question)
    return match.group("part").lower() if match else None


def _identifier(part: str, text: str) -> str | None:
    """The first identifier of ``part`` in ``text``: a version number for a version,
    release or edition; the part's name and number for the others ("Article 11")."""
    if part in _VERSIONED:
        found = _VERSION.search(text)
    else:
        found = re.search(rf"\b{part}\s+{_NUMBER}", text, re.I)
    return found.group(0) if found else None


def heading_answer(question: str, title: str | None, sentence: str) -> str | None:
    """The identifier the question asks for, from the nearest heading of ``title`` (a
    title path, headings joined by " > ") that holds one; for a question that asks when,
    the date of the nearest heading that states what it pins down. ``None`` when the
    question asks for neither, when ``sentence`` holds such an identifier or date itself
    (it answers in its own words) or when no heading holds one."""
    part = asked_part(question)
    if part is None:
        return _heading_date(question, title, sentence)
    if not title or _identifier(part, sentence) is not None:
        return None
    for heading in reversed(title.split(" > ")):
        found = _identifier(part, heading)
        if found is not None:
            return found
    return None


def _heading_date(question: str, title: str | None, sentence: str) -> str | None:
    """The date of the nearest heading that states what the question pins down (the
    release "4.3.0"), for a question that asks when and a sentence with no date."""
    kind = expected_kind(question)
    if kind is None or kind.name != "date" or kind.found_in(sentence) or not title:
        return None
    asked = qualifiers(question)
    # a question about a change that pins no release down ("When was log streaming
    # added?") is answered by the date of the section its sentence stands under; "When
    # does it open?" is not, by a page's "Hours, 1 May 2026"
    pins = any(not cls.startswith("kind ") for cls in asked.exclusive)
    dated = not pins and _CHANGE.search(question) is not None
    for heading in reversed(title.split(" > ")):
        if (asked.held(heading) or dated) and (found := _DATE.search(heading)):
            return found.group(0)
    return None


def dated_heading(question: str, found: Sequence[Found]) -> bool:
    """Whether one of the passages the reader read stands under a heading whose date
    answers ``question`` (:func:`heading_answer`), though their text holds none: a
    changelog's "3.2.0 (2026-09-14)" above "`brindle logs --follow` streams logs live"."""
    return any(_heading_date(question, f.context.title, "") is not None for f in found)
