"""Scores of a labeled set as assay produces them: what maps are fitted on and checked by.

For each target the scores come from the same code that serves requests:

* ``answer``: the judge's ``confidence_score``. An example with contexts and an answer is
  judged as given; one with a recorded raw ``score`` (a review verdict) keeps it (mapped
  like a fresh one when the engine calibrates); one that
  asks the knowledge base (``contexts: "kb"``) goes through ``Assay.ask``, and its
  answer is correct when the question is answerable and the answer holds a gold answer
  (SQuAD's normalisation: lowercase, no punctuation, no articles). A question the
  pipeline drafted no answer for scores 0.0 and counts as not judged.
* ``set``: the set confidence of ``Assay.assess``; the label says the question is
  answerable.
* ``evidence``: every retrieved item's confidence; an item is relevant when its question
  is answerable and its text holds a gold answer.

Nothing is written to the audit log (``record=False``): this is evaluation, not serving.
Scores are calibrated when the engine is (``Assay(calibrate=True)``, the default), so
the same function measures a map; fit maps on an engine opened with ``calibrate=False``.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import numpy.typing as npt

from assay.answer.citations import strip_citations
from assay.answer.correctness import rated_by
from assay.calibration.apply import answer_key, evidence_key, set_key
from assay.calibration.labels import LabeledExample
from assay.calibration.store import TARGETS
from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.policy import Policy

__all__ = ["TARGETS", "ScoredSet", "contains_gold", "normalize_answer", "score_examples"]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
_DASH = re.compile(r"[\-\u2010-\u2015\u2212]")  # hyphens, dashes, minus


def normalize_answer(text: str) -> str:
    """SQuAD's answer normalisation: lowercase, no punctuation or articles, single spaces."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def contains_gold(text: str, gold: Sequence[str]) -> bool:
    """Whether ``text`` holds one of the ``gold`` answers, both normalised, a dash read
    as a space: a range states its ends ("08:00-20:00" holds "20:00", "2.0-3.5 bar"
    "3.5 bar"), which SQuAD's normalisation, dropping the dash, glues into one number."""
    said = f" {normalize_answer(_DASH.sub(' ', text))} "
    return any(g and f" {g} " in said for g in (normalize_answer(_DASH.sub(" ", a)) for a in gold))


@dataclass(frozen=True)
class ScoredSet:
    """Scores and 0/1 outcomes of one labeled set for one target, aligned."""

    target: str
    model_key: str
    scores: npt.NDArray[np.float64]
    labels: npt.NDArray[np.int64]  #: 1 = correct / answerable / relevant
    #: answer target: the pipeline drafted an answer and the judge scored it (whether the
    #: policy then gave it or withheld it: a new threshold decides that)
    judged: npt.NDArray[np.bool_]
    categories: list[str | None] = field(default_factory=list)
    skipped: int = 0  #: examples this target cannot use (e.g. a given answer for ``set``)

    def fitting(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
        """The (score, label) pairs a map is fitted on: judged ones only."""
        return self.scores[self.judged], self.labels[self.judged]


def score_examples(
    engine: Assay,
    examples: Sequence[LabeledExample],
    target: str,
    *,
    policy: str | None = None,
    as_of: date | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ScoredSet:
    """Score ``examples`` for ``target`` with ``engine`` (see the module docstring)."""
    if target not in TARGETS:
        raise InvalidInputError("target", target, f"use one of: {', '.join(TARGETS)}")
    if not examples:
        raise InvalidInputError("labels", [], "give at least one labeled example")
    chosen = engine.policies.resolve(name=policy or engine.settings.default_policy)
    model = engine.relevance_for(chosen)
    relevance = model.name if model else None
    support = engine.support.name if engine.support else None
    scores: list[float] = []
    labels: list[int] = []
    answered: list[bool] = []
    categories: list[str | None] = []
    judges: Counter[str | None] = Counter()  # who read each set's judgment
    keys: Counter[str] = Counter()
    skipped = 0
    for i, example in enumerate(examples):
        if progress is not None:
            progress(i, len(examples))
        if target == "answer":
            score, label, was_answered, key = _answer(engine, example, chosen, as_of)
            outcomes = [(score, label, was_answered)]
            keys[key] += 1
        elif example.contexts is not None:
            skipped += 1
            continue
        elif target == "set":
            result = engine.assess(example.query, policy=chosen.name, as_of=as_of, record=False)
            outcomes = [(result.signals.composite, example.label, True)]
            judges[result.judged_by] += 1
        else:
            result = engine.assess(example.query, policy=chosen.name, as_of=as_of, record=False)
            outcomes = [
                (
                    e.confidence,
                    int(example.label == 1 and contains_gold(e.candidate.text, example.gold)),
                    True,
                )
                for e in result.scored.evidence
            ]
        for score, label, was_answered in outcomes:
            scores.append(score)
            labels.append(label)
            answered.append(was_answered)
            categories.append(example.category)
    if not scores:
        raise InvalidInputError(
            "labels", f"{len(examples)} examples", f"give examples that ask the knowledge base "
            f'("contexts": "kb") for the {target} target', problem="hold none this target can use",
        )  # fmt: skip
    if target == "set":  # the reader of most questions (an endpoint may fail on some)
        judged_by = judges.most_common(1)[0][0]
        model_key = set_key(chosen, engine.embedder.name, relevance, support, judged_by)
    elif target == "evidence":
        model_key = evidence_key(chosen, engine.embedder.name, relevance)
    else:
        model_key = keys.most_common(1)[0][0]
    return ScoredSet(
        target,
        model_key,
        np.asarray(scores, dtype=np.float64),
        np.asarray(labels, dtype=np.int64),
        np.asarray(answered, dtype=bool),
        categories,
        skipped,
    )


def _answer(
    engine: Assay, example: LabeledExample, policy: Policy, as_of: date | None
) -> tuple[float, int, bool, str]:
    """(score, correct, answered, model key) of one answer-target example."""
    judge = engine.judge
    if example.score is not None:  # a raw score recorded at the time (a review verdict)
        rater = engine.correctness_for(policy)  # it rated the answers people reviewed
        key = answer_key(judge.name if rater is None else rated_by(judge.name, rater), None)
        calibrated = engine.calibrator and engine.calibrator.calibrate("answer", key, example.score)
        score = calibrated.value if calibrated else example.score
        return score, example.label, True, key
    thresholds = policy.judge.thresholds
    if example.contexts is not None:
        judgment = judge.judge(example.query, example.answer or "", example.contexts, thresholds)
        if engine.calibrator is not None:
            judgment = engine.calibrator.judgment(judgment, thresholds)
        key = answer_key(judgment.judge, judgment.prompt_version)
        return judgment.assessment.confidence_score, example.label, True, key
    response = engine.ask(example.query, policy=policy.name, as_of=as_of, record=False)
    if response.judgment is None or response.draft is None:
        return 0.0, 0, False, answer_key(judge.name, None)
    answer = strip_citations(response.draft.text)
    correct = int(example.label == 1 and contains_gold(answer, example.gold))
    key = answer_key(response.judgment.judge, response.judgment.prompt_version)
    return response.judgment.assessment.confidence_score, correct, True, key
