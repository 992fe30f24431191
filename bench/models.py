"""Relevance and support models on datasets they were not fitted to, beside baselines.

Every answerability and support set in the public data (:mod:`assay.training.mix`), plus
generated stress sets (answer swapped, sentence negated), is measured with:

* baselines: cosine of the MiniLM embeddings, BM25 of the first text against the
  second, word overlap (share of the first text's words found in the second), length
  (shorter second text first for relevance; shorter claim first for support) and,
  where the set has gold answers, whether the answer string is in the passage;
* ``features-v1``: the shipped feature heads (``assay-relevance`` and ``assay-support``,
  the defaults), as they are;
* ``features-lodo``: the same features (first window) with a logistic head refitted
  leave one dataset out: on every other commercially usable set of the task, none
  sharing a text with the left-out set;
* ``cross-encoder``: assay's fine-tuned MiniLM cross-encoder (``assay-relevance-ce``,
  ``assay-support-ce``); the ``fitted`` column says whether the set was held aside whole
  from its training or only by groups;
* ``stack-lodo`` (support): ``assay-support-stack``'s recipe
  (:mod:`assay.training.stack_train`: boosted trees over the cross-encoder's logits and
  the claim's lexical gaps) fitted leave one dataset out, for P(supported) and for
  P(contradicted).

Figures: AUROC per set (relevant / supported first), balanced accuracy of each model's
own decision, contradiction-vs-rest AUROC where a set labels contradictions, the mean
and the worst set, and pairs/s at 256 tokens.

    .venv/bin/python bench/models.py [--data PATH] [--more PATH] [--per-set N] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from docs_section import write_section

from assay.metrics import auroc, balanced_accuracy
from assay.models.embedder import get_embedder
from assay.models.pair_classifier import SHIPPED_CROSS_ENCODER, PairClassifier, PairLogits
from assay.models.relevance import get_relevance_model
from assay.models.support import get_support_model
from assay.models.support_stack import shipped_support_stack, stack_rows
from assay.training.bm25 import BM25, tokenize
from assay.training.mix import ALL_SETS, HELD_ASIDE, TRAINING_CAPS, evaluation_sets
from assay.training.pairsets import LabeledPair, cap, normalized
from assay.training.stack_train import contradiction_labels, fit_stack_head, trainable

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Relevance and support models across datasets (bench/models.py)"
Scores = dict[str, np.ndarray]


def log(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def baselines(pairs: Sequence[LabeledPair]) -> Scores:
    """Cosine, BM25, overlap, length and (where known) answer-in-passage scores."""
    embedder = get_embedder("minilm")
    texts = sorted({t for p in pairs for t in (p.first, p.second)})
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    cosine = np.array([float(np.dot(vectors[p.first], vectors[p.second])) for p in pairs])
    seconds = sorted({p.second for p in pairs})
    index, where = BM25(seconds), {t: i for i, t in enumerate(seconds)}
    bm25 = np.array([index.scores(p.first)[where[p.second]] for p in pairs])
    overlap = []
    for p in pairs:
        words = set(tokenize(p.first))
        overlap.append(len(words & set(tokenize(p.second))) / max(1, len(words)))
    shorter = np.array(
        [-len((p.second if p.task == "relevance" else p.first).split()) for p in pairs]
    )
    out: Scores = {"cosine": cosine, "bm25": bm25, "overlap": np.array(overlap), "length": shorter}
    if all(p.answer for p in pairs):
        out["answer-in-passage"] = np.array(
            [float(normalized(p.answer) in normalized(p.second)) for p in pairs]
        )
    return out


def feature_rows(pairs: Sequence[LabeledPair]) -> np.ndarray:
    """Every v1 feature of each pair's first window, for the leave-one-dataset-out refit."""
    from assay.models.head import load_head, shipped_head_path
    from assay.training.train import featurize

    name = "assay-relevance" if pairs[0].task == "relevance" else "assay-support"
    idf = load_head(*shipped_head_path(name)).idf
    embedder = get_embedder("minilm")
    return featurize([(p.first, p.second) for p in pairs], embedder, idf)  # type: ignore[arg-type]


