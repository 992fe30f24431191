"""Fit the answer-correctness model (:mod:`assay.answer.correctness`) and write its card.

Labeled answers come from :mod:`assay.training.answer_rows`: each fitting set's
questions are asked of its knowledge base with the gold paragraph (``present``), without
it (``absent``) and, for SQuAD 2.0, unanswerable, under each of ``--policies``, on an
engine whose judge is not rated (``correctness_model = none``). Every drafted answer is
one example: its features, and whether it holds a gold answer.

The fitting set allows commercial use: SQuAD 2.0's validation articles (CC BY-SA 4.0).
SQuAD's train articles are left out because the relevance model learned them (its
scores there are better than anywhere a user will be). PolicyQA dev (MIT) is measured
in the card and not fitted (see the card for why). The held-aside sets (SQuAD test
articles, COVID-QA, PolicyQA test) are measured by ``bench/pipeline.py``.

    python -m assay.training.correctness_train --data DATA --more DATA_MORE --out DIR
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.answer.correctness import CLIP, FEATURES, CorrectnessModel
from assay.metrics import auroc, brier_score, expected_calibration_error
from assay.models.reader import load_reader
from assay.models.relevance import get_relevance_model
from assay.training.answer_rows import (
    AnswerRow,
    ask_rows,
    knowledge_bases,
    load_documents,
    sample_questions,
)

__all__ = ["collect", "fit", "main"]

#: (set, file under --data or --more, split): the set the model is fitted on, and the
#: one it is checked on in its card (never fitted)
FIT_SETS = (("squad", "data", "squad_v2_dev/dev-v2.0.reconstructed.json", "validation"),)
CHECK_SETS = (("policyqa", "more", "policyqa/dev.json", None),)
VERSION = "3.0.0"  # 2: the reader's two features; 3: its read of the first statement
C = 1.0  # inverse L2 strength of the logistic regression


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def collect(
    name: str,
    path: Path,
    split: str | None,
    questions: int,
    policies: Sequence[str],
    **settings: Any,
) -> list[AnswerRow]:
    """Rows of one set, every condition, every policy (see the module docstring)."""
    paragraphs = load_documents(name, path, split)
    asked = sample_questions(paragraphs, questions)
    rows: list[AnswerRow] = []
    with knowledge_bases(paragraphs, **settings) as engines:
        for condition, items in asked.items():
            start = time.perf_counter()
            rows += ask_rows(name, condition, engines[condition], items, policies)
            log(
                f"{name} {condition}: {len(items)} questions in {time.perf_counter() - start:.0f} s"
            )
    return rows


def _matrix(rows: Sequence[AnswerRow]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    usable = [r for r in rows if r.features is not None]
    x = np.array([[r.features[f] for f in FEATURES] for r in usable if r.features], dtype=float)
    return x, np.array([int(r.correct) for r in usable], dtype=np.int64)


def fit(
    rows: Sequence[AnswerRow], relevance_model: str, reader_model: str, version: str = VERSION
) -> CorrectnessModel:
    """A logistic regression on the drafted answers of ``rows``."""
    from sklearn.linear_model import LogisticRegression

    x, y = _matrix(rows)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    head = LogisticRegression(C=C, max_iter=1000).fit(np.clip((x - mean) / scale, -CLIP, CLIP), y)
    return CorrectnessModel(
        "assay-correctness",
        version,
        relevance_model,
        reader_model,
        tuple(round(float(v), 6) for v in mean),
        tuple(round(float(v), 6) for v in scale),
        tuple(round(float(v), 6) for v in head.coef_[0]),
        round(float(head.intercept_[0]), 6),
    )


def measure(model: CorrectnessModel, rows: Sequence[AnswerRow]) -> dict[str, float]:
    """AUROC, Brier and ECE (15 bins) of the model on the drafted answers of ``rows``."""
    usable = [r for r in rows if r.features is not None]
    p = np.array([model.probability(r.features or {}) for r in usable])
    return _figures(np.array([int(r.correct) for r in usable]), p)


def _figures(y: npt.NDArray[np.int64], p: npt.NDArray[np.float64]) -> dict[str, float]:
    """How probabilities ``p`` rate outcomes ``y``: the card's columns."""
    return {
        "answers": len(y),
        "right": round(float(y.mean()), 3),
        "auroc": round(auroc(y, p), 3) if 0 < y.sum() < len(y) else float("nan"),
        "brier": round(brier_score(y, p), 3),
        "ece": round(expected_calibration_error(y, p, n_bins=15), 3),
    }


