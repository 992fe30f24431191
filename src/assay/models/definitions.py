"""A glossary entry read as the sentence it stands for, when a question asks what it means.

Manuals and help pages define codes and signals in lists: "- E2: the fryer has
overheated", "Flashing orange - a firmware update is running". The relevance models
learnt from prose, where a definition reads "E2 means the fryer has overheated"; against
"What does E2 mean?" they rate the list entry 0.13 and the same words written as a
sentence 0.61, while a forum post "E2 just means the drawer is open" reads 0.68 for
echoing "mean". So, for a question that asks what something means, each entry of the
passage that defines the asked term (its words all among the question's term) is scored
as the sentence it stands for: "E2 means the fryer has overheated", and the entries of
other terms beside it are left out of the reading. The text is only read so; what is
stored, quoted and cited is the passage as written. Other questions are left as they
are.
"""

from __future__ import annotations

import re

__all__ = ["as_prose", "defines", "term_asked"]

#: "What does E2 mean?", "What do the flashing lights indicate?", "What does APR stand
#: for?", "What is meant by a qualifying day?", "What is the meaning of 'vacant'?"
_MEANING = re.compile(
    r"\bwhat\s+(?:does|do|did)\s+(?:an?\s+|the\s+|this\s+|that\s+|my\s+)?(?P<term>.{1,60}?)"
    r"\s+(?:mean|stand\s+for|indicate|signify)\b"
    r"|\bwhat\s+is\s+(?:meant\s+by|the\s+meaning\s+of)\s+(?:an?\s+|the\s+)?(?P<other>.{1,60}?)"
    r"\s*[?.!]*\s*$",
    re.I,
)
#: a list entry that defines a term: at the start of a line, after an optional bullet or
#: number, a short term, then a colon or a spaced dash, en or em dash ("E2: ...",
#: "- Solid red - ...")
_ENTRY = re.compile(
    r"^(?P<lead>[ \t]*(?:[-*\u2022]|\d{1,2}[.)])?[ \t]*)(?P<term>[^\n:\u2013\u2014]{1,40}?)"
    r"(?P<sep>[ \t]*:|[ \t]+[-\u2013\u2014][ \t])[ \t]*(?=\S)",
    re.M,
)
_WORD = re.compile(r"[a-z0-9]+")
#: a code a display or a log shows: "E35", "F22", "ERR-4"
_CODE = re.compile(r"\b[A-Z]{1,3}-?\d{1,4}\b")
#: "The display says E35, what's wrong?", "It shows F22, what does that mean?": the code
#: named before is the term asked
_CODE_ASKED = re.compile(
    r"\bwhat(?:'s|\u2019s|\s+is)\s+(?:wrong|the\s+(?:problem|fault|matter))\b"
    r"|\bwhat\s+(?:does|do)\s+(?:it|that|this|they|these)\s+(?:mean|indicate|signify)\b",
    re.I,
)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def term_asked(question: str) -> set[str]:
    """The words of the term whose meaning ``question`` asks for ("What does the E2 code
    mean?": ``{"e2", "code"}``; "The display says E35, what's wrong?": ``{"e35"}``);
    empty when it asks for no meaning."""
    if _CODE_ASKED.search(question):
        return _words(" ".join(_CODE.findall(question)))
    m = _MEANING.search(question)
    if m is None:
        return set()
    return _words(m.group("term") or m.group("other") or "")


def as_prose(question: str, passage: str) -> str:
    """``passage`` with each list entry that defines the term ``question`` asks about
    written as a sentence ("E2: the fryer ..." read as "E2 means the fryer ...") and the
    entries of other terms left out (a list of eight codes scored whole reads 0.38 against
    "What does E21 mean?", its E21 entry alone 0.79); the passage itself when the question
    asks for no meaning or no entry defines its term."""
    asked = term_asked(question)
    if not asked:
        return passage
    lines: list[str | None] = []
    defined = False
    for line in passage.split("\n"):
        m = _ENTRY.match(line)
        if m is None:
            lines.append(line)
            continue
        words = _words(m.group("term"))
        if words and words <= asked:
            defined = True
            lines.append(f"{m.group('lead')}{m.group('term').rstrip()} means {line[m.end() :]}")
        else:
            lines.append(None)
    if not defined:
        return passage
    return "\n".join(line for line in lines if line is not None)


def defines(question: str, passage: str) -> bool:
    """Whether ``passage`` holds a list entry that defines the term ``question`` asks the
    meaning of (:func:`as_prose` reads it otherwise): such an entry answers, though the
    reader, which learnt from prose too, finds no span in it."""
    return as_prose(question, passage) != passage
