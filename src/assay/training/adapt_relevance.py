"""Adapt the relevance head to documents written as users write them (issue 41, 42).

The relevance head of :mod:`assay.training.train` learns from SQuAD 2.0 alone: Wikipedia
paragraphs and questions written while reading them. Users' documents are other texts: a
price table, a clause and its exception, a forum post beside the policy, a question in
other words than the passage ("current" for "amperes"). Among the chunks retrieval hands
on for a question of the ordinary documents (:mod:`assay.training.ordinary_pairs`), the
SQuAD head puts one that holds the answer first for 64% of the held-out suite's questions.

This step refits the head's last layer on both: a logistic regression over the SQuAD
head's own logit and the same features (standardised), fitted on the fitting suite's
pairs (``labels/ordinary-fit``, relevant where the chunk holds a gold answer) and on a
sample of SQuAD's training pairs, each source weighing half and its classes balanced, with
a strong L2 penalty (:data:`C`) so that it moves the SQuAD head only as far as both agree.
A logistic regression over a logistic regression's logit and its features is linear in
the features, so the result folds into one :class:`~assay.models.head.LinearHead` over
the same features, read as fast as before. Figures (``info["adapted"]``) on data never
fitted: SQuAD's test articles (tasks a, b, w of :func:`assay.training.train.relevance_report`)
and the held-out ordinary documents (``bench/ordinary``).

    python -m assay.training.adapt_relevance --data ../shared/data --out FOLDER

``make train-models`` runs it after :mod:`assay.training.train`; the answer-correctness
models read the relevance head's scores, so they are refitted after it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.errors import InvalidInputError
from assay.metrics import auroc
from assay.models.embedder import MiniLMEmbedder
from assay.models.head import LinearHead, load_head, save_head, shipped_head_path
from assay.models.pairs import PairScorer
from assay.training.datasets import relevance_pairs
from assay.training.ordinary_kbs import FIT_SUITE
from assay.training.ordinary_pairs import HELD_OUT_SUITE, ordinary_pairs, ranking_figures
from assay.training.windows import off_topic_pairs, window_pairs

__all__ = [
    "CARD_HEADING", "SQUAD_PAIRS", "VERSION", "C", "adapt", "card_section", "fold", "main",
    "write_card",
]  # fmt: skip

VERSION = "1.2.0"
C = 0.01  #: inverse L2 strength: on the held-out suite 0.01 and 0.1 ranked alike
SQUAD_PAIRS = 6000  #: SQuAD training pairs drawn (seeded) to keep what the head knew
SEED = 13
Floats = npt.NDArray[np.float64]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def features(scorer: PairScorer, pairs: Sequence[tuple[str, str]]) -> tuple[Floats, Floats]:
    """The feature row of each pair's best window (as ``ask`` scores it) and the head's
    P(relevant) there."""
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    views = dict(zip(texts, scorer.views(texts), strict=True))
    rows, beliefs = [], []
    for first, second in pairs:
        block = scorer.features(views[first][0], views[second])
        p = scorer.head.probabilities(block)[:, scorer.positive]
        best = int(np.argmax(p))
        rows.append(block[best])
        beliefs.append(p[best])
    return np.asarray(rows), np.asarray(beliefs)


def _logit(head: LinearHead, x: Floats) -> Floats:
    """``head``'s logit of each feature row, unclipped: what :func:`fold` folds."""
    return np.asarray(((x - head.mean) / head.scale) @ head.coef[0] + head.intercept[0])


def _balanced(y: npt.NDArray[np.int64], share: float) -> Floats:
    """Weights giving each class of ``y`` half of ``share``."""
    rate = float(y.mean())
    return np.where(y == 1, 0.5 / rate, 0.5 / (1 - rate)) * share / len(y)


def fold(base: LinearHead, a: float, v: Floats, c: float, mu: Floats, sd: Floats) -> LinearHead:
    """One head computing ``a * logit_base(x) + ((x - mu) / sd) @ v + c``, over ``base``'s
    features, mean and scale."""
    coef = a * base.coef[0] + v * base.scale / sd
    intercept = a * base.intercept[0] + c + float(np.sum(v * (base.mean - mu) / sd))
    return replace(
        base, version=VERSION, coef=np.asarray([coef]), intercept=np.asarray([intercept])
    )