def head_scores(pairs: Sequence[LabeledPair]) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The v1 feature heads: P(positive), P(contradicted) (support), own decision (0/1)."""
    if pairs[0].task == "relevance":
        model = get_relevance_model("assay-relevance")
        by_query: dict[str, list[int]] = {}
        for i, p in enumerate(pairs):
            by_query.setdefault(p.first, []).append(i)
        score = np.zeros(len(pairs))
        for query, rows in by_query.items():
            score[rows] = model.score(query, [pairs[i].second for i in rows])
        return score, None, (score >= 0.5).astype(int)
    results = get_support_model("assay-support").score([(p.first, p.second) for p in pairs])
    score = np.array([r.score for r in results])
    contradiction = np.array([r.contradiction or 0.0 for r in results])
    return score, contradiction, np.array([r.label == "supported" for r in results], dtype=int)


def cross_scores(
    model: PairClassifier, pairs: Sequence[LabeledPair]
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, list[PairLogits]]:
    """The cross-encoder: P(positive), P(contradicted), own decision, its view of each pair."""
    results = model.score([(p.first, p.second) for p in pairs])
    if pairs[0].task == "relevance":
        score = np.array([r.relevant for r in results])
        return score, None, (score >= 0.5).astype(int), results
    supported = np.array([r.support[0] for r in results])
    contradicted = np.array([r.contradicted for r in results])
    decision = np.array([int(np.argmax(r.support) == 0) for r in results])
    return supported, contradicted, decision, results


def lodo_train_sets(
    left: str, sets: Sequence[str], task: dict[str, str], texts: dict[str, set[str]]
) -> list[str]:
    """The commercial sets of ``left``'s task that share no text with it."""
    return [
        s for s in sets
        if s != left and task[s] == task[left] and trainable(s) and not texts[s] & texts[left]
    ]  # fmt: skip


def lodo_logistic(
    features: dict[str, np.ndarray],
    labels: dict[str, np.ndarray],
    task: dict[str, str],
    sets: Sequence[str],
    texts: dict[str, set[str]],
) -> Scores:
    """Leave one dataset out: fit on the other commercial sets of the same task."""
    from sklearn.linear_model import LogisticRegression

    out: Scores = {}
    for left in sets:
        train = lodo_train_sets(left, sets, task, texts)
        x = np.vstack([features[s] for s in train])
        y = np.concatenate([labels[s] for s in train])
        mean, scale = x.mean(0), x.std(0) + 1e-9
        model = LogisticRegression(C=0.3, class_weight="balanced", max_iter=3000).fit(
            (x - mean) / scale, y
        )
        out[left] = model.predict_proba((features[left] - mean) / scale)[:, 1]
    return out


def lodo_stack(
    rows: dict[str, np.ndarray],
    labels: dict[str, np.ndarray],
    contra: dict[str, np.ndarray | None],
    task: dict[str, str],
    texts: dict[str, set[str]],
) -> tuple[Scores, Scores]:
    """``assay-support-stack``'s recipe, leave one dataset out: P(supported) and
    P(contradicted) of every support set, combined as shipped."""
    sets = list(rows)
    supported, contradicted = {}, {}
    for left in sets:
        train = lodo_train_sets(left, sets, task, texts)
        head = fit_stack_head("lodo", {s: rows[s] for s in train}, {s: labels[s] for s in train})
        support = head.probabilities(rows[left])[:, head.classes.index("1")]
        train = [s for s in train if contra[s] is not None]
        head = fit_stack_head("lodo", {s: rows[s] for s in train}, {s: contra[s] for s in train})  # type: ignore[misc]
        contradicted[left] = head.probabilities(rows[left])[:, head.classes.index("1")]
        supported[left] = np.minimum(support, 1.0 - contradicted[left])
    return supported, contradicted


def best_bacc(y: np.ndarray, score: np.ndarray) -> float:
    """Balanced accuracy at the best threshold on the set itself (an oracle, for baselines)."""
    best = 0.5
    for t in np.unique(score):
        best = max(best, balanced_accuracy(y, (score >= t).astype(int)))
    return best


