"""Markdown tables as one sentence per row, each value beside its column's name.

A table kept as raw ``| 2021 | Tomas Eklund | 2:14:36 |`` lines is one long "sentence"
to every model downstream: the answer quotes the whole table, and nothing tells which
cell is the men's winner of 2021. Written out, each row says what each value is::

    | Year | Men's winner | Women's winner |
    |------|--------------|----------------|
    | 2021 | Tomas Eklund | Ingrid Solberg |

becomes ``Year 2021: Men's winner: Tomas Eklund, Women's winner: Ingrid Solberg.`` A
row whose first column has no name (a specification table: models across, properties
down) is led by its first cell: ``Recommended fuse at 12 V: HP-150: 5 A, HP-300: 7.5 A.``
Each value with its column's name is a clause of its own, so a reader weighs it with
that name (:mod:`assay.answer.qualifiers`); the row stays one sentence. Lines that
are not a table with a header and a separator row are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["table_sentences"]

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$")


def _cells(line: str) -> list[str]:
    """The cells of a table line, spaces squashed; a semicolon inside a cell becomes a
    comma, as a semicolon ends a sentence and the row must stay one ("Meaning: a major
    function is impaired; no workaround, Resolution target: 1 business day")."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    cells = re.split(r"(?<!\\)\|", body)
    return [" ".join(cell.split()).replace(";", ",").rstrip(",") for cell in cells]


def table_sentences(lines: Sequence[str]) -> str | None:
    """``lines`` written out as one sentence per row (see the module docstring), or
    ``None`` when they are not a Markdown table with a header and a separator row."""
    if len(lines) < 3 or not all(line.lstrip().startswith("|") for line in lines):
        return None
    if not _SEPARATOR.match(lines[1]):
        return None
    header = _cells(lines[0])
    rows = []
    for line in lines[2:]:
        cells = _cells(line)
        if not any(cells):
            continue
        names = header + [""] * (len(cells) - len(header))
        lead = f"{names[0]} {cells[0]}".strip() if names[0] else cells[0]
        values = [
            f"{name}: {value}" if name else value
            for name, value in zip(names[1:], cells[1:], strict=False)
            if value
        ]
        sentence = f"{lead}: {', '.join(values)}" if lead and values else lead or ", ".join(values)
        rows.append(sentence.rstrip(".") + ".")
    return "\n".join(rows) if rows else None
