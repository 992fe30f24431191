"""Synthetic support pairs from SQuAD paragraphs: the contradictions a judge must catch.

The public support datasets teach little about the errors assay most needs to catch
in an answer: a figure, a date or a name changed, or a statement negated, while
every other word still matches the evidence (HaluEval's hallucinations are whole new
answers; SciFact's contradictions are scientific findings reversed). Following the
rule-based transformations of FactCC (Kryscinski et al., EMNLP 2020), each sentence of
a paragraph yields, with the paragraph as evidence:

* ``supported``: the sentence itself, or its first clause;
* ``contradicted``: the sentence with one number changed, one proper name swapped for
  another name from the same article, or a negation inserted after its first
  auxiliary verb;
* ``unsupported``: a sentence from another paragraph of the same article (on topic,
  not stated by the evidence), and, once per paragraph, a sentence of another article
  (off topic: without it, boosted trees score unrelated evidence arbitrarily).

Only paragraphs of the split's articles are used, so the SQuAD split by article holds.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from assay.training.datasets import SupportPair, squad_splits

__all__ = ["perturbation_pairs"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+(?:\s[A-Z][a-z]+)*")
_AUXILIARY = re.compile(r"\b(is|was|are|were|can|could|will|would|has|have|had|did|does)\b")


def _change_number(sentence: str, rng: random.Random) -> str | None:
    numbers = list(_NUMBER.finditer(sentence))
    if not numbers:
        return None
    m = rng.choice(numbers)
    digits = m.group()
    value = float(digits.replace(",", ""))
    factor = rng.choice((0.5, 0.7, 1.3, 2.0, 3.0))
    new = value * factor if value >= 10 else value + rng.choice((1, 2, 3, 5))
    text = f"{new:.0f}" if "." not in digits else f"{new:.1f}"
    if text == digits:
        return None
    return sentence[: m.start()] + text + sentence[m.end() :]


def _swap_name(sentence: str, names: list[str], rng: random.Random) -> str | None:
    present = list(_NAME.finditer(sentence))
    if not present:
        return None
    m = rng.choice(present)
    choices = [n for n in names if n.lower() not in sentence.lower()]
    if not choices:
        return None
    return sentence[: m.start()] + rng.choice(choices) + sentence[m.end() :]


def _negate(sentence: str) -> str | None:
    m = _AUXILIARY.search(sentence)
    if m is None or re.search(r"\bnot\b|n't", sentence):
        return None
    return sentence[: m.end()] + " not" + sentence[m.end() :]


def perturbation_pairs(
    path: str | Path, split: str, *, per_paragraph: int = 2, seed: int = 13
) -> list[SupportPair]:
    """Synthetic (claim, paragraph) pairs of the split's SQuAD articles; see the module."""
    titles = set(squad_splits(path)[split])
    rng = random.Random(seed)
    pairs: list[SupportPair] = []
    articles = [a for a in json.loads(Path(path).read_text(encoding="utf-8"))["data"]]
    all_sentences = {
        a["title"]: [s for p in a["paragraphs"] for s in _SENTENCE.split(p["context"])]
        for a in articles
        if a["title"] in titles
    }
    for article in articles:
        if article["title"] not in titles:
            continue
        paragraphs = [p["context"] for p in article["paragraphs"]]
        sentences = [[s for s in _SENTENCE.split(p) if len(s.split()) >= 6] for p in paragraphs]
        names = sorted({m.group() for p in paragraphs for m in _NAME.finditer(p)})
        elsewhere = [t for t in all_sentences if t != article["title"]]
        for i, paragraph in enumerate(paragraphs):
            others = [s for j, group in enumerate(sentences) if j != i for s in group]
            if elsewhere:
                unrelated = rng.choice(all_sentences[rng.choice(elsewhere)])
                pairs.append(
                    SupportPair(
                        unrelated, paragraph, "unsupported", "squad-perturbed", article["title"]
                    )
                )
            for sentence in rng.sample(sentences[i], min(per_paragraph, len(sentences[i]))):
                first_clause = sentence.split(", ")[0].rstrip(".")
                short = len(first_clause.split()) < 5 or rng.random() < 0.5
                edits = [
                    e
                    for e in (
                        _change_number(sentence, rng),
                        _swap_name(sentence, names, rng),
                        _negate(sentence),
                    )
                    if e is not None
                ]
                claims = {
                    "supported": sentence if short else first_clause + ".",
                    "contradicted": rng.choice(edits) if edits else None,
                    "unsupported": rng.choice(others) if others else None,
                }
                pairs += [
                    SupportPair(claim, paragraph, label, "squad-perturbed", article["title"])
                    for label, claim in claims.items()
                    if claim is not None
                ]
    return pairs