def fmt(x: float | None) -> str:
    return "" if x is None or np.isnan(x) else f"{x:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "shared/data")
    parser.add_argument("--more", type=Path, default=ROOT / "shared/data_more")
    parser.add_argument("--per-set", type=int, default=400, help="pairs drawn per set (by group)")
    parser.add_argument("--cross-encoder", type=Path, default=SHIPPED_CROSS_ENCODER)
    parser.add_argument("--json", type=Path, help="write every figure here too")
    parser.add_argument(
        "--scores", type=Path, help="write each set's labels and every model's scores here (npz)"
    )
    parser.add_argument("--write", action="store_true", help="replace the docs section")
    args = parser.parse_args()
    drawn = {
        name: cap(pairs, args.per_set)
        for name, pairs in evaluation_sets(args.data, args.more).items()
    }
    # AUROC needs both classes (a small --per-set can draw one class of a skewed set)
    sets = {name: pairs for name, pairs in drawn.items() if len({p.positive for p in pairs}) == 2}
    cross = PairClassifier(args.cross_encoder)
    figures: dict[str, dict[str, float]] = {}
    labels, task, texts, contra = {}, {}, {}, {}
    feats_v1: dict[str, np.ndarray] = {}
    stack_x: dict[str, np.ndarray] = {}
    decisions: dict[str, dict[str, np.ndarray]] = {}
    scores: dict[str, Scores] = {}
    timing = {"cross-encoder": [0.0, 0], "features-v1": [0.0, 0], "support-stack": [0.0, 0]}
    for name, pairs in sets.items():
        log(f"{name}: {len(pairs)} pairs")
        y = np.array([p.positive for p in pairs], dtype=int)
        labels[name], task[name] = y, pairs[0].task
        texts[name] = {normalized(t) for p in pairs for t in (p.first, p.second)}
        contra[name] = contradiction_labels(pairs)
        s = baselines(pairs)
        started = time.perf_counter()
        v1, v1_contra, v1_decision = head_scores(pairs)
        timing["features-v1"][0] += time.perf_counter() - started
        timing["features-v1"][1] += len(pairs)
        started = time.perf_counter()
        ce, ce_contra, ce_decision, ce_views = cross_scores(cross, pairs)
        elapsed = time.perf_counter() - started
        timing["cross-encoder"][0] += elapsed
        timing["cross-encoder"][1] += len(pairs)
        if pairs[0].task == "support":  # the stack: the cross-encoder, its rows and heads
            started = time.perf_counter()
            stack_x[name] = stack_rows([(p.first, p.second) for p in pairs], ce_views)
            shipped_support_stack().support.probabilities(stack_x[name])
            shipped_support_stack().contradiction.probabilities(stack_x[name])
            timing["support-stack"][0] += elapsed + time.perf_counter() - started
            timing["support-stack"][1] += len(pairs)
        s |= {"features-v1": v1, "cross-encoder": ce}
        scores[name] = s
        decisions[name] = {"features-v1": v1_decision, "cross-encoder": ce_decision}
        feats_v1[name] = feature_rows(pairs)
        figures[name] = {k: auroc(y, v) for k, v in s.items()}
        if contra[name] is not None:
            figures[name]["contradiction:cross-encoder"] = auroc(contra[name], ce_contra)
            figures[name]["contradiction:features-v1"] = auroc(contra[name], v1_contra)
        for k, v in decisions[name].items():
            figures[name][f"bacc:{k}"] = balanced_accuracy(y, v)
        for k in ("cosine", "bm25", "overlap", "length"):
            figures[name][f"bacc-oracle:{k}"] = best_bacc(y, s[k])
    lodo = lodo_logistic(feats_v1, labels, task, list(sets), texts)
    supported, contradicted = lodo_stack(stack_x, labels, contra, task, texts)
    for key, scored in (("features-lodo", lodo), ("stack-lodo", supported)):
        for name, score in scored.items():
            figures[name][key] = auroc(labels[name], score)
            figures[name][f"bacc:{key}"] = balanced_accuracy(
                labels[name], (score >= 0.5).astype(int)
            )
    for name, score in contradicted.items():
        if contra[name] is not None:
            figures[name]["contradiction:stack-lodo"] = auroc(contra[name], score)
    speed = {k: n / t for k, (t, n) in timing.items() if t}
    thresholds = label_threshold_lines({n: (labels[n], v) for n, v in supported.items()})
    section = report(sets, figures, speed, args, thresholds)
    print(section)
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "pairs_per_second": speed}, indent=1))
    if args.scores:  # for choosing label thresholds on the left-out scores
        kept = {f"{n}|labels": labels[n] for n in sets}
        kept |= {f"{n}|{k}": v for n, s in scores.items() for k, v in s.items()}
        kept |= {f"{n}|features-lodo": v for n, v in lodo.items()}
        kept |= {f"{n}|stack-lodo": v for n, v in supported.items()}
        np.savez_compressed(args.scores, **kept)
    if args.write:
        write_section(SECTION, section)


