"""Calibration targets on SQuAD 2.0 test articles never used for fitting.

A fresh knowledge base is built from the paragraphs of the 10 SQuAD 2.0 dev articles
that no model was trained or tuned on (:func:`assay.calibration.labels.squad_knowledge_base`
of the ``test`` split), as ``bench/pipeline.py`` builds it: one source of kind
``official``, the same review and publication dates, a fixed ``as_of``. The articles'
questions (:func:`assay.calibration.labels.squad_labels`) are split by article, seeded:
half of the articles to fit on, the other half held out, so no article has questions on
both sides. Every question of each half (or a seeded sample of ``--questions``, half
answerable, half not) is scored by :func:`assay.calibration.scored.score_examples` on an engine that
applies no calibration (``Assay(calibrate=False)``), offline (extractive answerer,
offline judge). Reported on the held-out half:

* answer level: Brier score and ECE (15 equal-width bins) of the judge's raw confidence
  and of the isotonic and Platt maps fitted on the fitting half, on the answers the
  pipeline drafted and judged, beside the targets (Brier <= 0.17, ECE <= 0.03) and the
  base-rate predictor (the fitting half's accuracy, for every item) and the ECE that
  sampling noise alone gives a calibrated score at this many answers; each policy also
  scored without the reader and the answer-correctness model ("support only"), as
  releases before the correctness model did;
* set level: AUROC of the raw set confidence, answerable vs unanswerable, beside the
  highest retrieval cosine and the highest relevance-model score among the hits;
* guaranteed thresholds: for each alpha, the Learn-then-Test threshold
  (:func:`assay.calibration.thresholds.risk_controlled_threshold`, delta 0.1) on the
  fitting half's isotonic-calibrated answer scores (0.0 for a question not answered),
  then the held-out answered-and-wrong rate and coverage at that threshold.

Each policy in ``--policies`` gets its own answer-level scoring pass; the set level is
measured under ``--policy``.

    .venv/bin/python bench/calibration.py [--data PATH] [--questions N] [--policy NAME]
                                          [--policies A,B,...] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from docs_section import write_section
from pipeline import AS_OF, PUBLISHED, REVIEWED, build

from assay import Assay
from assay.calibration.labels import LabeledExample, squad_knowledge_base, squad_labels
from assay.calibration.maps import ScoreMap, fit_map
from assay.calibration.scored import ScoredSet, score_examples
from assay.calibration.thresholds import RiskThreshold, risk_controlled_threshold
from assay.errors import InvalidInputError
from assay.flow.assess import AskResult
from assay.metrics import auroc, brier_score, ece_noise_floor, expected_calibration_error

DATA = Path(__file__).resolve().parents[2] / "shared/data"
SECTION = "## Calibration (bench/calibration.py)"
SEED = 13
POLICIES = ("informational", "safety_critical", "financial", "legal")
BRIER_TARGET = 0.17
ECE_TARGET = 0.03
ECE_BINS = 15
ALPHAS = (0.05, 0.10)
DELTA = 0.1
METHODS = ("isotonic", "platt")

FloatArray = npt.NDArray[np.float64]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- data -------------------------------------------------------------------------------


def split_articles(examples: Sequence[LabeledExample]) -> tuple[list[str], list[str]]:
    """(fitting, held-out) article titles: the articles shuffled (seeded), cut in half."""
    titles = list(dict.fromkeys(e.category or "" for e in examples))
    random.Random(SEED).shuffle(titles)
    half = len(titles) // 2
    return sorted(titles[:half]), sorted(titles[half:])


def sample(
    examples: Sequence[LabeledExample], titles: Sequence[str], n: int | None
) -> list[LabeledExample]:
    """``n`` seeded questions of the ``titles`` articles, half answerable where there are
    enough (``None``: all of them), in a seeded order."""
    pool = [e for e in examples if e.category in set(titles)]
    rng = random.Random(SEED)
    if n is None:
        return rng.sample(pool, len(pool))
    answerable = [e for e in pool if e.label == 1]
    unanswerable = [e for e in pool if e.label == 0]
    n_un = min(len(unanswerable), n // 2)
    n_an = min(len(answerable), n - n_un)
    n_un = min(len(unanswerable), n - n_an)
    picked = rng.sample(answerable, n_an) + rng.sample(unanswerable, n_un)
    rng.shuffle(picked)
    return picked


class RecordingAssay(Assay):
    """An engine that keeps what each :meth:`assess` returned, for the retrieval baselines
    of the very questions ``score_examples`` scored (one retrieval per question)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.assessed: list[AskResult] = []

    def assess(self, question: str, **kwargs: Any) -> AskResult:  # type: ignore[override]
        result = super().assess(question, **kwargs)
        self.assessed.append(result)
        return result


