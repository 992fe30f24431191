"""Soft relevance targets from the teacher, for the students (issue 42).

The teacher (:mod:`assay.training.teach`, the local LLM) ranks better than the shipped
students on some sets and worse on others (``bench/teacher.py``). A student learns from
it only where it ranks better, :data:`TEACH_FROM`: users' documents (the fitting suite's
questions against their nearest chunks: 0.846 against 0.748 for ``assay-relevance``),
SQuAD 2.0 questions against their own paragraph (0.834 against 0.798 for the
cross-encoder) and the qualifier swaps of the sets in the mix. There a pair's target is
the gold label and the teacher's P(yes) mixed, ``(1 - w) * gold + w * teacher`` with
``w`` = :data:`TEACHER_WEIGHT`: the gold label keeps half the weight (people wrote it
for the question), the teacher's belief softens it where the pair is ambiguous, and a
wrong string-match label (the fitting suite's gold is an answer found in the chunk) is
pulled towards what the chunk says. Elsewhere the gold label alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from assay.training.pairsets import LabeledPair
from assay.training.resumable import read_rows
from assay.training.teach import pair_id

__all__ = ["TEACHER_LABELS", "TEACHER_WEIGHT", "TEACH_FROM", "beliefs", "with_targets"]

#: where the teacher's labels are kept (the repository's labels/)
TEACHER_LABELS = Path(__file__).resolve().parents[3] / "labels" / "teacher-relevance"
#: the sets where the teacher ranks better than the student it would teach
TEACH_FROM = frozenset({"ordinary_fit", "squad_v2", "swap:squad_v2", "swap:covid_qa"})
#: the teacher's share of a soft target
TEACHER_WEIGHT = 0.5


def beliefs(labels: Path = TEACHER_LABELS) -> dict[str, float]:
    """The teacher's P(yes) by pair id (:func:`~assay.training.teach.pair_id`)."""
    return {str(row["id"]): float(row["teacher"]) for row in read_rows(labels / "labels.jsonl")}


def with_targets(
    pairs: Sequence[LabeledPair], belief: Mapping[str, float], weight: float = TEACHER_WEIGHT
) -> list[LabeledPair]:
    """``pairs``, each relevance pair of a :data:`TEACH_FROM` set that the teacher
    labelled given its soft target (module docstring); the rest as they are."""
    out = []
    for pair in pairs:
        p_yes = belief.get(pair_id(pair))
        if pair.task != "relevance" or pair.dataset not in TEACH_FROM or p_yes is None:
            out.append(pair)
            continue
        target = (1.0 - weight) * float(pair.positive) + weight * p_yes
        out.append(replace(pair, target=round(target, 4)))
    return out
