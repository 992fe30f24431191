"""The reader (``assay-reader``) on question-answering sets it never trained on.

For each question the reader reads the passage written for it (the gold paragraph):

* exact match and F1 (SQuAD's normalisation) of its span on answerable questions, beside
  BERT-large's official SQuAD 2.0 dev predictions on the same questions (BERT also
  reads the gold paragraph);
* AUROC of its margin (span score minus "no answer" score), answerable vs unanswerable
  questions against their own paragraph (SQuAD 2.0: written to look answerable);
* AUROC of its margin, own paragraph vs another paragraph of the same document without
  the answer: the on-topic passage a knowledge base without the answer offers;

the last two beside the cosine of the MiniLM embeddings and ``assay-relevance``. Sets:
SQuAD 2.0 dev's validation and test articles (the reader trained on its train articles),
XQuAD without any paragraph the reader trained on, PolicyQA test (it trained on PolicyQA
dev), COVID-QA (whole papers: read in windows) and the ordinary-documents suite held out
of all fitting (``bench/ordinary``, :mod:`assay.training.ordinary_reading`): each
question against the chunk nearest it that holds its gold answer, as the answerer reads
it (title path, then text), its "other paragraph" the nearest chunk without the answer,
and each unanswerable question against its nearest chunk. There "declined" is the share
of answer-holding chunks whose margin falls below the answerer's floor
(:data:`assay.answer.reading.MARGIN_FLOOR`): answers the answerer never drafts.

    .venv/bin/python bench/reader.py [--data PATH] [--more PATH] [--questions N]
        [--reader FOLDER | --write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from docs_section import write_section
from pipeline import exact, f1

from assay.answer.reading import MARGIN_FLOOR
from assay.metrics import auroc
from assay.models.embedder import get_embedder
from assay.models.reader import SHIPPED_READER, Reader, load_reader
from assay.models.relevance import get_relevance_model
from assay.training.datasets import squad_splits
from assay.training.ordinary_pairs import HELD_OUT_SUITE
from assay.training.ordinary_reading import ReadingItem, ordinary_reading
from assay.training.reader_train import reader_examples

DATA = Path(__file__).resolve().parents[2] / "shared/data"
SECTION = "## Reader (bench/reader.py)"
SEED = 7
SQUAD = "squad_v2_dev/dev-v2.0.reconstructed.json"

#: (name, "data" or "more", file, SQuAD split or None, share of the --questions)
SETS = (
    ("SQuAD 2.0 test articles", "data", SQUAD, "test", 1.0),
    ("SQuAD 2.0 validation articles", "data", SQUAD, "validation", 1.0),
    ("XQuAD (en)", "more", "xquad_en/xquad.en.json", None, 1.0),
    ("PolicyQA test", "more", "policyqa/test.json", None, 1.0),
    ("COVID-QA", "more", "covid_qa_prelim/200423_covidQA.json", None, 0.25),
)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def items(
    articles: Sequence[dict[str, Any]], n: int, trained: set[str], rng: random.Random
) -> list[tuple[str, str, str, list[str], str | None]]:
    """Up to ``n`` seeded (id, question, passage, golds, other passage) of paragraphs the
    reader never trained on; ``other`` is a paragraph of the same document without a gold."""
    out = []
    for article in articles:
        passages = [str(p["context"]) for p in article["paragraphs"]]
        for own, paragraph in enumerate(article["paragraphs"]):
            if passages[own] in trained:
                continue
            for qa in paragraph["qas"]:
                golds = [str(a["text"]) for a in qa["answers"]]
                others = [
                    p
                    for i, p in enumerate(passages)
                    if i != own and not any(g.lower() in p.lower() for g in golds)
                ]
                other = rng.choice(others) if others and golds else None
                out.append((str(qa["id"]), str(qa["question"]), passages[own], golds, other))
    return rng.sample(out, min(n, len(out)))


def ordinary_items() -> list[tuple[str, str, str, list[str], str | None]]:
    """(id, question, passage, golds, other passage) of the held-out ordinary suite: an
    answerable question against its answer's chunk (the other: its nearest chunk
    without the answer), an unanswerable one against its nearest chunk."""
    by_question: dict[tuple[str, str], list[ReadingItem]] = {}
    for item in ordinary_reading(HELD_OUT_SUITE):
        by_question.setdefault((item.kb, item.question), []).append(item)
    out: list[tuple[str, str, str, list[str], str | None]] = []
    for (kb, question), items in by_question.items():
        answer = next((i for i in items if i.start is not None), None)
        other = next((i.passage for i in items if i.start is None), None)
        if answer is not None:
            out.append((f"{kb}/{question}", question, answer.passage, list(answer.golds), other))
        elif not items[0].golds:
            out.append((f"{kb}/{question}", question, items[0].passage, [], None))
    return out


Read = tuple[str, str, float]  # (question, passage, reader margin)


def separation(positive: Sequence[Read], negative: Sequence[Read]) -> dict[str, float | None]:
    """AUROC of the reader's margin, cosine and assay-relevance, positive vs negative."""
    if not positive or not negative:
        return {"reader": None, "cosine": None, "relevance": None}
    both = [*positive, *negative]
    y = np.array([1] * len(positive) + [0] * len(negative))
    vectors = get_embedder().embed([t for q, p, _ in both for t in (q, p)])
    relevance = get_relevance_model()
    return {
        "reader": auroc(y, np.array([m for _, _, m in both])),
        "cosine": auroc(y, np.sum(vectors[0::2] * vectors[1::2], axis=1)),
        "relevance": auroc(y, np.array([relevance.score(q, [p])[0] for q, p, _ in both])),
    }