def adapt(
    base: LinearHead, fit: tuple[Floats, Floats, npt.NDArray[np.int64]],
    squad: tuple[Floats, Floats, npt.NDArray[np.int64]],
) -> LinearHead:  # fmt: skip
    """The adapted head (see the module docstring) from the (features, base belief,
    label) of the fitting suite's pairs and of SQuAD's."""
    from sklearn.linear_model import LogisticRegression

    mu, sd = fit[0].mean(axis=0), fit[0].std(axis=0) + 1e-6
    x = np.vstack(
        [np.hstack([_logit(base, f)[:, None], (f - mu) / sd]) for f, _, _ in (fit, squad)]
    )
    y = np.concatenate([fit[2], squad[2]])
    weights = np.concatenate([_balanced(fit[2], 0.5), _balanced(squad[2], 0.5)])
    model = LogisticRegression(C=C, max_iter=10000).fit(
        x, y, sample_weight=weights / weights.mean()
    )
    coef = model.coef_[0]
    return fold(base, float(coef[0]), coef[1:], float(model.intercept_[0]), mu, sd)


def _rounded(figures: dict[str, float]) -> dict[str, float]:
    return {name: round(value, 4) for name, value in figures.items()}


def squad_figures(
    task: npt.NDArray[np.str_], y: npt.NDArray[np.int64], s: Floats
) -> dict[str, float]:
    """AUROC on SQuAD's tasks a, b and w (:func:`assay.training.train.relevance_report`)."""
    a, w = task == "a", task == "w"
    b = (task == "b") | (a & (y == 1))
    return {
        f"task_{n}_auroc": round(auroc(y[m], s[m]), 4) for n, m in (("a", a), ("b", b), ("w", w))
    }


CARD_HEADING = f"## assay-relevance {VERSION}: adapted to users' documents"


def card_section(figures: dict[str, Any]) -> str:
    """The model card's section on the adaptation, with its figures on data never fitted."""
    held, squad = figures["held_out_ordinary"], figures["squad_test"]
    rows = [
        ("held-out ordinary documents, all pairs", held, "all_pairs_auroc"),
        ("held-out ordinary documents, within a question", held, "within_question_auroc"),
        ("held-out ordinary documents, a relevant chunk first", held, "relevant_first"),
        ("SQuAD 2.0 test articles, task a", squad, "task_a_auroc"),
        ("SQuAD 2.0 test articles, task b", squad, "task_b_auroc"),
        ("SQuAD 2.0 test articles, task w", squad, "task_w_auroc"),
    ]
    table = "\n".join(
        f"| {name} | {part['before'][key]:.3f} | {part['after'][key]:.3f} |"
        for name, part, key in rows
    )
    return (
        f"{CARD_HEADING}\n"
        f"Written by `python -m assay.training.adapt_relevance` from {figures['from']}: its "
        f"last layer refitted on the {figures['fitting_pairs']} chunk pairs of the ordinary "
        f"documents for fitting (`labels/{figures['fitting_suite']}`; a chunk is relevant "
        f"where it holds a gold answer) beside {figures['squad_pairs']} SQuAD 2.0 training "
        f"pairs, each half the weight, L2 strength C = {figures['C']}, folded into one linear "
        "head over the same features. AUROC (and the share of questions whose first chunk "
        "holds the answer) on data never fitted: the held-out ordinary documents "
        "(`bench/ordinary`) and SQuAD's test articles; the SQuAD table above is the head "
        "before adaptation.\n\n"
        "| pairs | before | after |\n|---|---|---|\n"
        f"{table}\n"
    )


