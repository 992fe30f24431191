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

Both lists live in :mod:`assay.text` (the coverage signal counts only the subject's
words too). What remains are the subject's own words (names, things, conditions),
which is what a reader can add documents about, less those the evidence says in
another form ("heating" for "overheats").
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.answer.expected import expected_kind
from assay.text import content_terms, stem, subject_terms

__all__ = ["evidence_gaps", "subject_terms"]

_SHARED_STEM = 4  # the shortest stem that counts as the same word in another form


def _said_otherwise(term: str, said: set[str]) -> bool:
    """Whether the evidence uses the word, or one built on the same stem: "heating" for
    "overheats", "charger" for "charge" (stems of four letters or more, at the start or
    the end of the other word: "plan" inside "implant" is another word; a shorter stem,
    "lat" of "late", counts only as itself)."""
    wanted = stem(term)
    return wanted in said or any(
        min(len(wanted), len(word)) >= _SHARED_STEM and _built_on(wanted, word) for word in said
    )


def _built_on(a: str, b: str) -> bool:
    """Whether the shorter of two words begins or ends the longer."""
    short, long = sorted((a, b), key=len)
    return long.startswith(short) or long.endswith(short)


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
