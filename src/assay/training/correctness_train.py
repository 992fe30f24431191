"""Fit the answer-correctness model (:mod:`assay.answer.correctness`) and write its card.

Labeled answers come from :mod:`assay.training.answer_rows`: each fitting set's
questions are asked of its knowledge base with the gold paragraph (``present``), without
it (``absent``) and, for SQuAD 2.0, unanswerable, under each of ``--policies``, on an
engine whose judge is not rated (``correctness_model = none``). Every drafted answer is
one example: its features, and whether it holds a gold answer.

The fitting sets allow commercial use: SQuAD 2.0's validation articles (CC BY-SA 4.0)
and TAT-QA dev (CC BY 4.0; each annual report its own knowledge base), each weighing the
same in the fit. SQuAD's train articles are left out because the relevance model
learned them (its scores there are better than anywhere a user will be). PolicyQA dev
(MIT) is measured in the card and not fitted (see the card for why). The card also
rates each fitting set by a model fitted without it. The held-aside sets (SQuAD test
articles, XQuAD, COVID-QA, PolicyQA test, TAT-QA test) are measured by
``bench/pipeline.py``.

With ``--llm`` the model of :data:`~assay.answer.correctness.LLM_FEATURES`,
``assay-correctness-llm``, is fitted instead: each drafted answer's cited passage is
also read by the chat model at ``ASSAY_LLM_URL`` (``make llm`` serves the local one).
PolicyQA dev is then not asked (a request per answer); ``make bench-pipeline-llm``
measures the held-aside sets. That run asks for hours on 2 cores, so with ``--rows`` each
answer is kept as it comes (:class:`~assay.training.answer_rows.Journal`): a stopped run
started again with the same ``--rows`` goes on where it stopped. The rows hold one
relevance model's scores: give each relevance model its own ``--rows`` folder.

    python -m assay.training.correctness_train --data DATA --more DATA_MORE --out DIR \
        [--llm] [--rows FOLDER]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.answer.correctness import (
    CLIP,
    FEATURES,
    LLM_FEATURE,
    LLM_FEATURES,
    LLM_STATEMENT,
    CorrectnessModel,
    statement_belief,
)
from assay.metrics import auroc, brier_score, expected_calibration_error
from assay.models.answerability import LLMAnswerability
from assay.models.llm import required_client
from assay.models.reader import load_reader
from assay.models.relevance import get_relevance_model
from assay.settings import LLMSettings, load_llm_settings
from assay.training.answer_rows import (
    AnswerRow,
    Journal,
    ask_rows,
    each_knowledge_base,
    journal_path,
    kept_path,
    kept_rows,
    load_documents,
    write_rows,
)
from assay.training.ordinary_kbs import FIT_SUITE, answer_rows

__all__ = ["collect", "fit", "main", "matrix", "per_set_weights"]

#: (set, file under --data or --more, split): the set the model is fitted on, and the
#: one it is checked on in its card (never fitted)
FIT_SETS = (
    ("squad", "data", "squad_v2_dev/dev-v2.0.reconstructed.json", "validation"),
    ("tatqa", "more", "tatqa/tatqa_dataset_dev.json", None),
)
CHECK_SETS = (("policyqa", "more", "policyqa/dev.json", None),)
#: the knowledge bases written as users write them (labels/ordinary-fit), fitted too
ORDINARY_FIT = "ordinary-fit"
# 2: the reader's two features; 3: its read of the first statement; 4: TAT-QA; 5: the
# ordinary documents for fitting; 6: features among passages of the cited source's
# standing, statement_coverage, and the judge's conflicts without false ones; 7: on
# assay-relevance 1.1.0 (a question's own figures) and this answerer's drafts
VERSION = "7.0.0"
#: of assay-correctness-llm; 2: TAT-QA dev too; 3: the ordinary documents for fitting;
#: 4: the chat model's reading of the answer's first statement; 5: as 7.0.0 of the other
LLM_VERSION = "5.0.0"
C = 1.0  # inverse L2 strength of the logistic regression
#: features that can only speak for an answer: the judge's support, the relevance of
#: what it cites and of its own text, a reader's or the chat model's belief that the
#: cited passage or the answer states the answer, the share of the question it holds. A
#: negative weight on one is a correlation among the features, not what it means
#: (assay-correctness 6.1.0 weighed the support at -0.10, -llm 4.1.0 at -0.45: a judge
#: that found nothing missing lowered the answer's probability), so a fit that gives one
#: leaves it out (weight 0) and fits again. The best passage's relevance and belief may
#: weigh against: a better passage than the one cited is a sign of the wrong one quoted
FOR_THE_ANSWER = frozenset(
    {
        "cited_relevance", "answer_relevance", "support", "reader_cited",
        "reader_statement", "statement_coverage", LLM_FEATURE, LLM_STATEMENT,
    }
)  # fmt: skip
#: a feature that departs from its usual value on fewer fitted answers than this carries
#: no weight: one answer cannot say what it means, and standardised by its tiny spread it
#: would move every later answer that has it by the clip's full weight
MIN_VARIED = 20


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def collect(
    name: str,
    path: Path,
    split: str | None,
    questions: int,
    policies: Sequence[str],
    answerability: LLMAnswerability | None = None,
    journal: Journal | None = None,
    **settings: Any,
) -> list[AnswerRow]:
    """Rows of one set, every condition, every policy (see the module docstring); those
    a stopped run kept in ``journal`` are taken back (see
    :func:`~assay.training.answer_rows.ask_rows`)."""
    paragraphs = load_documents(name, path, split)
    rows: list[AnswerRow] = []
    start = time.perf_counter()
    for engines, asked in each_knowledge_base(name, paragraphs, questions, **settings):
        for condition, items in asked.items():
            rows += ask_rows(
                name, condition, engines[condition], items, policies,
                answerability=answerability, journal=journal,
            )  # fmt: skip
    log(f"{name}: {len(rows)} answers in {time.perf_counter() - start:.0f} s")
    return rows


def matrix(
    rows: Sequence[AnswerRow], features: Sequence[str] = FEATURES
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Features (in ``features`` order) and outcomes of the drafted answers of ``rows``."""
    usable = [r for r in rows if r.features is not None]
    x = np.array([[r.features[f] for f in features] for r in usable if r.features], dtype=float)
    return x, np.array([int(r.correct) for r in usable], dtype=np.int64)


