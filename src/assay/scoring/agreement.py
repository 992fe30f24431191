"""Agreement and conflict between evidence items, judged by a support model.

Corroboration (E10) needs to know when two passages state the same finding, and the
judge needs to know when they contradict each other. Word overlap alone finds
neither reliably: a paraphrase shares few words, and "charge up to 45 °C" against
"charge up to 70 °C" shares almost all. Both functions here compare passages through
their best-aligned sentences and ask the support model (:mod:`assay.models.support`)
whether each passage backs the other's sentence.

:func:`support_similarity` builds a drop-in replacement for
:func:`~assay.scoring.corroboration.lexical_similarity`: 0 whenever the lexical check
sees a face conflict or the model labels either direction *contradicted*, otherwise
the larger of the lexical similarity and the weaker of the two support scores (both
passages must back each other for a paraphrase to count as the same finding). The model
is asked only about passages whose best-aligned sentences talk about the same thing
(content-word cosine of at least 0.5): it is the costly step of a request, and on
unrelated short texts it says "supported" too readily.

:func:`find_conflicts` lists pairs of items whose aligned sentences disagree, with the
kind of disagreement: ``figures`` (different numbers), ``dates`` (different years or
months), ``names`` (a different proper name in the same statement), ``negation``
(negated in one only) or ``model`` (the support model says contradicted).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from assay.errors import InvalidInputError
from assay.models.support import SupportModel, SupportResult
from assay.scoring.corroboration import TextSimilarity, lexical_similarity
from assay.scoring.sentence_cosines import Sentences, shared_cosines
from assay.text import (
    MONTH,
    NEGATION,
    NUMBER,
    SENTENCE_BREAK,
    YEAR,
    content_terms,
    row_subject,
    squash_spaces,
)

__all__ = [
    "SAME_STATEMENT",
    "CachedSupport",
    "Conflict",
    "aligned_sentences",
    "different_rows",
    "face_conflict",
    "find_conflicts",
    "support_similarity",
]

_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z][\w'-]*")
_ALIGNED = 0.5  # content-word cosine at which two sentences talk about the same thing
#: reporting a conflict asks for more: sentences that share most of their words. 0.7
#: separated known conflicts from different statements of one document best on SQuAD 2.0
#: and XQuAD, and held on PolicyQA and COVID-QA (``bench/conflicts.py``)
SAME_STATEMENT = 0.7


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two evidence items whose aligned sentences disagree."""

    first: str  #: evidence id
    second: str
    kind: str  #: figures | dates | names | negation | model
    sentences: tuple[str, str]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (for the audit row and the judge)."""
        return {
            "first": self.first,
            "second": self.second,
            "kind": self.kind,
            "sentences": list(self.sentences),
        }


def _words(sentence: str) -> Counter[str]:
    """Content words without figures or single letters: two statements align on what
    they are about, and a shared "35" or the "C" of "°C" must not make "charge at
    10-35 °C" and "store at -20-35 °C" one statement."""
    return Counter(t for t in content_terms(sentence) if len(t) > 1 and not NUMBER.fullmatch(t))


def aligned_sentences(a: str, b: str, *, differing: bool = False) -> tuple[str, str, float]:
    """The most similar sentence of ``a`` and of ``b`` (content-word cosine, figures left
    out) and that cosine; with ``differing``, the most similar that are not the same
    sentence (two versions of a passage agree on every sentence but the changed one)."""
    first, second = _sentences(a), _sentences(b)
    folded_a, folded_b = (_folded(a), _folded(b)) if differing else ((), ())

    def eligible(i: int, j: int) -> bool:
        return not differing or folded_a[i] != folded_b[j]

    top, best = 0.0, None  # pairs that share no word score 0: the first of them, if no other
    for i, j, score in shared_cosines(first, second):
        if score > top and eligible(i, j):
            top, best = score, (i, j)
    if best is None:
        pairs = ((i, j) for i in range(len(first.texts)) for j in range(len(second.texts)))
        best = next((pair for pair in pairs if eligible(*pair)), None)
        if best is None:
            return ("", "", -1.0)
    return (first.texts[best[0]], second.texts[best[1]], top)


@functools.lru_cache(maxsize=4096)
def _sentences(text: str) -> Sentences:
    """The sentences of ``text`` with their :func:`_words`: a passage is compared with
    many others within one question."""
    sentences = SENTENCE_BREAK.split(text.strip())
    return Sentences.of(sentences, [_words(s) for s in sentences])


@functools.lru_cache(maxsize=4096)
def _folded(text: str) -> tuple[str, ...]:
    """The sentences of ``text``, spaces squashed and case folded: the same sentence in
    two versions of a passage."""
    return tuple(squash_spaces(s).casefold() for s in SENTENCE_BREAK.split(text.strip()))


