"""What the evidence lacks, in words a reader accepts.

The coverage signal (R3) counts the question's content words that the admitted evidence
does not use. That count is right for a score, but read out as a reason it gives
nonsense: "the evidence does not mention 'long'" for "How long does a full charge
take?", or "'safe'" for "What temperature is safe?", when the passage states "3 hours"
and "0-45 °C". Two kinds of word frame a question rather than say what it is about:

* the words that ask for a type of answer ("how long", "what year", "how many",
  "what temperature"): what is missing there is the answer itself, so the gap is said
  as the type ("a duration or length") and only when no evidence holds one
  (:mod:`assay.answer.expected`);
* words that judge or qualify what is asked ("safe", "normal", "recommended", "take",
  "happen"): the evidence answers with facts, not with the question's wording.

What remains are the subject's own words (names, things, conditions), which is what a
reader can add documents about, less those the evidence says in another form
("heating" for "overheats").
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.answer.expected import expected_kind
from assay.text import content_terms, stem

__all__ = ["evidence_gaps", "subject_terms"]

#: words that ask for a type of answer: "how long", "what year", "what temperature"
_ANSWER_TYPE_WORDS = frozenset(
    """
    long old year years date dates day days month months time times century decade
    temperature temperatures hot cold warm price prices cost costs fee fees
    far tall high big large wide deep heavy often fast percentage percent number amount
    size proportion quantity kind type sort
    """.split()
)
#: words that judge or qualify what is asked rather than name it
_QUALIFYING_WORDS = frozenset(
    """
    safe safely unsafe possible allowed permitted ok okay fine good bad best better worse
    worst recommended advisable normal typical usual usually right correct proper
    properly needed required necessary enough main important exactly actually really
    take takes taken happen happens happened mean means work works use used using need
    needs want make makes made way ways
    """.split()
)
_FRAME = frozenset(stem(w) for w in _ANSWER_TYPE_WORDS | _QUALIFYING_WORDS)
_SHARED_STEM = 4  # the shortest stem that counts as the same word in another form


def subject_terms(terms: Sequence[str]) -> list[str]:
    """``terms`` without the words that frame a question (see the module docstring)."""
    return [t for t in terms if stem(t) not in _FRAME]


def _said_otherwise(term: str, said: set[str]) -> bool:
    """Whether the evidence uses a word built on the same stem: "heating" for
    "overheats", "charger" for "charge" (stems of four letters or more)."""
    wanted = stem(term)
    return any(
        min(len(wanted), len(word)) >= _SHARED_STEM and (wanted in word or word in wanted)
        for word in said
    )


def evidence_gaps(question: str, missing_terms: Sequence[str], texts: Sequence[str]) -> list[str]:
    """What the evidence ``texts`` lack for ``question``, each ready to follow "no" or
    "does not mention": the missing subject terms quoted (unless the evidence says them
    in another form), then the type of answer the question asks for when no text holds
    one ("a duration or length")."""
    said = {stem(t) for text in texts for t in content_terms(text)}
    gaps = [f"'{t}'" for t in subject_terms(missing_terms) if not _said_otherwise(t, said)]
    kind = expected_kind(question)
    if kind is not None and not any(kind.found_in(text) for text in texts):
        gaps.append(f"a {kind.description}")
    return gaps