RELEVANCE_SETS = frozenset(n for n, info in ALL_SETS.items() if info.task == "relevance")
DECIDERS = ("features-v1", "features-lodo", "cross-encoder", "stack-lodo")
SCORERS = (
    "cosine",
    "bm25",
    "overlap",
    "length",
    "answer-in-passage",
    "features-v1",
    "features-lodo",
    "cross-encoder",
    "stack-lodo",
)


def fitted(name: str) -> str:
    """How the set relates to the cross-encoder's training."""
    if name.startswith("swap:"):  # generated from the measured part of its source
        base = name.removeprefix("swap:")
        return "never (held aside)" if base in HELD_ASIDE else "never (from held-out groups)"
    base = name.removeprefix("stress:")
    info = ALL_SETS.get(base)
    if info is not None and not info.commercial:
        return "never (licence)"
    if base in HELD_ASIDE:
        return "never (held aside)"
    if name.startswith("stress:") and f"stress:{base}" not in TRAINING_CAPS:
        return "held-out groups (generator)" if base in TRAINING_CAPS else "never"
    return "held-out groups"


def target_lines(figures: dict[str, dict[str, float]], speed: dict[str, float]) -> list[str]:
    """PASS / MISS against the issue's targets, per model, with the figure."""
    relevance = [n for n in figures if n in RELEVANCE_SETS]
    swaps = [n for n in figures if n.startswith("swap:")]
    support = [n for n in figures if n not in relevance and n not in swaps]
    stress = [n for n in support if n.startswith("stress:")]
    labelled = [n for n in support if "contradiction:cross-encoder" in figures[n]]
    natural = [n for n in labelled if not n.startswith("stress:")]
    speeds = {"stack-lodo": "support-stack"}
    out = ["### Targets (per model, the left-out figures above)", ""]

    def mean(names: list[str], key: str) -> float:
        return float(np.mean([figures[n][key] for n in names]))

    def line(model: str, text: str, ok: bool) -> str:
        return f"- {model}: {'PASS' if ok else 'MISS'}: {text}"

    for model in ("features-v1", "cross-encoder"):
        worst_gap = min(figures[n][model] - figures[n]["cosine"] for n in relevance)
        squad = figures["squad_v2"][model]
        out += [
            line(model, f"relevance mean AUROC >= 0.80: {mean(relevance, model):.3f}",
                 mean(relevance, model) >= 0.80),
            line(model, f"relevance: no set below cosine + 0.05 (worst margin {worst_gap:+.3f})",
                 worst_gap >= 0.05),
            line(model, f"SQuAD 2.0 answerable vs not >= 0.78: {squad:.3f}", squad >= 0.78),
            line(model, f"qualifier-swap stress AUROC >= 0.90 (worst "
                 f"{min(figures[n][model] for n in swaps):.3f}, cosine "
                 f"{min(figures[n]['cosine'] for n in swaps):.3f})",
                 min(figures[n][model] for n in swaps) >= 0.90),
        ]  # fmt: skip
    for model in ("features-v1", "cross-encoder", "stack-lodo"):
        trivial = ("cosine", "bm25", "overlap", "length")
        below = [n for n in support if figures[n][model] < max(figures[n][k] for k in trivial)]
        contra = f"contradiction:{model}"
        pairs_per_second = speed.get(speeds.get(model, model), 0.0)
        out += [
            line(model, f"support mean AUROC >= 0.80: {mean(support, model):.3f}",
                 mean(support, model) >= 0.80),
            line(model, "support mean balanced accuracy >= 0.74: "
                 f"{mean(support, f'bacc:{model}'):.3f}", mean(support, f"bacc:{model}") >= 0.74),
            line(model, f"support: no set below its best trivial baseline ({len(below)} below: "
                 f"{', '.join(below) or 'none'})", not below),
            line(model, "answer-swap stress AUROC >= 0.95 "
                 f"(worst {min(figures[n][model] for n in stress):.3f})",
                 min(figures[n][model] for n in stress) >= 0.95),
            line(model, "contradiction vs rest AUROC >= 0.80 where labelled "
                 f"(mean {mean(natural, contra):.3f} on the public sets, "
                 f"{mean(labelled, contra):.3f} with the stress sets)",
                 mean(natural, contra) >= 0.80),
            line(model, f">= 40 pairs/s: {pairs_per_second:.0f}", pairs_per_second >= 40),
        ]  # fmt: skip
    return [*out, ""]