def fit(
    rows: Sequence[AnswerRow],
    relevance_model: str,
    reader_model: str,
    version: str = VERSION,
    answerability: str | None = None,
) -> CorrectnessModel:
    """A logistic regression on the drafted answers of ``rows``, every set weighing the
    same (:func:`per_set_weights`, standardisation included): over
    :data:`~assay.answer.correctness.LLM_FEATURES` when ``answerability`` names the chat
    model's beliefs they hold, else over :data:`~assay.answer.correctness.FEATURES`."""
    from sklearn.linear_model import LogisticRegression

    features = LLM_FEATURES if answerability else FEATURES
    x, y = matrix(rows, features)
    weights = per_set_weights(rows)
    x[:, ~varied(x)] = 0.0  # mean 0 and scale 1 below, so its coefficient is 0
    mean = np.average(x, axis=0, weights=weights)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=weights))
    scale[scale < 1e-6] = 1.0
    z = np.clip((x - mean) / scale, -CLIP, CLIP)
    while True:
        head = LogisticRegression(C=C, max_iter=1000).fit(z, y, sample_weight=weights)
        wrong_way = [
            i for i, f in enumerate(features) if f in FOR_THE_ANSWER and head.coef_[0][i] < 0
        ]
        if not wrong_way:
            break
        z[:, wrong_way] = 0.0  # left out: its coefficient is 0 in the next fit
    return CorrectnessModel(
        "assay-correctness-llm" if answerability else "assay-correctness",
        version,
        relevance_model,
        reader_model,
        tuple(round(float(v), 6) for v in mean),
        tuple(round(float(v), 6) for v in scale),
        tuple(round(float(v), 6) for v in head.coef_[0]),
        round(float(head.intercept_[0]), 6),
        features,
        answerability,
    )


