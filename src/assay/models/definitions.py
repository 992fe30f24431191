"""A glossary entry read as the sentence it stands for, when a question asks what it means.

Manuals and help pages define codes and signals in lists: "- E2: the fryer has
overheated", "Flashing orange - a firmware update is running". The relevance models
learnt from prose, where a definition reads "E2 means the fryer has overheated"; against
"What does E2 mean?" they rate the list entry 0.13 and the same words written as a
sentence 0.61, while a forum post "E2 just means the drawer is open" reads 0.68 for
echoing "mean". So, for a question that asks what something means, each entry of the
passage that defines the asked term (its words all among the question's term) is scored
as the sentence it stands for: "E2 means the fryer has overheated". The text is only read
so; what is stored, quoted and cited is the passage as written. Other questions, and
entries of other terms, are left as they are.
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


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def term_asked(question: str) -> set[str]:
    """The words of the term whose meaning ``question`` asks for ("What does the E2 code
    mean?": ``{"e2", "code"}``); empty when it asks for no meaning."""
    m = _MEANING.search(question)
    if m is None:
        return set()
    return _words(m.group("term") or m.group("other") or "")


def as_prose(question: str, passage: str) -> str:
    """``passage`` with each list entry that defines the term ``question`` asks about
    written as a sentence ("E2: the fryer ..." read as "E2 means the fryer ..."); the
    passage itself when the question asks for no meaning or no entry defines its term."""
    asked = term_asked(question)
    if not asked:
        return passage

    def sentence(m: re.Match[str]) -> str:
        words = _words(m.group("term"))
        if not words or not words <= asked:
            return m.group(0)
        return f"{m.group('lead')}{m.group('term').rstrip()} means "

    return _ENTRY.sub(sentence, passage)


def defines(question: str, passage: str) -> bool:
    """Whether ``passage`` holds a list entry that defines the term ``question`` asks the
    meaning of (:func:`as_prose` reads it otherwise): such an entry answers, though the
    reader, which learnt from prose too, finds no span in it."""
    return as_prose(question, passage) != passage
