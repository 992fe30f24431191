"""A table's columns as qualifiers: a row about another item than the question names.

A price list or a schedule written as a table (:mod:`assay.ingest.tables` writes each
row as one sentence, each value beside its column's name) tells its items apart by the
values of a few short columns::

    Species Dog: Vaccine: Rabies, ..., Price: £68.00.
    Species Cat: Vaccine: FCP core, ..., Price: £52.00.

"How much does the rabies vaccine cost for a cat?" names a value of the *Vaccine*
column (Rabies) and one of the *Species* column (Cat). The cat's row holds another
vaccine, the rabies row another species: neither states the price asked for, though
each shares most of the question's words, and a reader that weighs words (the
relevance model, the span reader) quotes one. A column is such a class of values, like
the years and models of :mod:`assay.answer.qualifiers`, only named by the table itself:
a row *clashes* with the question where the question names some row's value of a
column and not this row's.

Only a column whose every value names a thing counts ("Rabies", "FCP core", "Lepto L4",
"Cat"; a list of them, "Eastgate, Hollins"): a value with a figure of its own ("8
weeks", "£46.00", "2 doses") is a quantity, which a question states as its condition
("my puppy is 12 weeks old") rather than to pick a row, and a column of sentences
("The request body is over 10 MB", "Too many requests") describes rather than names:
a question's "request" picks no row of it.
A row's first cell counts when the rows share its column's name ("Species Dog",
"Species Cat"); a specification table's first cells name properties, not items, and
are left alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from assay.answer.qualifiers import clauses
from assay.text import TABLE_CELL, content_terms, stem

__all__ = ["column_clashes"]

_DIGIT = re.compile(r"\d")
_CODE = re.compile(r"\b[A-Za-z]+-?\d")
_ITEMS = re.compile(r",\s*|\s+(?:and|or)\s+|\s*/\s*")
_MAX_WORDS = 4  #: a longer item describes rather than names ("rabies (needed for travel)")


def _row(sentence: str) -> tuple[str, dict[str, str]] | None:
    """``(first cell, {column: value})`` of a table row as ingest writes it; ``None``
    for a sentence with fewer than two named cells (prose, a one-cell row)."""
    parts = [sentence[a:b] for a, b in clauses(sentence)]
    if len(parts) < 3 or not parts[1].startswith(":"):
        return None  # the lead cell ends where ingest wrote its colon
    cells = {}
    for part in parts[1:]:
        match = TABLE_CELL.match(part)
        if match is not None:
            cells[match["label"].strip()] = match["value"].strip()
    return (parts[0].strip(), cells) if len(cells) >= 2 else None


@functools.lru_cache(maxsize=4096)
def _names(value: str) -> tuple[frozenset[str], ...]:
    """What a question must hold to name ``value``: the stems of one of its items (a
    value may list several: "Eastgate, Hollins"); none for a value that names no thing
    (a figure, a long description, only stopwords). Each row's cells are read for every
    row of its table and every answer: the values recur."""
    if _DIGIT.search(value) and not _CODE.search(value):
        return ()  # "8 weeks", "£46.00"; a code ("Lepto L4", "HP-300") still names
    if len(value.split()) > _MAX_WORDS + value.count(","):
        return ()
    items = (frozenset(stem(t) for t in content_terms(item)) for item in _ITEMS.split(value))
    return tuple(item for item in items if item)


def _named(asked: set[str], value: str) -> bool:
    """Whether a question whose stems are ``asked`` names ``value``."""
    return any(item <= asked for item in _names(value))


def _first_cells(leads: Sequence[str]) -> dict[str, str]:
    """The values of the rows' first column, by lead, where every lead starts with the
    same word (the column's name: "Species Dog", "Species Cat"); otherwise none."""
    heads = {lead.split(" ", 1)[0] for lead in leads if " " in lead}
    if len(heads) != 1 or any(" " not in lead for lead in leads):
        return {}
    return {lead: lead.split(" ", 1)[1] for lead in leads}


def column_clashes(question: str, sentences: Sequence[str]) -> list[str | None]:
    """For each of ``sentences``, the column (by name) on which it, a table row, is about
    another item than ``question`` names: the question names a value of that column
    held by another row of the same table (the same columns) among ``sentences``, and
    not this row's own; ``None`` for a row that keeps to the question, and for prose."""
    asked = {stem(t) for t in content_terms(question)}
    rows = [_row(s) for s in sentences]
    tables: dict[tuple[str, ...], list[tuple[str, dict[str, str]]]] = {}
    for row in rows:
        if row is not None:
            tables.setdefault(tuple(row[1]), []).append(row)
    return [None if row is None else _clash(asked, row, tables[tuple(row[1])]) for row in rows]


def _clash(
    asked: set[str], row: tuple[str, dict[str, str]], table: list[tuple[str, dict[str, str]]]
) -> str | None:
    """The column on which ``row`` of ``table`` is about another item than the question
    whose stems are ``asked`` (see :func:`column_clashes`)."""
    if len(table) < 2:
        return None
    lead, cells = row
    by_column, own = {}, {}
    firsts = _first_cells([t[0] for t in table])
    if firsts:  # the first column, named by the word every lead starts with: the row's own
        first = lead.split(" ", 1)[0]
        by_column[first] = list(firsts.values())
        own[first] = firsts[lead]
    by_column |= {column: [cells_of[column] for _, cells_of in table] for column in cells}
    own |= cells
    naming = {c: v for c, v in by_column.items() if all(_names(x) for x in v)}
    # a question's word that names a whole value names that one: "cats" is the Species
    # Cat, not a word of "cat flu, feline enteritis" in the column beside it
    whole = frozenset().union(
        *(item for v in naming.values() for x in v for item in _names(x) if item <= asked)
    )
    for column, values in naming.items():  # a column of figures or descriptions names none
        named = _named_values(asked, values, asked - whole)
        if named and own[column] not in named:
            return column
    return None


def _named_values(asked: set[str], values: list[str], free: set[str]) -> set[str]:
    """The values of a column that a question whose stems are ``asked`` names: all the
    words of one of a value's items, or a word of ``free`` (those naming no whole value
    of any column) that no other value of the column holds ("the Business plan" names
    "Business Cloud" beside "Team" and "Team Cloud"; "Cloud" names neither)."""
    words = {v: frozenset().union(*_names(v)) for v in values}
    named = {v for v in values if _named(asked, v)}
    for value, own in words.items():
        others = frozenset().union(*(w for v, w in words.items() if v != value))
        if own & free - others:
            named.add(value)
    return named
