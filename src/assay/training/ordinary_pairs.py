"""Question-chunk pairs from the ordinary-documents suites, for the teacher to label.

The answerability sets pair a question with the paragraph a dataset wrote it for. What
the relevance models read worst is what users write: data sheets, policies beside their
older version, forum posts, cut into chunks under headings, asked in the user's own
words (``bench/ordinary``: a passage holding the answer gets 0.3-0.5 from the default
model). Whether the teacher reads those better than the students is the first thing to
know before it teaches there, and its P(yes) says more than the string match that gives
them a gold label here.

Each knowledge base of a suite is built as ``ask`` sees it
(:func:`~assay.training.ordinary_kbs.build`); every question is paired with the
:data:`NEAREST` chunks of its knowledge base nearest to it (the candidates retrieval
hands on: on-topic chunks, another version's, the forum's), each as it is scored (title
path, then text). A pair counts as relevant when the question is answerable and the
chunk holds one of its gold answers (a match that misses an answer worded otherwise and
takes a figure stated for another purpose); disagreement questions are answered by the
official source, so a forum chunk stating the other figure counts as not relevant.

``ordinary_fit`` (``labels/ordinary-fit``, written for fitting) may teach a student;
``ordinary`` (``bench/ordinary``) is held aside and only measures. A label is keyed by
the pair's texts (:func:`~assay.training.teach.pair_id`): when chunking changes, the
changed chunks' labels no longer match and are asked again.
"""

from __future__ import annotations

import tempfile
from collections.abc import Hashable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.calibration.scored import contains_gold
from assay.documents import Chunk
from assay.ingest.pipeline import embedding_text
from assay.metrics import auroc
from assay.training.ordinary_kbs import FIT_SUITE, OrdinaryKB, build, knowledge_bases
from assay.training.pairsets import LabeledPair

__all__ = [
    "HELD_OUT_SUITE", "MEASURING_ONLY", "NEAREST", "ORDINARY_SUITES", "nearest_chunks",
    "ordinary_pairs", "ranking_figures",
]  # fmt: skip

#: the suite that measures what users get (never fitted to)
HELD_OUT_SUITE = FIT_SUITE.parents[1] / "bench" / "ordinary"
#: set name -> suite folder
ORDINARY_SUITES = {"ordinary_fit": FIT_SUITE, "ordinary": HELD_OUT_SUITE}
#: the suites no model is fitted to: their labels only measure
MEASURING_ONLY = frozenset({"ordinary"})
#: chunks paired with each question: the nearest by the embedder, as retrieval ranks them
NEAREST = 8


def nearest_chunks(
    suite: Path, k: int = NEAREST
) -> Iterator[tuple[OrdinaryKB, dict[str, Any], list[Chunk]]]:
    """Every question of ``suite`` with the ``k`` chunks of its knowledge base nearest to
    it by the embedder, nearest first, each knowledge base built as ``ask`` sees it."""
    for kb in knowledge_bases(suite):
        with tempfile.TemporaryDirectory(prefix="assay-ordinary-") as tmp:
            engine = build(kb, Path(tmp))
            try:
                vectors = engine.embedder.embed([q["question"] for q in kb.questions])
                for q, vector in zip(kb.questions, vectors, strict=True):
                    hits = engine.store.dense_search(vector[None, :], k)
                    by_id = {c.id: c for c in engine.store.get([h.chunk_id for h in hits])}
                    yield kb, q, [by_id[h.chunk_id] for h in hits if h.chunk_id in by_id]
            finally:
                engine.close()


def ordinary_pairs(dataset: str, suite: Path) -> list[LabeledPair]:
    """Every question of ``suite`` paired with its :data:`NEAREST` chunks, as set
    ``dataset``; ``kind`` is the question's type (direct, paraphrase, unanswerable,
    disagreement), ``group`` its knowledge base."""
    pairs: list[LabeledPair] = []
    for kb, q, chunks in nearest_chunks(suite):
        answerable = q["type"] != "unanswerable"
        for chunk in chunks:
            relevant = answerable and contains_gold(chunk.text, q["answers"])
            label = "relevant" if relevant else "irrelevant"
            pair = LabeledPair(
                dataset, "relevance", q["question"], embedding_text(chunk), label,
                kb.name, answer=(q["answers"] or [""])[0], kind=q["type"],
            )  # fmt: skip
            pairs.append(pair)
    return pairs


def ranking_figures(
    questions: Sequence[Hashable], y: npt.NDArray[np.int64], scores: npt.NDArray[np.float64]
) -> dict[str, float]:
    """How ``scores`` rank the chunks of each question (``questions``, one per pair,
    labelled ``y``): AUROC over all pairs, mean AUROC within a question, and the share of
    questions (with relevant and other chunks) whose best-scored chunk is relevant."""
    by: dict[Hashable, list[tuple[int, float]]] = {}
    for q, label, s in zip(questions, y, scores, strict=True):
        by.setdefault(q, []).append((int(label), float(s)))
    within, first = [], []
    for pairs in by.values():
        labels = np.array([label for label, _ in pairs])
        if 0 < labels.sum() < len(labels):
            s = np.array([score for _, score in pairs])
            within.append(auroc(labels, s))
            first.append(float(labels[int(np.argmax(s))]))
    return {
        "all_pairs_auroc": auroc(y, scores),
        "within_question_auroc": float(np.mean(within)),
        "relevant_first": float(np.mean(first)),
    }
