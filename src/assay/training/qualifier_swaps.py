"""Qualifier-swap stress pairs: a passage stops answering when the question's qualifier
changes, and relevance must fall.

Retrieval brings passages on the question's topic; the hard ones to tell apart are on the
same topic with another year, quarter, gender, month or name: the 2020 final for a
question about 2021, the women's result for the men's. A relevance model that reads the
topic scores both alike. From each answering pair of a set (a question with the passage
holding its answer), :func:`qualifier_swaps` keeps the pair (``relevant``, kind
``own``) and makes, where the question and passage allow it, one ``irrelevant`` pair per
kind:

* ``year`` / ``quarter`` / ``month`` / ``gender``: the question's value changed to one the
  passage does not state ("in 2019" -> "in 2017" where the passage names only 2019);
* ``name``: a name of the question that the passage states changed to a name from
  another passage of the same document that this passage does not state (a name: a
  capitalised word inside a sentence that the set never writes in lower case);
* ``passage_year``: the reverse, the passage's year changed (every occurrence) to one
  neither text states, so that the unchanged question asks about a year the passage no
  longer names.

A swapped value is always one the other text does not state, so the pair cannot answer
by another route ("men's" to "women's" only where the passage says nothing of women).
``dataset`` is ``swap:<source>``; the pairs keep their source's group, so that held-out
groups stay held out.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from assay.text import YEAR
from assay.training.pairsets import LabeledPair

__all__ = ["SWAP_KINDS", "qualifier_swaps"]

SWAP_KINDS = ("year", "quarter", "month", "gender", "name", "passage_year")

_QUARTER = re.compile(r"\b(Q[1-4]|(?:first|second|third|fourth) quarter)\b", re.I)
_QUARTERS = ("first quarter", "second quarter", "third quarter", "fourth quarter")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip
_MONTH = re.compile(r"\b(" + "|".join(m for m in _MONTHS if m != "May") + r")\b")
#: each gendered word with its counterpart; a swap needs the passage silent on the other
_GENDER = {"men": "women", "male": "female", "boys": "girls", "king": "queen",
           "father": "mother", "son": "daughter", "brother": "sister", "husband": "wife",
           "actor": "actress", "prince": "princess"}  # fmt: skip
_GENDER |= {v: k for k, v in _GENDER.items()}
_GENDER_WORD = re.compile(r"\b(" + "|".join(sorted(_GENDER, key=len, reverse=True)) + r")\b", re.I)
#: a capitalised word inside a sentence (after a lower-case word): a name, not an opener
_INNER_NAME = re.compile(r"(?<=[a-z,] )([A-Z][a-z]{3,})\b")


def _absent(word: str, *texts: str) -> bool:
    return all(re.search(rf"\b{re.escape(word)}\b", t, re.I) is None for t in texts)


def _other_year(question: str, passage: str, rng: random.Random) -> tuple[str, str] | None:
    """A year of the question that the passage states, and a nearby year neither text
    states."""
    years = [y for y in YEAR.findall(question) if y in passage]
    if not years:
        return None
    for step in rng.sample([-3, -2, -1, 1, 2, 3], 6):
        other = str(int(years[0]) + step)
        if _absent(other, question, passage):
            return years[0], other
    return None


def _swap_year(question: str, passage: str, rng: random.Random) -> str | None:
    found = _other_year(question, passage, rng)
    return None if found is None else re.sub(rf"\b{found[0]}\b", found[1], question)


def _swap_passage_year(question: str, passage: str, rng: random.Random) -> str | None:
    """The passage with the question's year changed (the pair's second text)."""
    found = _other_year(question, passage, rng)
    return None if found is None else re.sub(rf"\b{found[0]}\b", found[1], passage)


def _swap_quarter(question: str, passage: str, rng: random.Random) -> str | None:
    found = _QUARTER.search(question)
    if found is None:
        return None
    spoken = found.group(1).lower()
    index = int(spoken[1]) - 1 if spoken.startswith("q") else _QUARTERS.index(spoken)
    others = [k for k in range(4) if k != index]
    for k in rng.sample(others, len(others)):
        if _absent(_QUARTERS[k], passage) and _absent(f"Q{k + 1}", passage):
            value = f"Q{k + 1}" if spoken.startswith("q") else _QUARTERS[k]
            return question[: found.start()] + value + question[found.end() :]
    return None


def _swap_month(question: str, passage: str, rng: random.Random) -> str | None:
    found = _MONTH.search(question)
    if found is None or found.group(1) not in passage:
        return None
    others = [m for m in _MONTHS if m != found.group(1) and _absent(m, passage)]
    if not others:
        return None
    return question[: found.start()] + rng.choice(others) + question[found.end() :]


def _swap_gender(question: str, passage: str, _rng: random.Random) -> str | None:
    found = _GENDER_WORD.search(question)
    if found is None:
        return None
    word = found.group(1)
    other = _GENDER[word.lower()]
    if not _absent(other, passage) or not _absent(other + "'s", passage):
        return None
    if word[0].isupper():
        other = other.capitalize()
    return question[: found.start()] + other + question[found.end() :]


def _names(text: str) -> set[str]:
    return set(_INNER_NAME.findall(text))


def _swap_name(
    question: str, passage: str, rng: random.Random, pool: Sequence[str], names: set[str]
) -> str | None:
    asked = sorted(n for n in _names(" " + question) if n in passage and n in names)
    others = [n for n in pool if _absent(n, passage, question)]
    if not asked or not others:
        return None
    name = rng.choice(asked)
    return re.sub(rf"\b{name}\b", rng.choice(others), question)


def qualifier_swaps(
    pairs: Sequence[LabeledPair], source: str, *, seed: int = 13
) -> list[LabeledPair]:
    """The answering pairs of ``pairs`` with their swapped negatives (module docstring)."""
    rng = random.Random(seed)
    dataset = f"swap:{source}"
    lower = {w for pair in pairs for w in re.findall(r"\b[a-z]{4,}\b", pair.second)}
    names_by_group: dict[str, set[str]] = {}
    for pair in pairs:  # names stated inside sentences, never written in lower case
        names = {n for n in _names(pair.second) if n.lower() not in lower}
        names_by_group.setdefault(pair.group, set()).update(names)
    question_swaps: dict[str, Callable[[str, str, random.Random], str | None]] = {
        "year": _swap_year, "quarter": _swap_quarter, "month": _swap_month,
        "gender": _swap_gender,
    }  # fmt: skip
    out: list[LabeledPair] = []
    seen: set[tuple[str, str]] = set()
    for pair in pairs:
        if not pair.positive or (pair.first, pair.second) in seen:
            continue
        seen.add((pair.first, pair.second))
        own = replace(pair, dataset=dataset, kind="own")
        made = [own]
        for kind, swap in question_swaps.items():
            question = swap(pair.first, pair.second, rng)
            if question is not None and question != pair.first:
                made.append(replace(own, first=question, label="irrelevant", kind=kind))
        names = names_by_group[pair.group]
        pool = sorted(names - _names(pair.second))
        question = _swap_name(pair.first, pair.second, rng, pool, names)
        if question is not None:
            made.append(replace(own, first=question, label="irrelevant", kind="name"))
        passage = _swap_passage_year(pair.first, pair.second, rng)
        if passage is not None:
            made.append(replace(own, second=passage, label="irrelevant", kind="passage_year"))
        if len(made) > 1:  # a pair without any swap measures nothing here
            out += made
    return out