def progress(name: str) -> Any:
    start = time.perf_counter()

    def report(i: int, total: int) -> None:
        if i and i % 200 == 0:
            log(f"  {name}: {i}/{total} in {time.perf_counter() - start:.0f} s")

    return report


def scored(engine: Assay, examples: Sequence[LabeledExample], target: str, policy: str,
           name: str) -> ScoredSet:  # fmt: skip
    start = time.perf_counter()
    out = score_examples(
        engine, examples, target, policy=policy, as_of=AS_OF, progress=progress(name)
    )
    log(f"{name}: {len(examples)} questions in {time.perf_counter() - start:.0f} s")
    return out


# -- answer level -------------------------------------------------------------------------


@dataclass
class PolicyRun:
    """One policy's answer-level scores on both halves, and the maps fitted on the first."""

    policy: str
    fit: ScoredSet
    held: ScoredSet
    maps: dict[str, ScoreMap | str]  #: method -> the map, or why it could not be fitted


def fit_maps(fit: ScoredSet) -> dict[str, ScoreMap | str]:
    scores, labels = fit.fitting()
    maps: dict[str, ScoreMap | str] = {}
    for method in METHODS:
        try:
            maps[method] = fit_map(method, scores, labels)
        except InvalidInputError as exc:
            maps[method] = str(exc)
    return maps


def verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "MISS"


def calibration_rows(run: PolicyRun) -> list[str]:
    """Brier and ECE on the held-out half's judged answers: raw, each map, base rate."""
    fit_y = run.fit.fitting()[1]
    s, y = run.held.fitting()
    share = f"{run.held.judged.mean():.1%}"
    n = f"{fit_y.size} / {y.size}"
    accuracy = f"{y.mean():.3f}" if y.size else "-"
    ranks = f"{auroc(y, s):.3f}" if 0 < y.sum() < y.size else "-"
    top = f"{(s >= 1.0).mean():.1%}" if y.size else "-"
    head = f"| {run.policy} | {n} | {share} | {accuracy} | {ranks} | {top} |"
    if y.size == 0 or fit_y.size == 0:
        return [f"{head} - | - | - | - | - | - |"]
    predictions: list[tuple[str, FloatArray | None]] = [("raw judge score", s)]
    for method in METHODS:
        fitted = run.maps[method]
        predictions.append((method, None if isinstance(fitted, str) else fitted(s)))
    predictions.append(("base rate (fitting half)", np.full(s.size, fit_y.mean())))
    rows = []
    for name, p in predictions:
        if p is None:
            rows.append(f"{head} {name} | not fitted | - | - | - | - |")
            continue
        brier, ece = brier_score(y, p), expected_calibration_error(y, p, n_bins=ECE_BINS)
        floor = ece_noise_floor(p, n_bins=ECE_BINS)
        rows.append(
            f"{head} {name} | {brier:.3f} | {verdict(brier, BRIER_TARGET)} | {ece:.3f} | "
            f"{verdict(ece, ECE_TARGET)} | {floor:.3f} |"
        )
    return rows


CALIBRATION_HEADER = [
    "| policy | judged answers (fit / held out) | held out judged | accuracy of judged | "
    "AUROC of raw score | raw score 1.0 | scores | Brier | "
    f"<= {BRIER_TARGET} | ECE | <= {ECE_TARGET} | ECE if calibrated |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
]


# -- guaranteed thresholds ----------------------------------------------------------------


def calibrated(run: ScoredSet, fitted: ScoreMap | None) -> FloatArray:
    """The mapped (``None``: raw) score of each judged answer; 0.0 for one not answered."""
    return np.where(run.judged, run.scores if fitted is None else fitted(run.scores), 0.0)


