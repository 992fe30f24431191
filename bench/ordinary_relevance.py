"""Relevance on the ordinary-documents suite, chunk by chunk, as users' questions meet it.

The public sets of ``bench/models.py`` pair questions with Wikipedia paragraphs, papers
and policies written for QA datasets. The ordinary suite (``bench/ordinary``) is what
users write: data sheets, policies with an older version, forum posts, under headings.
Each knowledge base is ingested as ``ask`` sees it; for every answerable question, each
chunk is scored as ``ask`` scores it (title path and text) and counts as relevant when
it holds a gold answer. Printed per model: AUROC over all (question, chunk) pairs, the
mean AUROC within a question, and how often a relevant chunk is ranked first.

    python bench/ordinary_relevance.py [--cross-encoder DIR ...]

None of these models was fitted to the suite; the suite is small (about 160 questions),
so differences of a few points are noise.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from answers import ORDINARY

from assay.calibration.scored import contains_gold
from assay.ingest.pipeline import embedding_text
from assay.models.embedder import get_embedder
from assay.models.pair_classifier import PairClassifier
from assay.models.relevance import get_relevance_model
from assay.training.ordinary_kbs import build, knowledge_bases
from assay.training.ordinary_pairs import ranking_figures


def chunk_texts(engine: object) -> list[tuple[str, str]]:
    """(text as scored, plain text) of every chunk of the engine's knowledge base."""
    store = engine.store  # type: ignore[attr-defined]
    vector = engine.embedder.embed(["all"])  # type: ignore[attr-defined]
    chunks = store.get([h.chunk_id for h in store.dense_search(vector, 100_000)])
    return [(embedding_text(c), c.text) for c in chunks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cross-encoder", type=Path, nargs="*", default=[], help="more cross-encoder folders"
    )
    parser.add_argument(
        "--plain", action="store_true", help="score the chunk's text alone, without its title path"
    )
    args = parser.parse_args()
    embedder = get_embedder("minilm")
    models = {
        "assay-relevance (v1)": get_relevance_model("assay-relevance").score,
        "assay-relevance-ce (this checkout)": get_relevance_model("assay-relevance-ce").score,
    }
    for folder in args.cross_encoder:
        model = PairClassifier(folder)
        models[f"cross-encoder {folder.name}"] = lambda q, ps, m=model: [
            r.relevant for r in m.score([(q, p) for p in ps])
        ]

    def cosine(question: str, passages: list[str]) -> list[float]:
        q, *ps = embedder.embed([question, *passages])
        return [float(np.dot(q, p)) for p in ps]

    models = {"cosine": cosine, **models}
    labels: list[np.ndarray] = []
    scores: dict[str, list[np.ndarray]] = {name: [] for name in models}
    for kb in knowledge_bases(ORDINARY):
        with tempfile.TemporaryDirectory(prefix="assay-relevance-") as tmp:
            engine = build(kb, Path(tmp))
            chunks = chunk_texts(engine)
            engine.close()
        if args.plain:
            chunks = [(plain, plain) for _, plain in chunks]
        for q in kb.questions:
            if q["type"] == "unanswerable":
                continue
            y = np.array([contains_gold(plain, q["answers"]) for _, plain in chunks], dtype=int)
            if y.min() == y.max():
                continue
            labels.append(y)
            for name, score in models.items():
                scores[name].append(np.array(score(q["question"], [t for t, _ in chunks])))
    pairs = sum(len(y) for y in labels)
    print(f"{len(labels)} answerable questions, {pairs} (question, chunk) pairs")
    print("| model | AUROC, all pairs | AUROC within a question (mean) | relevant chunk first |")
    print("|---|---|---|---|")
    y_all = np.concatenate(labels)
    asked = [i for i, y in enumerate(labels) for _ in y]  # the question of each pair
    for name, per_question in scores.items():
        f = ranking_figures(asked, y_all, np.concatenate(per_question))
        print(
            f"| {name} | {f['all_pairs_auroc']:.3f} | {f['within_question_auroc']:.3f} "
            f"| {f['relevant_first']:.0%} |"
        )


if __name__ == "__main__":
    main()