def varied(x: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Per column of ``x``: whether at least :data:`MIN_VARIED` rows depart from its
    median."""
    departed: npt.NDArray[np.int64] = (np.abs(x - np.median(x, axis=0)) > 1e-9).sum(axis=0)
    return departed >= MIN_VARIED


def read_statements(
    rows: list[AnswerRow], answerability: LLMAnswerability | None, keep: Path | None
) -> list[AnswerRow]:
    """``rows`` with the chat model's belief about each drafted answer's first statement
    (:data:`~assay.answer.correctness.LLM_STATEMENT`) where they lack it: rows kept
    before it was a feature get it from their question and quoted answer, as
    :func:`~assay.answer.correctness.features_of` reads them. Kept again in ``keep``
    every 100 answers, so that a stopped run goes on where it was."""
    if answerability is None:
        return rows
    missing = [r for r in rows if r.features is not None and LLM_STATEMENT not in r.features]
    for done, row in enumerate(missing, 1):
        assert row.features is not None
        row.features[LLM_STATEMENT] = statement_belief(answerability, row.question, row.answer)
        if keep is not None and (done % 100 == 0 or done == len(missing)):
            write_rows(keep, rows)
            log(f"{keep.name}: {done} of {len(missing)} statements read")
    return rows


def per_set_weights(rows: Sequence[AnswerRow]) -> npt.NDArray[np.float64]:
    """Weights of the drafted answers of ``rows`` (as :func:`matrix` orders them) that
    give every set the same total: a set of fewer answers counts as much as a larger one,
    so that no one kind of document sets the model's base rate. Their mean is 1."""
    sets = [r.dataset for r in rows if r.features is not None]
    counts = {name: sets.count(name) for name in set(sets)}
    return np.array([len(sets) / (len(counts) * counts[name]) for name in sets])


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


def cross_validated(
    rows: Sequence[AnswerRow], folds: int = 5, answerability: str | None = None
) -> dict[str, float]:
    """:func:`measure`'s figures for out-of-fold probabilities: each fold's answers
    rated by a model fitted on the other folds, whole questions to a fold (a question's
    conditions and policies share its wording)."""
    from sklearn.model_selection import GroupKFold

    usable = [r for r in rows if r.features is not None]
    x, y = matrix(usable, LLM_FEATURES if answerability else FEATURES)
    p = np.zeros(len(usable))
    groups = [r.question for r in usable]
    for train, test in GroupKFold(folds).split(x, y, groups):
        model = fit([usable[i] for i in train], "-", "-", answerability=answerability)
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
    parser.add_argument(
        "--ordinary", type=Path, default=FIT_SUITE,
        help="the ordinary documents for fitting",
    )  # fmt: skip
    parser.add_argument(
        "--llm", action="store_true",
        help="fit assay-correctness-llm: also ask the chat model at ASSAY_LLM_URL",
    )  # fmt: skip
    args = parser.parse_args(argv)
    began = time.perf_counter()
    policies = args.policies.split(",")
    answerability = LLMAnswerability(required_client("--llm")) if args.llm else None
    asked = answerability.name if answerability else None
    # with the chat model every answer costs a request (a second or two on 2 cores): the
    # held-aside sets of `make bench-pipeline-llm` check it instead of PolicyQA dev
    sets = FIT_SETS + (() if answerability else CHECK_SETS)
    llm = answerability is not None

    def kept(name: str, asking: Callable[..., list[AnswerRow]]) -> list[AnswerRow]:
        """Set ``name``'s rows, kept under --rows, each with every feature fitted; while
        they are asked, each is kept as it comes so that a stopped run goes on there."""
        journal = Journal(journal_path(args.rows, name, llm=llm))
        rows = kept_rows(args.rows, name, partial(asking, journal=journal), llm=llm)
        journal.close()
        return read_statements(rows, answerability, kept_path(args.rows, name, llm=llm))

    rows = []
    for name, root, file, split in sets:
        path = (args.data if root == "data" else args.more) / file
        # routed offline, whatever the environment names: with the chat model reading
        # every question's passages for informational's judgment, SQuAD alone took hours
        asking = partial(
            collect, name, path, split, args.questions, policies, answerability,
            relevance_model=args.relevance_model, correctness_model="none", llm=LLMSettings(),
        )  # fmt: skip
        rows += kept(name, asking)
    fitted = [name for name, *_ in FIT_SETS]
    # with the chat model configured too, so that each policy drafts what it drafts in
    # use: informational's set judgment is the chat model's reading (`llm_judgment`)
    chat: dict[str, Any] = {"llm": load_llm_settings()} if answerability else {}
    asking = partial(
        answer_rows, args.ordinary, ORDINARY_FIT, policies, answerability,
        relevance_model=args.relevance_model, correctness_model="none", **chat,
    )  # fmt: skip
    rows += kept(ORDINARY_FIT, asking)
    fitted.append(ORDINARY_FIT)
    relevance = get_relevance_model(args.relevance_model).name  # with its version
    version = LLM_VERSION if answerability else VERSION
    model = fit(
        [r for r in rows if r.dataset in fitted], relevance, load_reader().name, version, asked
    )
    checked = {}
    for name in fitted:
        kept_out = cross_validated([r for r in rows if r.dataset == name], answerability=asked)
        checked[f"{name}, 5 folds by question"] = kept_out
        log(f"{name}, out of fold: {kept_out}")
        # leave one set out: how a model of the other fitting sets rates this one
        others = set(fitted) - {name}
        without = fit([r for r in rows if r.dataset in others], "-", "-", "-", asked)
        left_out = measure(without, [r for r in rows if r.dataset == name])
        checked[f"{name}, fitted without it"] = left_out
        log(f"{name}, fitted without it: {left_out}")
    for name in [*fitted, *(name for name, *_ in CHECK_SETS if not answerability)]:
        checked[name] = measure(model, [r for r in rows if r.dataset == name])
        log(f"{name}: {checked[name]}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "model.json").write_text(json.dumps(model.to_dict(), indent=2) + "\n")
    minutes = (time.perf_counter() - began) / 60
    card = _card(model, rows, fitted, checked, policies, args.questions, minutes)
    (args.out / "MODEL_CARD.md").write_text(card)
    log(f"wrote {args.out / 'model.json'}")
    return 0


def _card(
    model: CorrectnessModel,
    rows: Sequence[AnswerRow],
    fitted_sets: Sequence[str],
    checked: dict[str, dict[str, float]],
    policies: Sequence[str],
    questions: int,
    minutes: float,
) -> str:
    weights = "\n".join(
        f"| {f} | {m:.3f} | {s:.3f} | {c:+.3f} |"
        for f, m, s, c in zip(model.features, model.mean, model.scale, model.coef, strict=True)
    )
    held = "\n".join(
        f"| {name} | {v['answers']} | {v['right']:.3f} | {v['auroc']:.3f} | {v['brier']:.3f} "
        f"| {v['ece']:.3f} |"
        for name, v in checked.items()
    )
    fitted = [r for r in rows if r.dataset in fitted_sets]
    drafted = sum(r.features is not None for r in fitted)
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    command = "`make train-correctness-llm` (`python -m assay.training.correctness_train --llm`)"
    checked_on = (
        "Held-aside sets (SQuAD test articles, XQuAD, COVID-QA,\n"
        "PolicyQA test, TAT-QA test) are measured by `make bench-pipeline-llm`."
    )
    limits = _LLM_LIMITS
    joined = (
        "TAT-QA joined in 2.0.0: with it, the held-aside SQuAD test articles and TAT-QA\n"
        "test reports were both ranked better than by 1.0.0, fitted on SQuAD alone\n"
        '(docs/benchmarks.md, "assay-correctness-llm 2.0.0"). The ordinary documents\n'
        "joined in 3.0.0, asked with the chat model configured, so that informational\n"
        "drafts the paraphrased questions its reading lets through (2.0.0 rated those\n"
        "drafts from users' documents too low or too high: docs/benchmarks.md)."
    )
    if model.answerability:
        fitted_on = (
            f"the scores of the relevance model `{model.relevance_model}`, the spans of the\n"
            f"reader `{model.reader_model}` and the answers of the chat model asked as\n"
            f"`{model.answerability}`; assay applies it only with those three, when\n"
            "`ASSAY_LLM_URL` names an endpoint serving that model (`make llm` serves it\n"
            "locally). With another chat model, or none, `assay-correctness` rates answers."
        )
        what = (
            f"{len(model.features)} features of an answer and of the evidence it was drafted\n"
            "from (`assay.answer.correctness.LLM_FEATURES`): those of `assay-correctness` and\n"
            "`llm_cited`, the chat model's P(yes) that the most relevant cited passage states\n"
            "the answer to this exact question (`assay.models.answerability`), and\n"
            "`llm_statement`, its P(yes) that the answer's first statement, read alone, does:\n"
            "a passage that answers is no answer when the sentence quoted from it is another."
        )
    else:
        command = "`make train-models` (`python -m assay.training.correctness_train`)"
        checked_on = (
            "PolicyQA dev was never fitted. Held-aside sets (SQuAD test articles, XQuAD,\n"
            "COVID-QA, PolicyQA test, TAT-QA test) are measured by `make bench-pipeline`,\n"
            "and they and the ordinary documents of `bench/ordinary` by `make bench-answers`\n"
            "and `bench/correctness_models.py`."
        )
        limits = _LIMITS
        joined = (
            "TAT-QA joined in 4.0.0: with it, every held-aside set (both policies pooled) was "
            "ranked\nbetter than by the same recipe on SQuAD alone. The ordinary documents "
            "joined in\n5.0.0: 4.0.0 rated the drafts from knowledge bases written as users "
            'write them too\nlow (docs/benchmarks.md, "Answer layer, release by release").'
        )
        fitted_on = (
            f"the scores of the relevance model `{model.relevance_model}` and the spans of the\n"
            f"reader `{model.reader_model}`; assay applies it only with those two."
        )
        what = (
            f"{len(model.features)} features of an answer and of the evidence it was drafted\n"
            "from (`assay.answer.correctness.FEATURES`)."
        )
    ordinary = (
        "- The ordinary documents for fitting (`labels/ordinary-fit`, written for this\n"
        "  repository): small knowledge bases of policies beside their older\n"
        "  versions, data sheets, price lists and forum posts, each asked its own questions\n"
        "  on its own day: the answerable ones, and on-topic ones the documents do not\n"
        "  answer (`assay.training.ordinary_kbs`).\n"
        if ORDINARY_FIT in fitted_sets
        else ""
    )
    timing = (
        f"{minutes:.0f} minutes on 2 CPU cores (asking the questions; the fit takes a second)"
        if minutes >= 1
        else "from the answers an earlier run kept (`--rows`); asking them takes about half\n"
        "an hour on 2 CPU cores, the fit a second"
    )
    return f"""# Model card: {model.name} {model.version}

Written by {command}, {when},
{timing}.
Fitted on {fitted_on}

## What it is
P(the drafted answer is right): a logistic regression over
{what}
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
{", ".join(policies)}; {drafted} drafted answers of {len(fitted)} asks, from
{len(fitted_sets)} sets that allow commercial use, each weighing the same in the fit:
- SQuAD 2.0 dev's validation articles (CC BY-SA 4.0; Wikipedia). SQuAD's train articles
  are not used: the relevance model and the reader were fitted on them.
- TAT-QA dev (CC BY 4.0; the text and tables of annual reports). Each report is a
  knowledge base of its own, its table one sentence per row; only span answers that one
  passage alone holds are asked (`assay.training.answer_rows.load_tatqa`).
{ordinary}
PolicyQA (MIT) was tried as a fitting set and dropped: its gold spans ("register",
"Information we share") make most right answers count as wrong, and in a trial a model
fitted on PolicyQA dev alone ranked SQuAD's validation answers below chance (AUROC 0.44).
{joined}

## Figures
Drafted answers; ECE over 15 bins. For each fitting set: out of fold (each fifth of its
questions rated by a model fitted on the rest), and fitted without it (rated by a model
of the other fitting sets alone: the figure that says how the recipe carries to a kind
of document it never saw); then in-sample.
{checked_on}

| set | answers | right | AUROC | Brier | ECE |
|---|---|---|---|---|---|
{held}

## Weights (standardised features)
A feature that departs from its usual value on fewer than {MIN_VARIED} fitted answers
carries no weight (mean 0, scale 1, coefficient 0): so few cannot say what it means.

| feature | mean | scale | coefficient |
|---|---|---|---|
{weights}

Intercept {model.intercept:+.3f}.

## Limits
{limits}"""


_COMMON_LIMITS = """\
- It knows only what these features show. An answer the extractive answerer copies
  from the right passage but from the wrong sentence is often judged right; an LLM's
  paraphrase was never in the data.
- "Right" means the gold answer is in the answer; a longer answer holds it more often.
- Extractive answers are nearly always fully supported, so `support` carries little
  weight here; the judge's support still caps the score through the minimum.
- Its fitting answers are gold spans: SQuAD's names, dates and figures, TAT-QA's
  figures and clauses of a report. A descriptive answer (to "what happens if", "why",
  "how"), a whole sentence in which the reader finds no short span, is rated low even
  when it is right: the walkthrough's "What happens if the battery pack overheats?" gets
  0.06 from `assay-correctness` 4.0.0 (0.13 from 3.0.0) for the data sheet's right
  sentence.
"""
_LIMITS = (
    _COMMON_LIMITS
    + """- Held-aside figures are short of the goals (AUROC >= 0.80) on SQuAD 2.0's test
  articles: its unanswerable questions, written to look answerable from their paragraph,
  are rated like answerable ones. See docs/benchmarks.md.
- Fitting sets with different right rates (SQuAD 0.47, TAT-QA 0.63, the ordinary
  documents 0.59) meet in one intercept, so no one kind of document gets its own base
  rate. A map fitted on the user's own labelled answers (`assay calibrate`) gives it
  theirs.
- On SQuAD's own questions against the full knowledge base (no answer removed) 4.0.0
  ranked a little worse than 3.0.0, most under the strict policies (fitting their drafts too
  did not change that; docs/benchmarks.md): AUROC 0.730 / 0.695 / 0.685 / 0.601
  against 0.737 / 0.720 / 0.723 / 0.668 (informational, financial, legal,
  safety_critical; `make bench-calibration`).
- Refit it when the relevance model or the reader changes (`make train-models`); with
  another one (or `ASSAY_READER_MODEL=none`) assay does not apply it and the judge's
  support score stands alone.
"""
)
_LLM_LIMITS = (
    _COMMON_LIMITS
    + """- Each rated answer costs two requests to the endpoint, one about the passage and one
  about the first statement (one token each; about 2-4 s each with the local model on 2
  CPU cores); a failing endpoint fails the question, as the other LLM parts do.
- assay recognises the chat model by its name (`ASSAY_LLM_MODEL`) only: the same model
  quantised otherwise, or served with another chat template, reads passages a little
  differently under the same name.
- Legal and safety-critical policies rerank with the LLM when an endpoint is set; their
  relevance scores are then not those it was fitted on, and it does not apply to them.
- Refit it when the relevance model, the reader or the prompt
  (`assay.models.answerability`) changes (`make train-correctness-llm`).
"""
)


if __name__ == "__main__":
    raise SystemExit(main())