def threshold_rows(run: PolicyRun) -> list[str]:
    """Per alpha, the Learn-then-Test threshold on the fitting half's isotonic-mapped
    scores (and, for comparison, on the raw scores), checked on the held-out half."""
    rows = []
    fitted = run.maps["isotonic"]
    for name in ("isotonic", "raw judge score"):
        if name == "isotonic" and isinstance(fitted, str):
            rows += [f"| {run.policy} | {a} | {name} | not fitted | - | - | - | - | - | - |"
                     for a in ALPHAS]  # fmt: skip
            continue
        chosen = fitted if name == "isotonic" and not isinstance(fitted, str) else None
        fit_scores, held_scores = calibrated(run.fit, chosen), calibrated(run.held, chosen)
        for alpha in ALPHAS:
            t: RiskThreshold = risk_controlled_threshold(
                fit_scores, run.fit.labels, alpha=alpha, delta=DELTA
            )
            cells = f"| {run.policy} | {alpha} | {name} |"
            if t.threshold is None:
                rows.append(
                    f"{cells} none (answer nothing) | 0.000 | 0.0% | {t.p_value:.3f} | 0.000 | "
                    "0.0% | PASS |"
                )
                continue
            answered = held_scores >= t.threshold
            risk = float((answered & (run.held.labels == 0)).mean())
            rows.append(
                f"{cells} {t.threshold:.3f} | {t.empirical_risk:.3f} | {t.coverage:.1%} | "
                f"{t.p_value:.3f} | {risk:.3f} | {answered.mean():.1%} | {verdict(risk, alpha)} |"
            )
    return rows


THRESHOLD_HEADER = [
    "| policy | alpha | scores | threshold | fit: answered and wrong | fit: coverage | "
    "p-value | held out: answered and wrong | held out: coverage | <= alpha |",
    "|---|---|---|---|---|---|---|---|---|---|",
]


# -- set level ----------------------------------------------------------------------------


def set_rows(
    held: Sequence[LabeledExample], sets: ScoredSet, results: list[AskResult]
) -> list[str]:
    """AUROC, answerable vs unanswerable, of the set confidence and two retrieval baselines."""
    labels = np.asarray([e.label for e in held])
    cosine = [max((h.cosine for h in r.retrieval.hits), default=0.0) for r in results]
    first = [r.retrieval.hits[0].cosine if r.retrieval.hits else 0.0 for r in results]
    relevance = [
        max((h.relevance for h in r.retrieval.hits if h.relevance is not None), default=0.0)
        for r in results
    ]
    has_relevance = any(h.relevance is not None for r in results for h in r.retrieval.hits)
    rows = [
        ("raw set confidence (`signals.composite`)", sets.scores),
        ("highest cosine among the hits", np.asarray(cosine)),
        ("cosine of the first hit (fused rank 1)", np.asarray(first)),
    ]
    if has_relevance:
        rows.append(("highest relevance-model score among the hits", np.asarray(relevance)))
    return [f"| {name} | {auroc(labels, s):.3f} |" for name, s in rows]


