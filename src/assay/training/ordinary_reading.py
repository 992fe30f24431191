"""Reading examples from the ordinary-documents suites: chunks as users' documents cut.

The reader's gold examples (SQuAD, HaluEval, PolicyQA) are prose paragraphs asked in
their own words. A knowledge base written as users write it reads otherwise: a chunk is
an FAQ's answer under a heading that asks the question ("The display shows E4. What
does that mean?"), a table row ("Species Dog: Vaccine: Rabies, Price: £68"), a clause of a
lease under a numbered heading, a forum post; and the question is asked in the user's
words. ``bench/reader.py`` reads the held-out suite (``bench/ordinary``) this way: how
often the reader votes "no answer here" below the answerer's floor for a chunk that
states the answer (the answer is then never drafted).

Each knowledge base of a suite is built as ``ask`` sees it
(:func:`~assay.training.ordinary_kbs.build`) and every chunk is read as the answerer
reads it: title path, a line break, its text (:func:`assay.text.titled`). For each
question:

* answerable: the chunk nearest the question (the embedder's order) that holds a gold
  answer word for word (the longest such answer, first occurrence), from the gold
  source where the question names one, is the answer; the :data:`NEGATIVES` nearest
  chunks holding no gold answer are "no answer here", except the weaker source's of a
  disagreement question (it states an answer, the wrong one);
* unanswerable: its :data:`NEGATIVES` nearest chunks, with no answer.

Tried on 2026-12-08: the shipped reader trained one more pass on the fitting suite's
3,128 such examples (``labels/ordinary-fit``) with 4,000 of its gold examples did not
read the held-out suite better (EM 0.308 -> 0.270, answer-holding chunks declined 18% ->
21%, own vs nearest other chunk AUROC 0.657 -> 0.671), so no reader is trained on them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from assay.answer.citations import defuse_citations
from assay.calibration.scored import contains_gold
from assay.documents import Chunk
from assay.text import titled
from assay.training.ordinary_pairs import nearest_chunks

__all__ = ["NEGATIVES", "ReadingItem", "ordinary_reading"]

#: chunks without the answer paired with each question: the nearest ones (hard negatives)
NEGATIVES = 2
#: how many chunks are ranked per question: every chunk of a small knowledge base
_ALL = 10_000


class ReadingItem(NamedTuple):
    """One question against one chunk, read as the answerer reads it."""

    kb: str
    question: str
    passage: str  #: title path, a line break, the chunk's text
    start: int | None  #: where the answer starts in ``passage``; ``None``: it holds none
    answer: str  #: the gold answer found there ("" when none)
    golds: tuple[str, ...]  #: every gold answer of the question (none: unanswerable)


def _answer_in(text: str, answers: Collection[str]) -> tuple[int, str] | None:
    """Where in ``text`` the longest gold answer it holds word for word starts."""
    for gold in sorted(answers, key=len, reverse=True):
        at = text.lower().find(gold.lower())
        if gold.strip() and at >= 0:
            return at, text[at : at + len(gold)]
    return None


def _items(question: dict[str, Any], chunks: list[Chunk], kb: str) -> Iterator[ReadingItem]:
    answerable = question["type"] != "unanswerable"
    answers = tuple(question.get("answers") or ()) if answerable else ()
    gold_source, weaker = question.get("source"), question.get("weaker")
    negatives = 0
    found = False
    for chunk in chunks:
        text = defuse_citations(chunk.text)  # as the answerer reads it, title path first
        passage = titled(chunk.title, text)
        shift = len(passage) - len(text)
        holds = answerable and contains_gold(chunk.text, answers)
        if holds:
            where = _answer_in(text, answers)
            if found or where is None or gold_source not in (None, chunk.source_id):
                continue
            found = True
            start, answer = shift + where[0], where[1]
            yield ReadingItem(kb, question["question"], passage, start, answer, answers)
        elif negatives < NEGATIVES and chunk.source_id != weaker:
            negatives += 1
            yield ReadingItem(kb, question["question"], passage, None, "", answers)


def ordinary_reading(suite: Path) -> list[ReadingItem]:
    """Reading examples of every question of ``suite``; see the module docstring."""
    return [
        item
        for kb, question, chunks in nearest_chunks(suite, _ALL)
        for item in _items(question, chunks, kb.name)
    ]
