"""Generated stress pairs: a passage whose answer is swapped or negated must lose support.

A support model can learn "the claim's words are in the evidence" and score well on
most sets; it then backs a claim against a passage that states a different figure,
name or date. From span-QA data (a question, its answer, the paragraph holding it),
each answerable question gives, with the sentence holding the answer as the claim:

* ``supported``: the claim against its own paragraph (``kind="verbatim"``), and the
  question with its answer appended against the paragraph (``kind="reworded"``: other
  words, same fact);
* ``contradicted``: the same claim against the paragraph with the answer replaced by
  another answer of the same article and type, a number for a number, a capitalised
  name for a name (``kind="answer_swap"``), or with the sentence negated
  (``kind="negated"``); and the negated sentence against the paragraph as it is
  (``kind="negated_claim"``);
* ``unsupported``: the claim against its paragraph without the claim's sentence, where
  the rest does not hold the answer either (``kind="removed"``): on topic, with other
  figures and names, but stating nothing about the claim, which is not a contradiction.

``dataset`` is ``stress:<source>`` so a report keeps sources apart.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from assay.training.pairsets import SENTENCE, LabeledPair, normalized

__all__ = ["stress_pairs"]

_AUXILIARY = re.compile(r"\b(is|was|are|were|can|could|will|would|has|have|had|did|does|do)\b")
_DIGITS = re.compile(r"\d")
_WHOLE_PAPER, _WINDOW = 1000, 200


def _kind(answer: str) -> str:
    if _DIGITS.search(answer):
        return "number"
    return "name" if answer[:1].isupper() else "phrase"


def _negate(sentence: str) -> str | None:
    m = _AUXILIARY.search(sentence)
    if m is None or re.search(r"\bnot\b|n't|\bnever\b|\bno\b", sentence):
        return None
    return sentence[: m.end()] + " not" + sentence[m.end() :]


def _sentence_with(context: str, start: int) -> str | None:
    offset = 0
    for sentence in SENTENCE.split(context):
        begin = context.find(sentence, offset)
        end = begin + len(sentence)
        offset = end
        if begin <= start < end:
            return sentence if len(sentence.split()) >= 5 else None
    return None


def _around(context: str, sentence: str) -> str:
    """``context`` itself, or for a whole paper (over 1,000 words: a COVID-QA "paragraph")
    the sentences around ``sentence`` up to about 200 words, as a retriever would give."""
    if len(context.split()) <= _WHOLE_PAPER:
        return context
    sentences = SENTENCE.split(context)
    at = sentences.index(sentence) if sentence in sentences else 0
    lo, hi = at, at + 1
    while (lo > 0 or hi < len(sentences)) and len(" ".join(sentences[lo:hi]).split()) < _WINDOW:
        lo, hi = max(0, lo - 1), min(len(sentences), hi + 1)
    return " ".join(sentences[lo:hi])


def stress_pairs(
    file: Path, source: str, *, groups: set[str] | None = None, seed: int = 13
) -> list[LabeledPair]:
    """Stress pairs from a SQuAD-format ``file``; ``groups`` keeps only those articles."""
    raw = json.loads(file.read_text(encoding="utf-8"))
    rng = random.Random(seed)
    dataset = f"stress:{source}"
    pairs: list[LabeledPair] = []
    for article in raw["data"]:
        paragraphs: list[dict[str, Any]] = article["paragraphs"]
        title = str(article.get("title") or normalized(paragraphs[0]["context"])[:80])
        if groups is not None and title not in groups:
            continue
        answers = [
            str(a["text"]).strip()
            for p in paragraphs
            for q in p["qas"]
            for a in q.get("answers", [])[:1]
        ]
        for paragraph in paragraphs:
            context = str(paragraph["context"])
            for q in paragraph["qas"]:
                if q.get("is_impossible") or not q.get("answers"):
                    continue
                answer = str(q["answers"][0]["text"]).strip()
                start = context.find(answer)
                sentence = _sentence_with(context, start) if answer and start >= 0 else None
                if sentence is None or answer not in sentence:
                    continue
                context = _around(context, sentence)

                reworded = f"{q['question'].strip()} {answer}"
                made = [(sentence, context, "supported", "verbatim"),
                        (reworded, context, "supported", "reworded")]  # fmt: skip
                same_type = [
                    a for a in answers
                    if a != answer and _kind(a) == _kind(answer)
                    and a not in sentence and answer not in a
                ]  # fmt: skip
                if same_type:
                    swapped = context.replace(answer, rng.choice(same_type))
                    made += [(sentence, swapped, "contradicted", "answer_swap"),
                             (reworded, swapped, "contradicted", "answer_swap")]  # fmt: skip
                rest = context.replace(sentence, " ").strip()
                if len(rest.split()) >= 20 and answer not in rest:
                    made.append((sentence, rest, "unsupported", "removed"))
                negated = _negate(sentence)
                if negated is not None:
                    made += [(sentence, context.replace(sentence, negated), "contradicted",
                              "negated"),
                             (negated, context, "contradicted", "negated_claim")]  # fmt: skip
                pairs += [
                    LabeledPair(dataset, "support", claim, evidence, label, title, answer, kind)
                    for claim, evidence, label, kind in made
                ]
    return pairs