class CachedSupport:
    """A support model that remembers its verdicts on pairs of passages.

    Corroboration and conflict detection often ask about the same aligned sentences;
    wrapped in this, one request never scores a pair twice. It is itself a
    :class:`~assay.models.support.SupportModel`, so both functions take it unchanged.
    (Scoring every pair of retrieved chunks up front in one batch was measured slower:
    corroboration compares each item with a few finding leaders only.)
    """

    def __init__(self, model: SupportModel) -> None:
        """Wrap ``model``; its name is kept for the audit row."""
        self.model = model
        self.name = model.name
        self._memo: dict[tuple[str, str], SupportResult] = {}

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        """The model's results for ``pairs``, scoring only those not seen before."""
        todo = [p for p in dict.fromkeys(pairs) if p not in self._memo]
        for pair, result in zip(todo, self.model.score(todo) if todo else [], strict=True):
            self._memo[pair] = result
        return [self._memo[p] for p in pairs]


def support_similarity(model: SupportModel) -> TextSimilarity:
    """A corroboration similarity backed by ``model``; see the module docstring."""

    def similarity(a: str, b: str) -> float:
        lexical = lexical_similarity(a, b)
        sa, sb, overlap = aligned_sentences(a, b)
        if overlap >= _ALIGNED and (lexical == 0.0 or face_conflict(sa, sb) is not None):
            return 0.0  # the same statement with different figures, dates, names or a negation
        if overlap < _ALIGNED:
            return lexical  # no sentence pair states the same thing: the model is not asked
        forward, backward = model.score([(sa, b), (sb, a)])
        if "contradicted" in (forward.label, backward.label):
            return 0.0
        return max(lexical, min(forward.score, backward.score))

    similarity.__qualname__ = f"support_similarity[{model.name}]"
    return similarity


def face_conflict(sa: str, sb: str) -> str | None:
    """The kind of disagreement two aligned sentences show on their face, if any."""
    years_a, years_b = set(YEAR.findall(sa)), set(YEAR.findall(sb))
    months_a = {m.lower() for m in MONTH.findall(sa)}
    months_b = {m.lower() for m in MONTH.findall(sb)}
    if (years_a and years_b and years_a != years_b) or (
        months_a and months_b and months_a != months_b
    ):
        return "dates"
    numbers_a = {n.replace(",", "") for n in NUMBER.findall(sa)} - years_a
    numbers_b = {n.replace(",", "") for n in NUMBER.findall(sb)} - years_b
    if numbers_a and numbers_b and numbers_a != numbers_b:
        return "figures"
    if bool(NEGATION.search(sa)) != bool(NEGATION.search(sb)):
        return "negation"
    names_a = set(_NAME.findall(sa)) - set(MONTH.findall(sa))
    names_b = set(_NAME.findall(sb)) - set(MONTH.findall(sb))
    if names_a and names_b and not names_a & names_b:
        return "names"
    return None


def different_rows(sa: str, sb: str) -> bool:
    """Whether two sentences are table rows about different things (their
    :func:`~assay.text.row_subject` differs): "Species Cat: Vaccine: FeLV, ... Price per
    dose: £42.00." and the rabies row share every label and differ in every figure, and
    were read as a conflict over the price."""
    a, b = row_subject(sa), row_subject(sb)
    return a is not None and b is not None and a != b


def find_conflicts(
    items: Sequence[tuple[str, str]],
    model: SupportModel | None = None,
    *,
    same_statement: float = SAME_STATEMENT,
) -> list[Conflict]:
    """Pairs among ``items`` ((id, text) pairs) whose aligned sentences disagree.

    Only the closest sentences that make the same statement (content-word cosine of at
    least ``same_statement``, figures left out) and are not the very same sentence are
    compared. Without a ``model`` every face difference is a conflict. With one, a pair
    is a conflict only if the model labels it contradicted in one direction and not
    supported in the other. (A text cannot contradict a statement it supports: such
    mixed verdicts were the cross-encoder's error on a third of passages set against one
    of their own sentences.) The kind is the face difference if there is one, else
    ``model``.

    The support model does not tell different statements on one subject apart: it
    called "charge between 10 and 35 °C" against "store between -20 and 35 °C at 40-60 %
    charge" (cosine 0.61) contradicted both ways, and so 9% of the aligned paragraph
    pairs of one consistent SQuAD article. The cut of 0.7 keeps those out and loses few
    real conflicts, which restate a sentence with one thing changed (``make
    bench-models``). Sentences that share less, like "charges fine at 70 °C" and "charge
    only between 0 °C and 45 °C", are not compared here: the judge weighs them against
    the claims they concern.
    """
    if not 0.0 < same_statement <= 1.0:
        raise InvalidInputError(
            "same_statement", same_statement, "give a content-word cosine in (0, 1]"
        )
    conflicts = []
    for i, (id_a, a) in enumerate(items):
        for id_b, b in items[i + 1 :]:
            sa, sb, overlap = aligned_sentences(a, b, differing=True)
            if overlap < same_statement or different_rows(sa, sb):
                continue
            kind = face_conflict(sa, sb)
            if model is not None:  # the model confirms (or finds) every conflict
                labels = {r.label for r in model.score([(sa, b), (sb, a)])}
                if "contradicted" not in labels or "supported" in labels:
                    kind = None
                elif kind is None:
                    kind = "model"
            if kind is not None:
                conflicts.append(Conflict(id_a, id_b, kind, (sa, sb)))
    return conflicts
