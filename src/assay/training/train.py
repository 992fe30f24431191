"""Train, measure and ship assay's relevance and support heads: ``make train-models``.

Approach (chosen by measurement, see docs/benchmarks.md): frozen MiniLM token vectors
and lexical evidence (:mod:`assay.models.features`) feed a small head, logistic
regression or gradient-boosted trees exported to numpy
(:class:`~assay.models.head.TreeHead`), whichever wins on the validation split. In
release 1.0.0 logistic regression won for relevance, and trees for support (by about
0.04 AUROC: its training sets disagree on what overlap means, and a linear head cannot
serve both). The winning setting is refitted on train + validation. Four heads come out:

* ``relevance``: does the passage answer the question? SQuAD 2.0, split by article;
  answerable question + own paragraph positive; unanswerable question + own paragraph
  and two BM25-retrieved other paragraphs negative. Balanced class weights, so 0.5 is
  the equal-error point.
* ``support``: supported / contradicted / unsupported, from SciFact claims with their
  rationale sentences, HaluEval QA *length-matched* (so answer length, 2 words right
  and 11 hallucinated, cannot be learned as a shortcut), and FactCC-style perturbed
  sentences of SQuAD training articles (:mod:`assay.training.perturb`).
* ``relevance-lexical`` and ``support-lexical``: the same in lexical mode (no network).

Every figure is printed and written to ``metrics.json``; test splits are never used
for fitting or for choosing anything. Needs the ``[train]`` extra (scikit-learn).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.metrics import auroc, balanced_accuracy
from assay.models.embedder import MiniLMEmbedder
from assay.models.encodings import EncodingCache
from assay.models.features import FEATURE_NAMES, LEXICAL_FEATURES, pair_features
from assay.models.head import Head, LinearHead, TreeHead, save_head
from assay.models.pairs import PairScorer
from assay.training.card import write_model_card
from assay.training.datasets import (
    RelevancePair,
    SupportPair,
    halueval_pairs,
    relevance_pairs,
    scifact_pairs,
)
from assay.training.perturb import perturbation_pairs
from assay.training.windows import off_topic_pairs, window_pairs

Floats = npt.NDArray[np.float64]
VERSION = "1.0.0"
#: each head's version by task: relevance 1.1.0 reads a question's own figures (a "7-hour
#: flight") as answered by a passage's bound ("longer than 6 hours"), not as missing
VERSIONS = {"relevance": "1.1.0", "support": VERSION}
SEED = 13


def log(message: str) -> None:
    """One progress line on stdout, flushed (the run is long and often watched)."""
    print(message, flush=True)


def idf_table(texts: Sequence[str], tokenizer: MiniLMEmbedder) -> Floats:
    """Smoothed inverse document frequency of every MiniLM word piece over ``texts``."""
    df = np.zeros(30522, dtype=np.float64)
    for windows in tokenizer.token_windows(list(texts)):
        df[np.unique(np.concatenate([w.ids for w in windows]))] += 1
    return np.log((len(texts) + 1) / (df + 0.5))


def featurize(
    pairs: Sequence[tuple[str, str]],
    encoder: MiniLMEmbedder | None,
    idf: Floats,
    *,
    question: bool = False,
) -> Floats:
    """Feature rows of the first window of each pair (all :data:`FEATURE_NAMES`); the
    first texts are questions when ``question`` (:func:`pair_features`)."""
    placeholder = LinearHead(
        "placeholder", "0", FEATURE_NAMES, ("no", "yes"), np.zeros(1), np.ones(1),
        np.zeros((1, 1)), np.zeros(1), idf, {},
    )  # fmt: skip
    cache = EncodingCache(memory_bytes=2**40)  # every text of the set, as the run time keeps them
    scorer = PairScorer(placeholder, encoder, positive="yes", cache=cache)
    texts = sorted({t for pair in pairs for t in pair})
    views = dict(zip(texts, scorer.views(texts), strict=True))
    return np.asarray(
        [pair_features(views[a][0], views[b][0], idf, question=question) for a, b in pairs]
    )


GRID: tuple[dict[str, Any], ...] = (
    {"kind": "linear", "C": 0.3},
    {"kind": "trees", "max_iter": 200, "learning_rate": 0.1},
    {"kind": "trees", "max_iter": 400, "learning_rate": 0.05},
)


def export_trees(
    model: Any,
    name: str,
    columns: Sequence[str],
    idf: Floats,
    info: dict[str, Any],
    version: str = VERSION,
) -> TreeHead:
    """A fitted ``HistGradientBoostingClassifier`` as a numpy :class:`TreeHead`."""
    trees = [(k, p.nodes) for stage in model._predictors for k, p in enumerate(stage)]
    width = max(len(nodes) for _, nodes in trees)
    shape = (len(trees), width)
    own = np.tile(np.arange(width), (len(trees), 1))
    feature, left, right = np.zeros(shape, np.int64), own.copy(), own.copy()
    threshold, value = np.full(shape, np.inf), np.zeros(shape)
    for t, (_, nodes) in enumerate(trees):
        n = len(nodes)
        inner = ~nodes["is_leaf"].astype(bool)
        feature[t, :n] = np.where(inner, nodes["feature_idx"], 0)
        threshold[t, :n] = np.where(inner, nodes["num_threshold"], np.inf)
        left[t, :n] = np.where(inner, nodes["left"], np.arange(n))
        right[t, :n] = np.where(inner, nodes["right"], np.arange(n))
        value[t, :n] = np.where(inner, 0.0, nodes["value"])
    depth = max(int(nodes["depth"].max()) for _, nodes in trees) + 1
    return TreeHead(
        name, version, tuple(columns), tuple(str(c) for c in model.classes_),
        np.asarray(model._baseline_prediction, dtype=np.float64).reshape(-1),
        feature, threshold, left, right, value,
        np.asarray([k for k, _ in trees], dtype=np.int64), idf, {**info, "depth": depth},
    )  # fmt: skip


def fit_head(
    name: str,
    data: dict[str, tuple[Floats, list[str]]],
    columns: Sequence[str],
    idf: Floats,
    choose: Callable[[Head], float],
    info: dict[str, Any],
) -> tuple[Head, Head]:
    """The setting of :data:`GRID` (logistic regression or boosted trees on ``columns``)
    that maximises ``choose`` on validation, refitted on train + validation. ``data``
    maps split to (x, labels).

    Returns (the refitted head, the train-only head that won on validation); thresholds
    are picked with the latter, which has not seen the validation split.
    """
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    index = [FEATURE_NAMES.index(c) for c in columns]
    version = VERSIONS[info["task"]]

    def fit(x: Floats, y: list[str], setting: dict[str, Any]) -> Head:
        options = {k: v for k, v in setting.items() if k != "kind"}
        xs = x[:, index]
        head: Head
        if setting["kind"] == "linear":
            mean, scale = xs.mean(axis=0), xs.std(axis=0)
            scale[scale == 0] = 1.0
            model = LogisticRegression(**options, class_weight="balanced", max_iter=5000)
            model.fit((xs - mean) / scale, y)
            head = LinearHead(
                name, version, tuple(columns), tuple(str(c) for c in model.classes_), mean,
                scale, np.asarray(model.coef_, dtype=np.float64),
                np.asarray(model.intercept_, dtype=np.float64), idf, {**info, **setting},
            )  # fmt: skip
            reference = model.predict_proba((xs[:200] - mean) / scale)
        else:
            model = HistGradientBoostingClassifier(
                **options, min_samples_leaf=40, l2_regularization=1.0, class_weight="balanced",
                early_stopping=False, random_state=SEED,
            )  # fmt: skip
            model.fit(xs, y)
            head = export_trees(model, name, columns, idf, {**info, **setting}, version)
            reference = model.predict_proba(xs[:200])
        assert np.allclose(head.probabilities(xs[:200]), reference, atol=1e-9)
        return head

    best: tuple[float, dict[str, Any], Head] | None = None
    for setting in GRID:
        head = fit(*data["train"], setting)
        quality = choose(head)
        log(f"  {name} {setting}: validation {quality:.4f}")
        if best is None or quality > best[0]:
            best = (quality, setting, head)
    assert best is not None
    x = np.vstack([data["train"][0], data["validation"][0]])
    return fit(x, data["train"][1] + data["validation"][1], best[1]), best[2]


def positive_probability(head: Head, x: Floats, positive: str) -> Floats:
    """The head's probability of ``positive`` for every row of full feature matrix ``x``."""
    index = [FEATURE_NAMES.index(c) for c in head.features]
    p: Floats = head.probabilities(x[:, index])[:, head.classes.index(positive)]
    return p


