"""Sentence alignment scored only where sentences share a word gives what scoring every
pair gave (E10 corroboration, J1 conflicts): the same pair, the same float."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.scoring.agreement import _words, aligned_sentences
from assay.scoring.corroboration import _disagree, lexical_similarity
from assay.scoring.sentence_cosines import Sentences, shared_cosines
from assay.text import SENTENCE_BREAK, content_terms, squash_spaces, term_cosine

WORDS = ["battery", "charge", "Charge", "45", "60", "degrees", "not", "store", "the", "cool"]
sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=6).map(
    lambda words: " ".join(words) + "."
)
passage = st.lists(sentence, min_size=1, max_size=5).map(" ".join)


def every_pair_aligned(a: str, b: str, differing: bool) -> tuple[str, str, float]:
    """aligned_sentences as it was written first: every sentence pair scored."""
    best = ("", "", -1.0)
    for sa in SENTENCE_BREAK.split(a.strip()):
        for sb in SENTENCE_BREAK.split(b.strip()):
            if differing and squash_spaces(sa).casefold() == squash_spaces(sb).casefold():
                continue
            score = term_cosine(_words(sa), _words(sb))
            if score > best[2]:
                best = (sa, sb, score)
    return best


def every_pair_similarity(a: str, b: str) -> float:
    """lexical_similarity as it was written first: every sentence pair scored."""
    best = 0.0
    for sa in SENTENCE_BREAK.split(a.strip()):
        for sb in SENTENCE_BREAK.split(b.strip()):
            score = term_cosine(Counter(content_terms(sa)), Counter(content_terms(sb)))
            if score >= 0.5 and _disagree(sa, sb):
                return 0.0
            best = max(best, score)
    return best


@settings(max_examples=300, deadline=None)
@given(passage, passage, st.booleans())
def test_e10_alignment_scores_only_shared_words_and_finds_the_same_pair(
    a: str, b: str, differing: bool
) -> None:
    assert aligned_sentences(a, b, differing=differing) == every_pair_aligned(a, b, differing)
    assert lexical_similarity(a, b) == every_pair_similarity(a, b)


@settings(max_examples=200, deadline=None)
@given(st.lists(sentence, min_size=1, max_size=4), st.lists(sentence, min_size=1, max_size=4))
def test_shared_cosines_are_term_cosines_of_the_pairs_that_meet(
    first: list[str], second: list[str]
) -> None:
    a = Sentences.of(first, [Counter(content_terms(s)) for s in first])
    b = Sentences.of(second, [Counter(content_terms(s)) for s in second])
    found = {(i, j): score for i, j, score in shared_cosines(a, b)}
    for i, terms in enumerate(a.counts):
        for j, other in enumerate(b.counts):
            assert found.get((i, j), 0.0) == term_cosine(terms, other)
    assert list(found) == sorted(found)