def cross_validated(rows: Sequence[AnswerRow], folds: int = 5) -> dict[str, float]:
    """:func:`measure`'s figures for out-of-fold probabilities: each fold's answers
    rated by a model fitted on the other folds, whole questions to a fold (a question's
    conditions and policies share its wording)."""
    from sklearn.model_selection import GroupKFold

    usable = [r for r in rows if r.features is not None]
    x, y = _matrix(usable)
    p = np.zeros(len(usable))
    groups = [r.question for r in usable]
    for train, test in GroupKFold(folds).split(x, y, groups):
        model = fit([usable[i] for i in train], "-", "-")
        p[test] = [model.probability(usable[i].features or {}) for i in test]
    return _figures(y, p)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the public datasets folder")
    parser.add_argument("--more", type=Path, required=True, help="the further datasets folder")
    parser.add_argument("--out", type=Path, required=True, help="folder of model.json")
    parser.add_argument("--questions", type=int, default=300, help="per set and condition")
    parser.add_argument("--policies", default="informational,financial")
    parser.add_argument("--relevance-model", default="assay-relevance")
    parser.add_argument("--rows", type=Path, help="folder to keep (and reuse) each set's rows in")
    args = parser.parse_args(argv)
    policies = args.policies.split(",")
    rows = []
    for name, root, file, split in FIT_SETS + CHECK_SETS:
        kept = args.rows / f"{name}.jsonl" if args.rows else None
        if kept is not None and kept.is_file():
            rows += [AnswerRow(**json.loads(line)) for line in kept.read_text().splitlines()]
            continue
        folder = args.data if root == "data" else args.more
        collected = collect(
            name, folder / file, split, args.questions, policies,
            relevance_model=args.relevance_model, correctness_model="none",
        )  # fmt: skip
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in collected))
        rows += collected
    fitted = {name for name, *_ in FIT_SETS}
    relevance = get_relevance_model(args.relevance_model).name  # with its version
    model = fit([r for r in rows if r.dataset in fitted], relevance, load_reader().name)
    checked = {}
    for name, *_ in FIT_SETS:
        kept_out = cross_validated([r for r in rows if r.dataset == name])
        checked[f"{name}, 5 folds by question"] = kept_out
        log(f"{name}, out of fold: {kept_out}")
    for name, *_ in FIT_SETS + CHECK_SETS:
        checked[name] = measure(model, [r for r in rows if r.dataset == name])
        log(f"{name}: {checked[name]}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "model.json").write_text(json.dumps(model.to_dict(), indent=2) + "\n")
    card = _card(model, rows, checked, policies, args.questions)
    (args.out / "MODEL_CARD.md").write_text(card)
    log(f"wrote {args.out / 'model.json'}")
    return 0


def _card(
    model: CorrectnessModel,
    rows: Sequence[AnswerRow],
    checked: dict[str, dict[str, float]],
    policies: Sequence[str],
    questions: int,
) -> str:
    weights = "\n".join(
        f"| {f} | {m:.3f} | {s:.3f} | {c:+.3f} |"
        for f, m, s, c in zip(FEATURES, model.mean, model.scale, model.coef, strict=True)
    )
    held = "\n".join(
        f"| {name} | {v['answers']} | {v['right']:.3f} | {v['auroc']:.3f} | {v['brier']:.3f} "
        f"| {v['ece']:.3f} |"
        for name, v in checked.items()
    )
    fitted = [r for r in rows if r.dataset in {name for name, *_ in FIT_SETS}]
    drafted = sum(r.features is not None for r in fitted)
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    return f"""# Model card: {model.name} {model.version}

Written by `make train-models` (`python -m assay.training.correctness_train`), {when},
about 6 minutes on 2 CPU cores (asking the questions; the fit takes a second). Fitted on
the scores of the relevance model `{model.relevance_model}` and the spans of the reader
`{model.reader_model}`; assay applies it only with those two.

## What it is
P(the drafted answer is right): a logistic regression over {len(FEATURES)} features of
an answer and of the evidence it was drafted from (`assay.answer.correctness.FEATURES`).
An answer counts as right when it holds a gold answer (SQuAD's normalisation). Each
standardised feature is clipped to three standard deviations. In `ask` the J1
`confidence_score` is the lower of this probability and the judge's support score; the
recommended action is the stricter of what the policy's `[judge]` thresholds say of the
support and its `[judge.correctness]` thresholds say of this probability.

## Data
Questions drawn from a seeded half of each set's paragraphs, asked of a knowledge base
with all paragraphs (`present`) and of one without that half (`absent`: on-topic
passages remain, the answer does not); SQuAD 2.0's unanswerable questions of the same
half are asked of `present`. Up to {questions} questions per set and condition, policies
{", ".join(policies)}; {drafted} drafted answers of {len(fitted)} asks, from SQuAD 2.0 dev's
validation articles (CC BY-SA 4.0). SQuAD's train articles are not used: the relevance
model and the reader were fitted on them. PolicyQA (MIT) was tried as a second fitting
set and dropped: its gold spans ("register", "Information we share") make most right
answers count as wrong, and in a trial a model fitted on PolicyQA dev alone ranked
SQuAD's validation answers below chance (AUROC 0.44).

## Figures
Drafted answers; ECE over 15 bins. SQuAD validation is the fitting set: in-sample, and
out of fold (each fifth of its questions rated by a model fitted on the rest, as in the
trial that chose `reader_statement`: 0.680 without it, 0.719 with it); PolicyQA dev was
never fitted. Held-aside sets (SQuAD test articles, COVID-QA, PolicyQA test) are
measured by `make bench-pipeline`.

| set | answers | right | AUROC | Brier | ECE |
|---|---|---|---|---|---|
{held}

## Weights (standardised features)
| feature | mean | scale | coefficient |
|---|---|---|---|
{weights}

Intercept {model.intercept:+.3f}.

## Limits
- It knows only what these features show. An answer the extractive answerer copies
  from the right passage but from the wrong sentence is often judged right; an LLM's
  paraphrase was never in the data.
- "Right" means the gold answer is in the answer; a longer answer holds it more often.
- SQuAD's extractive answers are nearly always fully supported and its passages never
  conflict, so `support` and `conflicts` carry little or no weight here; the judge's
  support still caps the score through the minimum.
- Held-aside figures are far from the goals (AUROC >= 0.80): SQuAD 2.0's unanswerable
  questions, written to look answerable from their paragraph, are rated like answerable
  ones. See docs/benchmarks.md.
- Refit it when the relevance model or the reader changes (`make train-models`); with
  another one (or `ASSAY_READER_MODEL=none`) assay does not apply it and the judge's
  support score stands alone.
"""


if __name__ == "__main__":
    raise SystemExit(main())
