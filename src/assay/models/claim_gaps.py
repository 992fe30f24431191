"""What a claim states that its evidence does not: cheap lexical checks for support.

A cross-encoder reads a claim and its evidence together, but a small one learns the
sets it was trained on: on passages whose answer was swapped for another name, figure
or date it still calls the claim supported about a quarter of the time, and on news
summaries with an invented entity it does no better than chance. Those errors leave a
plain trace in the text: a figure, a name or a rare word of the claim that the evidence
never states, or a negation on one side only. :func:`claim_gaps` measures such traces
so that :mod:`assay.models.support_stack` can weigh them beside the cross-encoder.

Every check is deterministic and needs no model: words are folded and stemmed as in
lexical search (:func:`assay.text.lexical_terms`), figures compared without their
thousands separators ("1,200" is "1200"), and a name is a capitalised word that does not
start a sentence. A claim may be a question followed by its answer (as the judge and the
HaluEval data write them); only the answer is checked.
"""

from __future__ import annotations

import math
import re

import numpy as np
import numpy.typing as npt

from assay.text import NAME, SENTENCE_BREAK, figures, is_stopword, lexical_terms

__all__ = ["GAP_FEATURES", "claim_gaps", "statement"]

GAP_FEATURES: tuple[str, ...] = (
    "missing_share",  # share of the claim's terms the evidence never uses
    "missing_terms",  # how many
    "missing_numbers",  # figures of the claim the evidence does not state
    "any_missing_number",
    "missing_names",  # capitalised names of the claim the evidence does not state
    "any_missing_name",
    "negation_mismatch",  # the claim and the evidence's closest sentence differ in negation
    "negation_difference",  # by how many negations
    "missing_share_best_sentence",  # share of the claim's terms its closest sentence lacks
    "log_claim_terms",  # log(1 + the claim's term count)
    "word_overlap",  # share of the claim's words (unstemmed) found in the evidence
)

# wider than assay.text.NEGATION: fact-checking claims are negated with these too
_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|without|neither|nor|none|nothing|fail(?:s|ed)?)\b|n't\b", re.I
)
_WORD = re.compile(r"\w+")
_LEADING_QUESTION = re.compile(r".*\?\s+(?=\S)", re.DOTALL)


def statement(claim: str) -> str:
    """What ``claim`` states: the text after a leading question, if any ("Who wrote it?
    Jane Austen" states "Jane Austen"); a question's own words state nothing."""
    match = _LEADING_QUESTION.match(claim)
    return claim[match.end() :] if match else claim


def claim_gaps(claim: str, evidence: str) -> npt.NDArray[np.float64]:
    """The :data:`GAP_FEATURES` of ``claim`` (its :func:`statement`) against ``evidence``."""
    claim = statement(claim)
    claim_terms = lexical_terms(claim)
    sentences = [s for s in SENTENCE_BREAK.split(evidence) if s.strip()] or [evidence]
    sentence_terms = [set(lexical_terms(s)) for s in sentences]
    # terms never span a sentence break (a run of white space), so their union is the
    # evidence's: the text is stemmed once
    evidence_terms = set().union(*sentence_terms)
    missing = [t for t in claim_terms if t not in evidence_terms]
    lowered = evidence.casefold()
    missing_numbers = len(figures(claim) - figures(evidence))
    missing_names = sum(name.casefold() not in lowered for name in set(NAME.findall(claim)))
    wanted = set(claim_terms)
    best = max(range(len(sentences)), key=lambda i: len(wanted & sentence_terms[i]))
    negations = len(_NEGATION.findall(claim)) - len(_NEGATION.findall(sentences[best]))
    words = {w for w in _WORD.findall(claim.casefold()) if not is_stopword(w)}
    evidence_words = set(_WORD.findall(lowered))
    return np.array(
        [
            len(missing) / max(1, len(claim_terms)),
            float(len(missing)),
            float(missing_numbers),
            float(missing_numbers > 0),
            float(missing_names),
            float(missing_names > 0),
            float(negations != 0),
            float(abs(negations)),
            len(wanted - sentence_terms[best]) / max(1, len(wanted)),
            math.log1p(len(claim_terms)),
            len(words & evidence_words) / max(1, len(words)),
        ],
        dtype=np.float64,
    )