def relevance_report(
    split: dict[str, Any], scores: dict[str, Floats]
) -> dict[str, dict[str, float]]:
    """AUROC on task a (answerable vs not, own paragraph) and b (own vs BM25 other)."""
    y, task = split["y"], split["task"]
    a, w = task == "a", task == "w"
    b = (task == "b") | (a & (y == 1))
    return {
        name: {
            "task_a_auroc": auroc(y[a], s[a]),
            "task_b_auroc": auroc(y[b], s[b]),
            "task_w_auroc": auroc(y[w], s[w]),
        }
        for name, s in scores.items()
    }


def best_threshold(y: npt.NDArray[np.int64], score: Floats, sources: npt.NDArray[np.str_]) -> float:
    """The cut on ``score`` with the best balanced accuracy, averaged over the data
    ``sources`` so that the largest validation set does not set it alone."""
    cuts = np.unique(np.round(score, 3))
    names = np.unique(sources)

    def mean_accuracy(cut: float) -> float:
        predicted = (score >= cut).astype(np.int64)
        return float(
            np.mean([balanced_accuracy(y[sources == n], predicted[sources == n]) for n in names])
        )

    return float(cuts[int(np.argmax([mean_accuracy(c) for c in cuts]))])


def train_relevance(
    rel: dict[str, list[RelevancePair]], mode: str, encoder: MiniLMEmbedder | None, idf: Floats
) -> tuple[Head, dict[str, Any]]:
    """The relevance head of ``mode`` and its test figures beside the baselines."""
    suffix = "" if mode == "neural" else "-lexical"
    t0 = time.monotonic()
    r = {
        s: {
            "x": featurize([(p.query, p.passage) for p in pairs], encoder, idf, question=True),
            "y": np.asarray([p.label for p in pairs]),
            "task": np.asarray([p.task for p in pairs]),
        }
        for s, pairs in rel.items()
    }
    log(f"[{mode}] relevance features: {time.monotonic() - t0:.0f} s")

    def choose(head: Head, v: dict[str, Any] = r["validation"]) -> float:
        report = relevance_report(v, {"h": positive_probability(head, v["x"], "relevant")})["h"]
        return report["task_a_auroc"] + report["task_b_auroc"] + report["task_w_auroc"]

    data = {
        s: (r[s]["x"], ["relevant" if v else "not_relevant" for v in r[s]["y"]])
        for s in ("train", "validation")
    }
    head, _ = fit_head(
        f"assay-relevance{suffix}", data, FEATURE_NAMES if mode == "neural" else LEXICAL_FEATURES,
        idf, choose, {"task": "relevance", "mode": mode},
    )  # fmt: skip
    test = r["test"]
    scores = {"head": positive_probability(head, test["x"], "relevant")}
    if mode == "neural":
        scores["cosine"] = test["x"][:, FEATURE_NAMES.index("pooled_cosine")]
    scores["bm25"] = test["x"][:, FEATURE_NAMES.index("bm25")]
    return head, relevance_report(test, scores)


