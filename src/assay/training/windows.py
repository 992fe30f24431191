"""Relevance pairs on short passages: SQuAD questions against windows of their paragraph.

A knowledge base's chunks are often a sentence or three, SQuAD's paragraphs five to
ten. A head trained on paragraphs alone has never seen a short passage and scores
one arbitrarily (a three-sentence chunk that states the answer scored 0.08). Each
question of the split's articles therefore also gets, as task ``"w"``, a window of one
to three consecutive sentences of its own paragraph, centred on the sentence that
shares the most words with the question (chosen the same way whether or not the
question is answerable, so the choice itself carries no label). The label is 1 only
if the question is answerable *and* one of its gold answers lies inside the window.

:func:`off_topic_pairs` adds easy negatives from other articles (task ``"o"``).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from assay.training.bm25 import tokenize
from assay.training.datasets import RelevancePair, squad_splits

__all__ = ["off_topic_pairs", "window_pairs"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")


def window_pairs(path: str | Path, split: str, *, seed: int = 13) -> list[RelevancePair]:
    """Task-``"w"`` pairs of the split's SQuAD articles; see the module docstring."""
    titles = set(squad_splits(path)[split])
    rng = random.Random(seed)
    pairs: list[RelevancePair] = []
    for article in json.loads(Path(path).read_text(encoding="utf-8"))["data"]:
        if article["title"] not in titles:
            continue
        for paragraph in article["paragraphs"]:
            sentences = _SENTENCE.split(paragraph["context"])
            words = [set(tokenize(s)) for s in sentences]
            for qa in paragraph["qas"]:
                asked = set(tokenize(qa["question"]))
                best = max(range(len(sentences)), key=lambda i: (len(asked & words[i]), -i))
                size = rng.choice((1, 2, 3))
                start = max(0, min(best - rng.randrange(size), len(sentences) - size))
                window = " ".join(sentences[start : start + size])
                answers = [a["text"] for a in qa.get("answers", []) if a.get("text")]
                label = int(not qa["is_impossible"] and any(a in window for a in answers))
                pairs.append(RelevancePair(qa["question"], window, label, "w", article["title"]))
    return pairs


def off_topic_pairs(pairs: list[RelevancePair], *, seed: int = 13) -> list[RelevancePair]:
    """Task ``"o"``: each answerable question against a paragraph of another article.

    Hard negatives alone leave a head no example of a passage that shares nothing with
    the question, and boosted trees then score such passages arbitrarily.
    """
    rng = random.Random(seed)
    by_article: dict[str, list[str]] = {}
    for p in pairs:
        if p.task == "a":
            by_article.setdefault(p.group, []).append(p.passage)
    out = []
    for p in pairs:
        others = [a for a in by_article if a != p.group]
        if p.task == "a" and p.label == 1 and others:
            passage = rng.choice(by_article[rng.choice(others)])
            out.append(RelevancePair(p.query, passage, 0, "o", p.group))
    return out