# -- the run ------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--questions", type=int, help="a sample of this many questions per half (default: all)"
    )
    parser.add_argument("--policy", default="informational", help="policy of the set level")
    parser.add_argument(
        "--policies", default=",".join(POLICIES), help="policies scored at the answer level"
    )
    parser.add_argument("--write", action="store_true", help="replace the docs section")
    args = parser.parse_args()
    wall = time.perf_counter()
    policies = [args.policy] + [
        p for p in args.policies.split(",") if p.strip() and p.strip() != args.policy
    ]
    squad = args.data / "squad_v2_dev/dev-v2.0.reconstructed.json"
    examples = squad_labels(squad, "test")
    fit_titles, held_titles = split_articles(examples)
    fit, held = (
        sample(examples, fit_titles, args.questions),
        sample(examples, held_titles, args.questions),
    )
    rows = [r | {"published": PUBLISHED} for r in squad_knowledge_base(squad, "test")]
    command = "python bench/calibration.py" + "".join(
        f" {a}" for a in sys.argv[1:] if a != "--write"
    )

    def describe(name: str, chosen: Sequence[LabeledExample], titles: Sequence[str]) -> str:
        pool = sum(e.category in set(titles) for e in examples)
        answerable = sum(e.label for e in chosen)
        asked = "all" if len(chosen) == pool else f"sample {len(chosen)}"
        return (
            f"{name}: {', '.join(titles)} ({pool:,} questions; {asked}, "
            f"{answerable} answerable and {len(chosen) - answerable} not)"
        )

    with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
        built = build(Path(tmp), rows, answerer="extractive", judge="assay-judge")
        db = built.settings.db
        settings = built.settings
        built.close()  # reopened below without calibration
        engine = RecordingAssay(db, settings=settings, calibrate=False)
        # support only: no reader, no answer-correctness model, the judge's support decides
        support_only = {"correctness_model": "none", "reader_model": "none"}
        previous = Assay(db, settings=settings.model_copy(update=support_only), calibrate=False)
        runs = []
        for policy in policies:
            for name, scorer in ((policy, engine), (f"{policy}, support only", previous)):
                fit_set = scored(scorer, fit, "answer", policy, f"{name}, fitting half")
                held_set = scored(scorer, held, "answer", policy, f"{name}, held-out half")
                runs.append(PolicyRun(name, fit_set, held_set, fit_maps(fit_set)))
        previous.close()
        engine.assessed.clear()
        sets = scored(engine, held, "set", args.policy, f"{args.policy}, set level")
        results = list(engine.assessed)
        engine.close()
    assert len(results) == len(held) and sets.skipped == 0
    seconds = time.perf_counter() - wall
    lines = [
        SECTION,
        "",
        f"`{command}`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} CPU cores, "
        f"Python {platform.python_version()}; {seconds / 60:.1f} minutes.",
        "",
        f"Knowledge base: the SQuAD 2.0 dev test articles, {len(rows):,} paragraphs "
        '(`squad_knowledge_base(path, "test")`), one `official` source reviewed '
        f"{REVIEWED}, paragraphs published {PUBLISHED}, `as_of` {AS_OF}; offline "
        "(extractive answerer, offline judge), no calibration applied "
        "(`Assay(calibrate=False)`). The articles are split in two, seeded, and no article "
        "has questions on both sides:",
        "",
        f"* {describe('fitting half', fit, fit_titles)};",
        f"* {describe('held-out half', held, held_titles)}.",
        "",
        "Everything below is measured on the held-out half; maps and thresholds are fitted "
        "on the fitting half only.",
        "",
        "### Answer level",
        "",
        "The judge's `confidence_score` of each answer the pipeline drafted and judged "
        '(`score_examples(..., "answer")`; "judged" is `ScoredSet.judged`: a draft was '
        "judged, whatever status the policy then gave it); correct when the question is "
        "answerable and the drafted answer holds a gold answer (SQuAD normalisation). Maps "
        "fitted on the fitting half's judged answers; Brier and ECE (15 equal-width bins) "
        "on the held-out half's. Base rate: the fitting half's accuracy of judged answers "
        "given to every held-out one. AUROC of raw score: how well the raw judge score "
        "tells right from wrong held-out answers (0.5 = not at all; no monotone map can "
        "change it); raw score 1.0: the share of held-out judged answers the judge scored "
        "1.0. The score is `min(P(right), judge support)` with the answer-correctness "
        "model (`assay-correctness`) over the reader's spans (`assay-reader`); \"support "
        'only" rows answer the same questions without the reader and score them by the '
        "judge's support alone. ECE if calibrated: the mean ECE of these very scores "
        "against outcomes drawn with their probability (`assay.metrics.ece_noise_floor`): "
        "what sampling noise alone gives a perfect score at this many answers; an ECE near "
        "it cannot be told from perfect calibration, and a target below it cannot be met "
        "at this sample size.",
        "",
        *CALIBRATION_HEADER,
        *(row for run in runs for row in calibration_rows(run)),
        "",
        "### Set level",
        "",
        f"Policy {args.policy}: AUROC, answerable vs unanswerable, on the "
        f'{len(held)} held-out questions (`score_examples(..., "set")`, the raw '
        "`signals.composite` of `assess`), beside retrieval scores of the same "
        "`assess` call (top_k=8): the highest query-chunk cosine among the hits, the cosine "
        "of the first hit, and the highest relevance-model score among the hits (0.0 "
        "where nothing was retrieved).",
        "",
        "| score | AUROC |",
        "|---|---|",
        *set_rows(held, sets, results),
        "",
        "### Guaranteed thresholds",
        "",
        f"Learn then Test (`risk_controlled_threshold`, delta {DELTA}) on the fitting half's "
        "answer scores mapped by the isotonic map fitted there (a question not answered "
        "scores 0.0); loss: answered and wrong (a wrong answer, or any answer to an "
        "unanswerable question). Held out: the share of all held-out questions answered "
        "(score at or above the threshold) and wrong, and the share answered; PASS when "
        "the realised rate is at most alpha. Each policy is its own scoring pass; the "
        "threshold stands in for the policy's own judge thresholds (a judged answer at or "
        "above it counts as answered, whatever status the policy gave it). For comparison, "
        "the same on the raw judge scores. The guarantee, P(risk <= alpha) >= 1 - delta, "
        "holds for a test set exchangeable with the calibration set; held-out articles "
        "are a shift from the fitting ones, so a MISS here may be that shift (or the "
        "delta chance), not a broken procedure.",
        "",
        *THRESHOLD_HEADER,
        *(row for run in runs for row in threshold_rows(run)),
        "",
    ]
    section = "\n".join(lines)
    print(section)
    log(f"wall time {seconds:.0f} s")
    if args.write:
        write_section(SECTION, section)
        log("wrote docs/benchmarks.md")


if __name__ == "__main__":
    main()