def train_support(
    sets: dict[str, list[SupportPair]], mode: str, encoder: MiniLMEmbedder | None, idf: Floats
) -> tuple[Head, dict[str, Any]]:
    """The support head of ``mode`` (train / validation in ``sets``) and its test figures."""
    suffix = "" if mode == "neural" else "-lexical"
    t0 = time.monotonic()
    x = {k: featurize([(p.claim, p.evidence) for p in v], encoder, idf) for k, v in sets.items()}
    log(f"[{mode}] support features: {time.monotonic() - t0:.0f} s")
    supported = {
        k: np.asarray([p.label == "supported" for p in v], dtype=np.int64) for k, v in sets.items()
    }

    def choose(head: Head) -> float:
        return auroc(
            supported["validation"], positive_probability(head, x["validation"], "supported")
        )

    data = {s: (x[s], [p.label for p in sets[s]]) for s in ("train", "validation")}
    head, validated = fit_head(
        f"assay-support{suffix}", data, FEATURE_NAMES if mode == "neural" else LEXICAL_FEATURES,
        idf, choose, {"task": "support", "mode": mode},
    )  # fmt: skip
    cut = best_threshold(
        supported["validation"],
        positive_probability(validated, x["validation"], "supported"),
        np.asarray([p.source for p in sets["validation"]]),
    )
    head.info["supported_threshold"] = cut
    report: dict[str, Any] = {"threshold": cut}
    index = [FEATURE_NAMES.index(c) for c in head.features]
    for k in sets:
        if k in ("train", "validation"):
            continue
        y, p = supported[k], positive_probability(head, x[k], "supported")
        labels = np.asarray([q.label for q in sets[k]])
        predicted = np.asarray(
            [head.classes[i] for i in head.probabilities(x[k][:, index]).argmax(axis=1)]
        )
        entry = {
            "auroc": auroc(y, p),
            "balanced_accuracy": balanced_accuracy(y, (p >= cut).astype(np.int64)),
            "three_way_balanced_accuracy": balanced_accuracy(labels, predicted),
            "bm25_auroc": auroc(y, x[k][:, FEATURE_NAMES.index("bm25")]),
        }
        if mode == "neural":
            entry["cosine_auroc"] = auroc(y, x[k][:, FEATURE_NAMES.index("pooled_cosine")])
        if k.startswith("halueval"):
            entry["length_only_auroc"] = auroc(y, -np.asarray([q.answer_words for q in sets[k]]))
        report[k] = entry
    return head, report