def measure(
    name: str,
    chosen: Sequence[tuple[str, str, str, list[str], str | None]],
    bert: dict[str, str],
    reader: Reader,
) -> dict[str, Any]:
    """The figures of one set (see the module docstring)."""
    answerable: list[Read] = []
    unanswerable: list[Read] = []
    own: list[Read] = []
    other: list[Read] = []
    em, f, bert_em, bert_f = [], [], [], []
    start, reads = time.perf_counter(), 0
    for qid, question, passage, golds, elsewhere in chosen:
        reading = reader.read(question, passage)
        reads += 1
        read = (question, passage, reading.margin)
        if not golds:
            unanswerable.append(read)
            continue
        answerable.append(read)
        em.append(max(exact(g, reading.answer) for g in golds))
        f.append(max(f1(g, reading.answer) for g in golds))
        if qid in bert:
            bert_em.append(max(exact(g, bert[qid]) for g in golds))
            bert_f.append(max(f1(g, bert[qid]) for g in golds))
        if elsewhere is not None:
            own.append(read)
            other.append((question, elsewhere, reader.read(question, elsewhere).margin))
            reads += 1
    seconds = time.perf_counter() - start

    def mean(values: list[float]) -> float | None:
        return float(np.mean(values)) if values else None

    return {
        "set": name,
        "questions": len(chosen),
        "answerable": len(em),
        "em": mean(em),
        "f1": mean(f),
        "bert em": mean(bert_em),
        "bert f1": mean(bert_f),
        "unanswerable": separation(answerable, unanswerable),
        "other": separation(own, other),
        "declined": mean([float(m <= MARGIN_FLOOR) for _, _, m in answerable]),
        "ms per read": 1000 * seconds / max(reads, 1),
    }


def cell(value: float | None, fmt: str = "{:.3f}") -> str:
    return "-" if value is None else fmt.format(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--more", type=Path, default=DATA.parent / "data_more")
    parser.add_argument("--questions", type=int, default=400, help="per set (seeded sample)")
    parser.add_argument(
        "--reader", type=Path, default=SHIPPED_READER,
        help="a reader's folder (default: the shipped one); a candidate is measured as it is",
    )  # fmt: skip
    parser.add_argument("--write", action="store_true", help="replace the docs section")
    args = parser.parse_args()
    if args.questions < 10:
        parser.error("--questions must be at least 10")
    if args.write and args.reader != SHIPPED_READER:
        parser.error("--write documents the shipped reader: leave out --reader")
    reader = load_reader(args.reader)
    trained = {e.passage for e in reader_examples(args.data, args.more)}
    bert_file = args.data / "squad_v2_dev/model_predictions/BERT.json"
    bert = json.loads(bert_file.read_text()) if bert_file.is_file() else {}
    results = []
    for name, root, file, split, share in SETS:
        path = (args.data if root == "data" else args.more) / file
        if not path.is_file():
            log(f"{name}: {path} is missing, skipped")
            continue
        articles = json.loads(path.read_text())["data"]
        if split is not None:
            titles = set(squad_splits(path)[split])
            articles = [a for a in articles if a["title"] in titles]
        n = max(10, int(args.questions * share))
        chosen = items(articles, n, trained, random.Random(SEED))
        results.append(measure(name, chosen, bert if split is not None else {}, reader))
        log(json.dumps(results[-1]))
    results.append(measure("ordinary documents (held out)", ordinary_items(), {}, reader))
    log(json.dumps(results[-1]))
    command = "python bench/reader.py" + "".join(f" {a}" for a in sys.argv[1:] if a != "--write")
    lines = [
        SECTION,
        "",
        f"`{command}`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} CPU cores, "
        f"Python {platform.python_version()}. Reader: `{reader.name}`. Each question "
        "against the paragraph written for it; no paragraph the reader trained on. EM / F1: "
        "SQuAD's normalisation, answerable questions; BERT-large (official SQuAD 2.0 dev "
        "predictions) reads the same paragraphs. AUROC of the reader's margin beside cosine "
        "and `assay-relevance`: answerable vs unanswerable questions (SQuAD 2.0), and a "
        "question's own paragraph vs another of the same document without its answer."
        " The ordinary documents (`bench/ordinary`, held out of all fitting): each question "
        "against the chunk nearest it that holds its gold answer, read as the answerer reads "
        'it (title path, then text); "other" is its nearest chunk without the answer, '
        '"not" an unanswerable question against its nearest chunk. "declined": the share '
        "of answer-holding passages whose margin is at or below the answerer's floor "
        f"({MARGIN_FLOOR:g}), for which no answer is drafted.",
        "",
        "| set | questions | EM | F1 | BERT EM | BERT F1 | answerable vs not: reader | cosine "
        "| assay-relevance | own vs other paragraph: reader | cosine | assay-relevance "
        "| declined | ms per read |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        u, o = r["unanswerable"], r["other"]
        lines.append(
            f"| {r['set']} | {r['questions']} | {cell(r['em'])} | {cell(r['f1'])} "
            f"| {cell(r['bert em'])} | {cell(r['bert f1'])} | {cell(u['reader'])} "
            f"| {cell(u['cosine'])} | {cell(u['relevance'])} | {cell(o['reader'])} "
            f"| {cell(o['cosine'])} | {cell(o['relevance'])} | {cell(r['declined'])} "
            f"| {r['ms per read']:.0f} |"
        )
    section = "\n".join(lines) + "\n"
    print(section)
    if args.write:
        write_section(SECTION, section)


if __name__ == "__main__":
    main()