def label_threshold_lines(scored: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[str]:
    """The support label's threshold on the left-out P(supported) of the public support
    sets (``scored``: labels and scores by set): balanced accuracy at the shipped 0.5
    beside the one threshold that keeps the worst set with AUROC >= 0.75 best."""
    public = {n: v for n, v in scored.items() if not n.startswith(("stress:", "swap:"))}
    strong = [n for n, (y, s) in public.items() if auroc(y, s) >= 0.75]
    grid = [round(t, 2) for t in np.arange(0.05, 0.96, 0.01)]

    def bacc(name: str, t: float) -> float:
        y, s = public[name]
        return balanced_accuracy(y, (s >= t).astype(int))

    best = max(grid, key=lambda t: (min(bacc(n, t) for n in strong), t == 0.5))
    lines = [
        "### The support label's threshold (stack-lodo, public sets)",
        "",
        f"Balanced accuracy of `supported` at the shipped threshold 0.5 and at {best:.2f}, the "
        "one threshold that keeps the worst set with AUROC >= 0.75 best (a label a user can "
        "act on must hold across sets, not only rank):",
        "",
        "| set | AUROC | share supported | median P(supported) | at 0.50 | at best common |",
        "|---|---|---|---|---|---|",
    ]
    for n, (y, s) in public.items():
        lines.append(
            f"| {n} | {fmt(auroc(y, s))} | {y.mean():.2f} | {np.median(s):.2f} "
            f"| {fmt(bacc(n, 0.5))} | {fmt(bacc(n, best))} |"
        )
    lines.append("")
    for t in sorted({0.5, best}):
        worst = min(strong, key=lambda n: bacc(n, t))
        mean = float(np.mean([bacc(n, t) for n in public]))
        lines.append(f"- at {t:.2f}: worst of the sets with AUROC >= 0.75 {fmt(bacc(worst, t))} "
                     f"({worst}), mean of all {fmt(mean)}")  # fmt: skip
    return [*lines, ""]


def report(
    sets: dict[str, list[LabeledPair]],
    figures: dict[str, dict[str, float]],
    speed: dict[str, float],
    args: argparse.Namespace,
    thresholds: Sequence[str] = (),
) -> str:
    lines = [
        SECTION,
        "",
        f"`make bench-models` (`python bench/models.py --per-set {args.per_set}`) "
        f"on {os.cpu_count()} cores. "
        "AUROC of the relevant (or supported) class on each set; up to "
        f"{args.per_set} pairs a set, drawn by whole group. `cross-encoder` saw a set "
        "either never or only through the other groups of the same set (column `fitted`); "
        "`*-lodo` heads never saw the set they are measured on. `stack-lodo` is "
        "`assay-support-stack`'s recipe (the default support model: boosted trees over the "
        "cross-encoder and the claim's lexical gaps) fitted without the set; the shipped stack "
        "has seen every commercially usable set, so this column is its figure."
        " `features-v1` are the v1 heads as shipped: they were fitted on SQuAD 2.0 articles, "
        "HaluEval, SciFact and SQuAD perturbations like the stress sets, so their figures on those "
        "are not from unseen data. Stress sets pair a sentence with its paragraph (supported), "
        "with the paragraph with its answer swapped or the sentence negated, and the negated "
        "sentence with the paragraph (contradicted), and with the paragraph without that "
        "sentence (unsupported). Qualifier-swap sets (`swap:`) pair a question with its "
        "answering passage (relevant) and with the question's year, quarter, month, gender or "
        "name changed to one the passage does not state, or the passage's year changed "
        "(irrelevant; `assay.training.qualifier_swaps`). BM25 and overlap are adversarial "
        "baselines where a set's "
        "negatives were chosen by BM25 (BoolQ, PubMedQA, PolicyQA, XQuAD, COVID-QA).",
        "",
    ]
    for kind in ("relevance", "support", "swap"):
        rows = [
            n for n, p in sets.items()
            if n.startswith("swap:") == (kind == "swap") and kind in (p[0].task, "swap")
        ]  # fmt: skip
        if not rows:
            continue
        shown = [s for s in SCORERS if any(s in figures[n] for n in rows)]
        title = {"swap": "Qualifier swaps (the question's year, quarter, month, gender or "
                 "name changed, or the passage's year: relevance must fall)"}  # fmt: skip
        lines += [
            f"### {title.get(kind, kind.capitalize())}",
            "",
            "| set | n | fitted | " + " | ".join(shown) + " |",
            "|---|---|---|" + "---|" * len(shown),
        ]
        for n in rows:
            lines.append(
                f"| {n} | {len(sets[n])} | {fitted(n)} | "
                + " | ".join(fmt(figures[n].get(s)) for s in shown)
                + " |"
            )
        for label, agg in (("mean", np.nanmean), ("worst", np.nanmin)):
            lines.append(
                f"| **{label}** | | | "
                + " | ".join(
                    fmt(float(agg([figures[n].get(s, np.nan) for n in rows])))
                    if any(s in figures[n] for n in rows)
                    else ""
                    for s in shown
                )
                + " |"
            )
        lines.append("")
        lines += [
            "Balanced accuracy of each model's own decision "
            "(baselines: best threshold on the set, an oracle):",
            "",
            "| set | "
            + " | ".join(m for m in DECIDERS if f"bacc:{m}" in figures[rows[0]])
            + " | best baseline (oracle) |",
            "|---|" + "---|" * (1 + sum(f"bacc:{m}" in figures[rows[0]] for m in DECIDERS)),
        ]
        for n in rows:
            f = figures[n]
            oracle = max(f[f"bacc-oracle:{k}"] for k in ("cosine", "bm25", "overlap", "length"))
            decided = [fmt(f[f"bacc:{m}"]) for m in DECIDERS if f"bacc:{m}" in f]
            lines.append(f"| {n} | " + " | ".join(decided) + f" | {fmt(oracle)} |")
        lines.append("")
    rows = [n for n in sets if "contradiction:cross-encoder" in figures[n]]
    lines += [
        "### Contradiction vs the rest (AUROC of P(contradicted))",
        "",
        "| set | features-v1 | cross-encoder | stack-lodo |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {n} | {fmt(figures[n]['contradiction:features-v1'])} "
        f"| {fmt(figures[n]['contradiction:cross-encoder'])} "
        f"| {fmt(figures[n].get('contradiction:stack-lodo'))} |"
        for n in rows
    ]
    lines += [
        "",
        "### Speed",
        "",
        "| model | pairs/s (these sets, windows of 256 tokens) |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v:.1f} |" for k, v in speed.items()]
    lines.append("")
    return "\n".join([*lines, *thresholds, *target_lines(figures, speed)])


if __name__ == "__main__":
    main()