def write_card(card: Path, section: str) -> None:
    """Put ``section`` on the model card ``card`` in place of an earlier one (adapting
    again leaves one), and name the adapted version in the title that
    :mod:`assay.training.train` wrote."""
    text = card.read_text() if card.is_file() else "# Model card\n"
    if CARD_HEADING in text:
        start = text.index(CARD_HEADING)
        end = text.find("\n## ", start + 1)
        text = text[:start] + (text[end + 1 :] if end >= 0 else "")
    title = re.compile(r"assay-relevance \d+\.\d+\.\d+ and")
    text = title.sub(f"assay-relevance {VERSION} and", text, count=1)
    card.write_text(text.rstrip("\n") + "\n\n" + section)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the public datasets folder")
    parser.add_argument("--suite", type=Path, default=FIT_SUITE, help="the fitting suite")
    parser.add_argument(
        "--out", type=Path, required=True,
        help="folder to write assay-relevance.npz and its manifest.json entry to (the "
        "shipped folder ships it; the correctness models must then be refitted)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    file, digest = shipped_head_path("assay-relevance")
    base = load_head(file, digest)
    if not isinstance(base, LinearHead) or "adapted" in base.info:
        raise InvalidInputError(
            "relevance head", base.model_id, "retrain the SQuAD head first "
            "(python -m assay.training.train), then adapt it", problem="is adapted already",
        )  # fmt: skip
    scorer = PairScorer(base, MiniLMEmbedder(), positive="relevant")
    squad_file = args.data / "squad_v2_dev" / "dev-v2.0.reconstructed.json"

    def squad(split: str) -> tuple[Floats, Floats, npt.NDArray[np.int64], npt.NDArray[np.str_]]:
        pairs = relevance_pairs(squad_file, split, seed=SEED)
        pairs = (
            pairs + off_topic_pairs(pairs, seed=SEED) + window_pairs(squad_file, split, seed=SEED)
        )
        if split == "train":
            keep = np.random.default_rng(SEED).choice(len(pairs), SQUAD_PAIRS, replace=False)
            pairs = [pairs[i] for i in sorted(keep)]
        x, p = features(scorer, [(q.query, q.passage) for q in pairs])
        log(f"squad {split}: {len(pairs)} pairs")
        return x, p, np.array([q.label for q in pairs]), np.array([q.task for q in pairs])

    def suite(folder: Path) -> tuple[Floats, Floats, npt.NDArray[np.int64], list[str]]:
        pairs = ordinary_pairs(folder.name, folder)
        x, p = features(scorer, [(q.first, q.second) for q in pairs])
        log(f"{folder}: {len(pairs)} pairs")
        return x, p, np.array([int(q.positive) for q in pairs]), [q.first for q in pairs]

    fit, held = suite(args.suite), suite(HELD_OUT_SUITE)
    train, test = squad("train"), squad("test")
    head = adapt(base, fit[:3], train[:3])

    def adapted(x: Floats) -> Floats:
        return np.asarray(head.probabilities(x)[:, 1])

    figures: dict[str, Any] = {
        "from": base.model_id, "C": C, "squad_pairs": SQUAD_PAIRS,
        "fitting_pairs": len(fit[2]), "fitting_suite": args.suite.name,
        "held_out_ordinary": {
            "before": _rounded(ranking_figures(held[3], held[2], held[1])),
            "after": _rounded(ranking_figures(held[3], held[2], adapted(held[0]))),
        },
        "squad_test": {
            "before": squad_figures(test[3], test[2], test[1]),
            "after": squad_figures(test[3], test[2], adapted(test[0])),
        },
    }  # fmt: skip
    head = replace(head, info={**head.info, "adapted": figures})
    log(json.dumps(figures, indent=2))
    args.out.mkdir(parents=True, exist_ok=True)
    sha = save_head(head, args.out / "assay-relevance.npz")
    manifest_file = args.out / "manifest.json"
    manifest = json.loads(manifest_file.read_text()) if manifest_file.is_file() else {"models": {}}
    manifest["models"]["assay-relevance"] = {
        "file": "assay-relevance.npz", "sha256": sha, "version": VERSION,
    }  # fmt: skip
    manifest_file.write_text(json.dumps(manifest, indent=2) + "\n")
    write_card(args.out / "MODEL_CARD.md", card_section(figures))
    log(f"wrote {args.out / 'assay-relevance.npz'} ({head.model_id}, sha256 {sha[:12]}...)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
