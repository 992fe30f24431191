"""Corroboration (E10): which admitted items state the same finding, and how many
independent sources stand behind it.

Grouping
    Items are taken in order of confidence (ties by id). Each joins the existing
    finding whose leader (its most confident item) is most similar to it, if that
    similarity reaches ``policy.corroboration.same_finding_similarity``; otherwise
    it leads a new finding. Comparing with leaders only keeps findings from drifting
    through chains of loosely related passages. The similarity function is injected:
    :func:`lexical_similarity` is the offline default; a model-based one can replace it.
    The default compares the passages sentence by sentence and never groups them when
    two sentences about the same thing disagree on their face (different figures, or
    one negated): "charge up to 45 °C" and "charge up to 70 °C" share nearly every word
    but are opposite findings, and must not corroborate each other.

Independence
    Two items are independent only if their sources differ *and* have different
    owners. Sources are keyed by owner, else by source id; unregistered content is
    keyed by its kind, since nothing shows its provenance is independent. Only
    sources whose best item reaches ``min_label`` count.

Aggregate confidence
    With ``c1 >= c2 >= ...`` the best confidence of each counted independent source
    and ``d`` the policy's ``dependence`` in [0, 1], a corroborated finding gets a
    noisy-OR discounted for dependence::

        A = 1 - (1 - c1) * prod_{k>=2} (1 - (1 - d) * c_k)

    ``d = 0`` is the plain noisy-OR of independent witnesses; ``d = 1`` means the
    extra sources add nothing. An isolated finding (fewer independent sources than
    ``min_independent_sources``) keeps the confidence of its best item: no boost.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence

from assay.policy import Policy
from assay.scoring.sentence_cosines import Sentences, shared_cosines
from assay.text import NEGATION, NUMBER, SENTENCE_BREAK, content_terms
from assay.types import Evidence, Finding, FindingStatus, Label, round_score

TextSimilarity = Callable[[str, str], float]
"""A function giving the similarity in [0, 1] of two passages' claims."""

_LABEL_RANK = {Label.LOW: 0, Label.MEDIUM: 1, Label.HIGH: 2}
_ALIGNED = 0.5  # sentences this similar are taken to make the same kind of claim


def _disagree(a: str, b: str) -> bool:
    """Two sentences contradict on their face: different figures, or one negated."""
    numbers_a = {n.replace(",", "") for n in NUMBER.findall(a)}
    numbers_b = {n.replace(",", "") for n in NUMBER.findall(b)}
    if numbers_a and numbers_b and numbers_a != numbers_b:
        return True
    return bool(NEGATION.search(a)) != bool(NEGATION.search(b))


def lexical_similarity(a: str, b: str) -> float:
    """How likely two passages state the same finding, in [0, 1].

    Passages are compared claim by claim: the score is the cosine similarity of the
    content-word counts (stopwords dropped) of their best-matching pair of sentences.
    It is 0 when any pair of sentences that talk about the same thing (cosine of at
    least 0.5) disagrees on its face -- different figures, or a negation ("not",
    "never", "n't", ...) in only one of them: erring that way only withholds a
    corroboration boost, never grants one.
    """
    first, second = _claims(a), _claims(b)
    best = 0.0  # sentences that share no word score 0
    for i, j, score in shared_cosines(first, second):
        if score >= _ALIGNED and _disagree(first.texts[i], second.texts[j]):
            return 0.0
        best = max(best, score)
    return best


@functools.lru_cache(maxsize=1024)
def _claims(text: str) -> Sentences:
    """The sentences of ``text`` with their content-word counts: a passage is compared
    with every finding's leader, each of its sentences with each of theirs."""
    sentences = SENTENCE_BREAK.split(text.strip())
    return Sentences.of(sentences, [Counter(content_terms(s)) for s in sentences])


def aggregate_confidence(confidences: Sequence[float], dependence: float) -> float:
    """Noisy-OR of per-source confidences discounted for dependence (see module doc)."""
    if not confidences:
        return 0.0
    ordered = sorted(confidences, reverse=True)
    miss = 1.0 - ordered[0]
    for c in ordered[1:]:
        miss *= 1.0 - (1.0 - dependence) * c
    return round_score(1.0 - miss)


def independence_key(item: Evidence) -> str:
    """Items with equal keys are not independent of each other."""
    basis = item.basis
    if basis.owner:
        return f"owner:{basis.owner}"
    if basis.source_id:
        return f"source:{basis.source_id}"
    return f"kind:{basis.source_kind}"


def corroborate(
    admitted: Sequence[Evidence],
    policy: Policy,
    similarity: TextSimilarity = lexical_similarity,
) -> list[Finding]:
    """Group admitted evidence into findings and rate each as corroborated or isolated."""
    settings = policy.corroboration
    groups: list[list[Evidence]] = []
    for item in sorted(admitted, key=lambda e: (-e.confidence, e.id)):
        best_group, best_sim = None, settings.same_finding_similarity
        for group in groups:
            sim = similarity(group[0].candidate.text, item.candidate.text)
            if sim >= best_sim:
                best_group, best_sim = group, sim
        if best_group is None:
            groups.append([item])
        else:
            best_group.append(item)

    findings = []
    for number, group in enumerate(groups, start=1):
        per_source: dict[str, float] = {}
        for item in group:
            if _LABEL_RANK[item.label] >= _LABEL_RANK[settings.min_label]:
                key = independence_key(item)
                per_source[key] = max(per_source.get(key, 0.0), item.confidence)
        independent = len(per_source)
        if independent >= settings.min_independent_sources:
            status = FindingStatus.CORROBORATED
            confidence = aggregate_confidence(list(per_source.values()), settings.dependence)
        else:
            status = FindingStatus.ISOLATED
            confidence = group[0].confidence
        leader_text = " ".join(group[0].candidate.text.split())
        findings.append(
            Finding(
                id=f"F{number}",
                status=status,
                evidence_ids=tuple(e.id for e in group),
                source_ids=tuple(
                    dict.fromkeys(e.basis.source_id or e.basis.source_kind for e in group)
                ),
                independent_sources=independent,
                confidence=confidence,
                label=policy.labels.label(confidence),
                summary=leader_text if len(leader_text) <= 160 else leader_text[:157] + "...",
            )
        )
    return findings
