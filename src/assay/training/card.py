"""The model card of the shipped heads, written by every training run from its own figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

_INTRO = """\
# Model card: assay-relevance {versions[relevance]} and assay-support {versions[support]}

Written by `make train-models` (`python -m assay.training.train`, seed {seed}, {seconds} s on
2 CPU cores); the figures below are that run's, on test splits never used for fitting or
for choosing anything. `manifest.json` holds each file's sha256, checked at every load.

## What they are
Small heads over features of a text pair (`assay.models.features`): the frozen
all-MiniLM-L6-v2 (int8 ONNX) contextual token vectors of both texts aligned token by token
(IDF-weighted coverage of the question or claim, overall and in the passage's best
sentence, weakest-matched rare tokens), lexical evidence (exact word-piece overlap, BM25,
numbers and capitalised names the first text has and the second lacks, negation on one
side only, an ordinal or superlative that does not recur) and what the question asks for
(a year for "when", a number for "how many", a name for "who"). A relevance head reads
its first text as a question: a figure of the asker's own situation ("a 7-hour flight",
"my son is 7", "a group of 14") is not missing from a passage that states a bound
("longer than 6 hours", "children under 8"), since a rule answers it (1.1.0). The
`-lexical` variants use only the features that need no network. Each head is logistic
regression or gradient-boosted trees, whichever won on the validation split, exported to
plain numpy arrays: the runtime needs numpy, onnxruntime and tokenizers only.

- **assay-relevance**: P(the passage answers the question). Used for the similarity
  sub-score of retrieved chunks (blended evenly with the mapped cosine) and for the set's
  model judgment (R4).
- **assay-support**: P(supported), P(contradicted), P(unsupported) for (claim, evidence).
  Used for corroboration between evidence items and for conflict detection. A claim too
  long for one 256-token window is never called supported.

## Data and splits
- SQuAD 2.0 dev (35 articles, 11,873 questions; CC BY-SA 4.0): relevance. Split by
  article in file order: 20 train, 5 validation, 10 test.
- HaluEval QA (10,000 rows; MIT): support. Rows split 80/10/10 by a seeded permutation;
  training uses only the length-matched subset.
- SciFact train claims and corpus (809 claims; CC BY 4.0, abstracts ODC-By 1.0): support.
  Claims split 70/15/15 by a seeded permutation.
- SQuAD 2.0 dev sentences, perturbed FactCC-style (CC BY-SA 4.0): support. Number, name
  and negation edits of sentences from each split's own articles.

Relevance pairs: task a, each question with its own paragraph (1 if answerable); task b,
answerable questions with the two paragraphs of the split BM25 ranks highest (0); task w,
each question with a 1-3 sentence window of its paragraph centred on its best-overlap
sentence (1 if answerable and a gold answer lies inside). Support pairs: SciFact claim +
rationale sentences (supported / contradicted), claim + best-BM25 non-rationale sentences
(unsupported); HaluEval question + right answer (supported) or hallucinated answer
(unsupported) against the knowledge. After model selection each head is refitted on
train + validation.

## Test figures (AUROC unless noted)
"""

_LIMITS = """
## Intended use and limits
- Ranking and gating evidence for retrieval-augmented answers in English. The scores are
  probabilities under the training mix, not calibrated for your corpus: calibrate them on
  your own labelled questions before reading them as rates.
- Relevance was learned from Wikipedia paragraphs and crowd-written questions; unanswerable
  questions there were written to look answerable. Far from that (tables, code, legal
  clauses) expect weaker separation; short chunks were added to training because a
  paragraph-only head scored them arbitrarily.
- Support sees word and token overlap, not reasoning: it catches a changed figure, name,
  date or negation, and claims with content the evidence lacks, but not a contradiction
  phrased in other words (SciFact's reversed findings) or a wrong inference from true
  premises. Pair it with the LLM judge where the stakes justify the cost.
- HaluEval's right answers are 2 words and its hallucinated ones 11 on average; the
  length-only baseline is reported beside every HaluEval figure, and the length-matched
  test subset is the honest one.
"""


def _table(rows: list[list[str]], header: list[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def write_model_card(path: Path, metrics: dict[str, Any]) -> None:
    """Write ``MODEL_CARD.md`` for the heads of one training run from its ``metrics``."""
    parts = [_INTRO.format(**metrics)]
    tasks = ("task_a_auroc", "task_b_auroc", "task_w_auroc")
    rows = []
    for key in ("relevance", "relevance-lexical"):
        for scorer, figures in metrics[key].items():
            name = f"assay-{key}" if scorer == "head" else f"{scorer} (baseline)"
            rows.append([name, *(f"{figures[t]:.3f}" for t in tasks)])
    header = ["scorer", "task a", "task b", "task w"]
    parts.append("Relevance, SQuAD 2.0 test articles:\n\n" + _table(rows, header))
    rows = []
    for key in ("support", "support-lexical"):
        for test, f in metrics[key].items():
            if not isinstance(f, dict):
                continue
            rows.append(
                [
                    f"assay-{key}",
                    test.replace("_", " "),
                    f"{f['auroc']:.3f}",
                    f"{f['balanced_accuracy']:.3f}",
                    f"{f['three_way_balanced_accuracy']:.3f}",
                    f"{f.get('cosine_auroc', float('nan')):.3f}",
                    f"{f['bm25_auroc']:.3f}",
                    f"{f['length_only_auroc']:.3f}" if "length_only_auroc" in f else "",
                ]
            )
    header = ["head", "test set", "AUROC", "BAcc", "3-way BAcc", "cosine", "BM25", "length only"]
    parts.append(
        "\n\nSupport, supported vs not (BAcc at the threshold chosen on validation; 3-way over "
        "supported / contradicted / unsupported; the last three columns are baseline AUROCs):"
        "\n\n" + _table(rows, header) + "\n"
    )
    parts.append(_LIMITS)
    path.write_text("".join(parts), encoding="utf-8")
