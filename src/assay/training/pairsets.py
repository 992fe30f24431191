"""Labeled text pairs from many public datasets, in one shape, for cross-dataset work.

A model that meets its figures only on the test split of the set it was fitted to has
learned that set. To count, the relevance and support models are measured on datasets
left out of their fitting (leave one dataset out). This module gives every dataset the
same shape, :class:`LabeledPair`, and says what each one is and whether its licence
allows a shipped model to learn from it (:class:`DatasetInfo`). The loaders live in
:mod:`assay.training.answerability_sets` and :mod:`assay.training.support_sets`.

Labels
    relevance: ``relevant`` / ``irrelevant``; support: ``supported``,
    ``contradicted``, ``unsupported``, or ``not_supported`` where a set does not say
    which of the last two (a binary consistency label).

Groups
    ``group`` is the unit a split must not cut (an article, a policy, a contract, a
    dialogue): :func:`in_test_split` assigns whole groups to a held-out part by a hash,
    so the same group is held out in every run without a stored list.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from assay.errors import InvalidInputError

__all__ = [
    "RELEVANCE_LABELS",
    "SENTENCE",
    "SUPPORT_LABELS",
    "DatasetInfo",
    "LabeledPair",
    "cap",
    "dedupe_against",
    "in_test_split",
    "normalized",
    "registry",
]

Task = Literal["relevance", "support"]
#: a sentence break: after . ! or ?, before a capital, a digit, a quote or a bracket
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
RELEVANCE_LABELS = ("relevant", "irrelevant")
SUPPORT_LABELS = ("supported", "contradicted", "unsupported", "not_supported")


@dataclass(frozen=True, slots=True)
class LabeledPair:
    """One (question, passage) or (claim, evidence) pair with its gold label.

    ``answer`` is the gold answer text where the set has one (for the answer-string
    baseline); ``kind`` names how the pair was made (``own``, ``hard_negative``,
    ``answer_swap``...) so a report can break a set down; ``target``, where set, is the
    P(relevant) a student is trained towards instead of the gold label's 0 or 1 (a soft
    target taught by the local LLM: :mod:`assay.training.distill`).
    """

    dataset: str
    task: Task
    first: str
    second: str
    label: str
    group: str
    answer: str = ""
    kind: str = "own"
    target: float | None = None

    @property
    def positive(self) -> bool:
        """Relevant, or supported: the class a score should rank first."""
        return self.label in ("relevant", "supported")


@dataclass(frozen=True, slots=True)
class DatasetInfo:
    """What a dataset is, and whether a model assay ships may be trained on it."""

    name: str
    task: Task
    domain: str
    licence: str
    commercial: bool  #: False: for measuring only (non-commercial or research-only)
    loader: Callable[[Path, Path], list[LabeledPair]]
    description: str


def normalized(text: str) -> str:
    """Lower-case words only, for finding the same passage in two datasets."""
    return " ".join(re.findall(r"\w+", text.lower()))


def in_test_split(dataset: str, group: str, percent: int = 20) -> bool:
    """Whether ``group`` of ``dataset`` is held out: a stable hash, ``percent`` of groups."""
    digest = hashlib.sha256(f"{dataset}\x00{group}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < percent


def cap(pairs: Sequence[LabeledPair], limit: int, *, seed: int = 13) -> list[LabeledPair]:
    """At most ``limit`` pairs, drawn group by group in a seeded order (all if fewer).

    Drawing whole groups keeps each question's positives and negatives together, so
    AUROC within a set compares like with like; the last group drawn is sampled to fit.
    """
    if limit < 1:
        raise InvalidInputError("limit", limit, "use a positive number of pairs")
    if len(pairs) <= limit:
        return list(pairs)
    by_group: dict[str, list[LabeledPair]] = {}
    for pair in pairs:
        by_group.setdefault(pair.group, []).append(pair)
    order = sorted(by_group)
    rng = random.Random(seed)
    rng.shuffle(order)
    out: list[LabeledPair] = []
    for group in order:
        members = by_group[group]
        room = limit - len(out)
        out.extend(members if len(members) <= room else rng.sample(members, room))
        if len(out) >= limit:
            break
    return out


def dedupe_against(
    train: Iterable[LabeledPair], held_out: Iterable[LabeledPair]
) -> list[LabeledPair]:
    """``train`` without any pair whose passage or claim also occurs in ``held_out``.

    XQuAD's paragraphs are SQuAD v1.1 dev paragraphs, most of them verbatim in SQuAD
    2.0 dev; ANLI and BoolQ draw on Wikipedia too. A left-out set is only left out if
    none of its texts was seen in fitting.
    """
    seen = set()
    for pair in held_out:
        seen.add(normalized(pair.first))
        seen.add(normalized(pair.second))
    return [
        p for p in train if normalized(p.second) not in seen and normalized(p.first) not in seen
    ]


def registry(
    task: Task,
    entries: Iterable[tuple[str, str, str, bool, Callable[[Path, Path], list[LabeledPair]], str]],
) -> dict[str, DatasetInfo]:
    """Datasets of one task by name, from (name, domain, licence, commercial, loader,
    description) rows."""
    return {row[0]: DatasetInfo(row[0], task, *row[1:]) for row in entries}