def main(argv: Sequence[str] | None = None) -> int:
    """Build the pairs, fit the heads, print and write the figures, ship the heads."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="folder of the public datasets")
    parser.add_argument("--out", type=Path, required=True, help="where the heads are written")
    args = parser.parse_args(argv)
    started = time.monotonic()
    data: Path = args.data
    squad = data / "squad_v2_dev" / "dev-v2.0.reconstructed.json"
    halueval = data / "halueval" / "qa_data.json"
    claims = data / "scifact_train" / "claims_train.jsonl"
    corpus = data / "scifact_train" / "corpus.jsonl"
    splits = ("train", "validation", "test")
    rel = {s: relevance_pairs(squad, s, seed=SEED) for s in splits}
    rel = {
        s: pairs + off_topic_pairs(pairs, seed=SEED) + window_pairs(squad, s, seed=SEED)
        for s, pairs in rel.items()
    }
    halu = {s: halueval_pairs(halueval, s, seed=SEED) for s in splits}
    matched = {s: halueval_pairs(halueval, s, seed=SEED, length_matched=True) for s in splits}
    sci = {s: scifact_pairs(claims, corpus, s, seed=SEED) for s in splits}
    syn = {s: perturbation_pairs(squad, s, seed=SEED) for s in splits}
    support_sets = {
        "train": matched["train"] + sci["train"] + syn["train"],
        "validation": matched["validation"] + sci["validation"] + syn["validation"],
        "halueval_test": halu["test"],
        "halueval_matched_test": matched["test"],
        "scifact_test": sci["test"],
        "squad_perturbed_test": syn["test"],
    }
    embedder = MiniLMEmbedder()
    background = sorted(
        {p.passage for p in rel["train"]}
        | {p.evidence for p in halu["train"]}
        | {p.evidence for p in sci["train"]}
    )
    idf = idf_table(background, embedder)
    log(f"IDF over {len(background)} training texts ({time.monotonic() - started:.0f} s)")

    metrics: dict[str, Any] = {"version": VERSION, "versions": VERSIONS, "seed": SEED}
    heads: list[Head] = []
    for mode, encoder in (("neural", embedder), ("lexical", None)):
        suffix = "" if mode == "neural" else "-lexical"
        relevance, metrics[f"relevance{suffix}"] = train_relevance(rel, mode, encoder, idf)
        support, metrics[f"support{suffix}"] = train_support(support_sets, mode, encoder, idf)
        heads += [relevance, support]

    args.out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"version": VERSION, "models": {}}
    for head in heads:
        file = f"{head.name}.npz"
        digest = save_head(head, args.out / file)
        manifest["models"][head.name] = {"file": file, "sha256": digest, "version": head.version}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    metrics["seconds"] = round(time.monotonic() - started)
    (args.out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    write_model_card(args.out / "MODEL_CARD.md", metrics)
    log(json.dumps(metrics, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
