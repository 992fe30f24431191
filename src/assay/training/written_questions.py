"""Reading questions written by the local LLM for permissive passages (resumable).

``assay-reader`` learned from 22,000 examples, most of them Wikipedia; what it lacks is
more, and more varied, reading data (its model card). This job asks an
OpenAI-compatible endpoint (the local LLM of ``make llm``) to write questions a user
would ask of a passage, each with its answer copied from the passage, and keeps a pair
only where the answer is found verbatim in the passage (:func:`kept_pairs`): the
reader's target is a span, and a span the passage does not hold teaches nothing.

Passages come only from sets whose licence allows commercial use and that no answer
benchmark measures on (:func:`passages`): SciFact's abstracts (ODC-By 1.0), PubMedQA's
contexts (MIT), TAT-QA's dev reports, paragraphs and tables written out one sentence
per row as assay ingests them (CC BY 4.0), PolicyQA's dev segments (MIT), BoolQ's dev
passages (CC BY-SA 3.0) and HaluEval's knowledge, its ``train`` rows (MIT).

Output: one JSON line per passage asked (its pairs, possibly none, and how many the
filter dropped), appended and flushed as it goes, so a run stopped at any moment
resumes where it was (passages already in the file are skipped); beside it
``manifest.json`` says which model and prompt wrote what. With the local 1.5B model on
2 idle cores a passage takes about 20 s and yields about one kept pair (23 passages,
2026-12-04): tens of thousands of pairs are a job of many sessions, or of a GPU::

    python -m assay.training.written_questions --data ../shared/data \\
        --more ../shared/data_more --out .teach/reader-questions [--minutes 60]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.errors import EndpointError
from assay.ingest.tables import table_sentences
from assay.models.llm import ChatClient, strip_code_fences
from assay.training.datasets import halueval_rows
from assay.training.resumable import append_to, endpoint_client, read_rows

__all__ = [
    "Passage", "WrittenPair", "ask", "kept_pairs", "main", "parse_pairs", "passages",
]  # fmt: skip

PROMPT_VERSION = "reader-questions-v2"
SYSTEM = "You write reading-comprehension questions about a passage. Reply with JSON only."
ASK = (
    "Passage:\n{passage}\n\nWrite 3 different questions a person could ask that this "
    "passage answers. Word them in your own words, specific enough that one place in the "
    "passage answers each (name the year, product, group or place). Each answer is a short "
    "phrase of at most 8 words copied exactly from the passage."
)
#: the reply's shape, enforced by endpoints that take a JSON schema (llama.cpp's server)
SCHEMA = {
    "type": "object",
    "properties": {
        "pairs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"question": {"type": "string"}, "answer": {"type": "string"}},
                "required": ["question", "answer"],
            },
            "minItems": 1,
            "maxItems": 3,
        }
    },
    "required": ["pairs"],
}
MIN_WORDS, MAX_WORDS = 40, 220  #: passages outside these lengths are not asked
MAX_ANSWER_WORDS = 8
SEED = 17


@dataclass(frozen=True, slots=True)
class Passage:
    """A passage to write questions for, with a stable id within its dataset."""

    dataset: str
    key: str
    text: str


@dataclass(frozen=True, slots=True)
class WrittenPair:
    """A kept question, its answer and where the answer starts in the passage."""

    question: str
    answer: str
    answer_start: int


def _sized(text: str) -> bool:
    return MIN_WORDS <= len(text.split()) <= MAX_WORDS


def _tatqa_table(rows: Sequence[Sequence[str]]) -> str | None:
    """A TAT-QA table as assay ingests tables: its header row (the first whose value
    columns are more than half filled) names each column, each later row becomes a sentence."""
    header_at = next(
        (i for i, r in enumerate(rows) if sum(bool(c.strip()) for c in r[1:]) * 2 > len(r) - 1),
        None,
    )
    if header_at is None or header_at + 1 >= len(rows):
        return None
    clean = [[" ".join(str(c).replace("|", "/").split()) for c in r] for r in rows[header_at:]]
    width = len(clean[0])
    lines = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in clean]
    lines.insert(1, "|" + "---|" * width)
    return table_sentences(lines)


def _tatqa(more: Path) -> Iterator[Passage]:
    for k, report in enumerate(json.loads((more / "tatqa" / "tatqa_dataset_dev.json").read_text())):
        text = " ".join(p["text"] for p in report["paragraphs"])
        if _sized(text):
            yield Passage("tatqa_dev", f"{k}:text", text)
        table = _tatqa_table(report["table"]["table"])
        if table and _sized(table):
            yield Passage("tatqa_dev", f"{k}:table", table)


def _scifact(data: Path) -> Iterator[Passage]:
    for line in (data / "scifact_train" / "corpus.jsonl").read_text().splitlines():
        row = json.loads(line)
        text = " ".join(row["abstract"])
        if _sized(text):
            yield Passage("scifact", str(row["doc_id"]), f"{row['title']} {text}")


def _pubmedqa(more: Path) -> Iterator[Passage]:
    for pmid, row in json.loads((more / "pubmedqa" / "ori_pqal.json").read_text()).items():
        text = " ".join(row["CONTEXTS"])
        if _sized(text):
            yield Passage("pubmedqa", pmid, text)


def _policyqa(more: Path) -> Iterator[Passage]:
    seen: set[str] = set()
    for article in json.loads((more / "policyqa" / "dev.json").read_text())["data"]:
        for k, paragraph in enumerate(article["paragraphs"]):
            text = " ".join(str(paragraph["context"]).split())
            if text not in seen and _sized(text):
                seen.add(text)
                yield Passage("policyqa_dev", f"{article['title']}:{k}", text)


def _boolq(more: Path) -> Iterator[Passage]:
    for k, line in enumerate((more / "boolq_dev" / "dev.jsonl").read_text().splitlines()):
        row = json.loads(line)
        if _sized(row["passage"]):
            yield Passage("boolq_dev", str(k), f"{row['title']}. {row['passage']}")


def _halueval(data: Path) -> Iterator[Passage]:
    rows = halueval_rows(data / "halueval" / "qa_data.json", "train", seed=13)
    for k, row in enumerate(rows):
        if _sized(row["knowledge"]):
            yield Passage("halueval_train", str(k), row["knowledge"])


def passages(data: Path, more: Path, *, seed: int = SEED) -> list[Passage]:
    """Every passage of the module docstring's sets, shuffled within each set and then
    taken in turn from each, so that a run stopped early has asked all sets alike."""
    rng = random.Random(seed)
    sets = [
        list(_scifact(data)),
        list(_pubmedqa(more)),
        list(_tatqa(more)),
        list(_policyqa(more)),
        list(_boolq(more)),
        list(_halueval(data)),
    ]
    for s in sets:
        rng.shuffle(s)
    out: list[Passage] = []
    for k in range(max(len(s) for s in sets)):
        out += [s[k] for s in sets if k < len(s)]
    return out


def parse_pairs(reply: str) -> list[tuple[str, str]]:
    """The (question, answer) pairs of a reply: a JSON list of objects, or failing
    that, every ``{"question": ..., "answer": ...}`` object found in it."""
    text = strip_code_fences(reply)
    try:
        items = json.loads(text)
    except ValueError:
        items = []
        for chunk in re.findall(r"\{[^{}]*\}", text):
            try:
                items.append(json.loads(chunk))
            except ValueError:
                continue
    if isinstance(items, dict):
        items = items.get("pairs", [items])
    if not isinstance(items, list):
        return []
    return [
        (item["question"].strip(), item["answer"].strip())
        for item in items
        if isinstance(item, dict)
        and isinstance(item.get("question"), str)
        and isinstance(item.get("answer"), str)
    ]


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def kept_pairs(passage: str, pairs: Sequence[tuple[str, str]]) -> list[WrittenPair]:
    """The pairs a reader can learn from: the answer (at most :data:`MAX_ANSWER_WORDS`
    words, trailing punctuation stripped) is in the passage verbatim (case aside), the
    question is a question of 3-40 words that does not give the answer away, and no
    question is kept twice."""
    kept: list[WrittenPair] = []
    for question, answer in pairs:
        answer = answer.strip().strip(".,;:\"'").strip()
        if not answer or len(answer.split()) > MAX_ANSWER_WORDS:
            continue
        if not question.endswith("?") or not 3 <= len(question.split()) <= 40:
            continue
        if answer.lower() in question.lower() or _words(answer) <= _words(question):
            continue
        at = passage.find(answer)
        if at < 0:
            at = passage.lower().find(answer.lower())
        if at < 0 or any(p.question.lower() == question.lower() for p in kept):
            continue
        kept.append(WrittenPair(question, passage[at : at + len(answer)], at))
    return kept


def _manifest(out: Path, client: ChatClient, rows: Sequence[dict[str, Any]]) -> None:
    per_set: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    for row in rows:
        per_set[row["dataset"]] += 1
        pairs[row["dataset"]] += len(row["pairs"])
    manifest = {
        "what": "reading questions written by an LLM, kept where the answer is verbatim",
        "model": client.name,
        "prompt_version": PROMPT_VERSION,
        "prompt_sha256": hashlib.sha256((SYSTEM + ASK).encode()).hexdigest(),
        "updated": datetime.now(UTC).isoformat(timespec="seconds"),
        "passages_asked": dict(sorted(per_set.items())),
        "pairs_kept": dict(sorted(pairs.items())),
        "total_pairs": sum(pairs.values()),
        "licences": {
            "scifact": "ODC-By 1.0",
            "pubmedqa": "MIT",
            "tatqa_dev": "CC BY 4.0",
            "policyqa_dev": "MIT",
            "boolq_dev": "CC BY-SA 3.0",
            "halueval_train": "MIT",
        },
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def ask(client: ChatClient, passage: str) -> str:
    """The endpoint's reply to :data:`ASK` about ``passage`` (JSON of :data:`SCHEMA`)."""
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": ASK.format(passage=passage)},
    ]
    reply = client.chat(
        messages, max_tokens=200, temperature=0.3,
        response_format={"type": "json_object", "schema": SCHEMA},
    )  # fmt: skip
    try:
        return str(reply["choices"][0]["message"]["content"])
    except (KeyError, IndexError, TypeError):
        return ""


def run(args: argparse.Namespace) -> int:
    client = endpoint_client(args.timeout)
    if client is None:
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "questions.jsonl"
    rows = read_rows(path)
    done = {(r["dataset"], r["key"]) for r in rows}
    todo = [p for p in passages(Path(args.data), Path(args.more)) if (p.dataset, p.key) not in done]
    deadline = time.monotonic() + 60 * args.minutes if args.minutes else None
    failures = 0  #: endpoint failures in a row; five stop the run
    with append_to(path) as sink:
        for n, passage in enumerate(todo[: args.passages or None], 1):
            if deadline is not None and time.monotonic() > deadline:
                break
            try:
                asked = parse_pairs(ask(client, passage.text))
            except EndpointError as exc:  # not written: the next run asks it again
                failures += 1
                print(f"{passage.dataset} {passage.key}: {exc}", file=sys.stderr, flush=True)
                if failures >= 5:
                    break
                continue
            failures = 0
            kept = kept_pairs(passage.text, asked)
            row = {
                "dataset": passage.dataset, "key": passage.key, "passage": passage.text,
                "pairs": [{"question": p.question, "answer": p.answer,
                           "answer_start": p.answer_start} for p in kept],
                "dropped": len(asked) - len(kept), "prompt_version": PROMPT_VERSION,
            }  # fmt: skip
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            rows.append(row)
            if n % 50 == 0:
                _manifest(out, client, rows)
                total = sum(len(r["pairs"]) for r in rows)
                print(f"{len(rows)} passages, {total} pairs kept", flush=True)
    _manifest(out, client, rows)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m assay.training.written_questions",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--more", default="../shared/data_more")
    parser.add_argument("--out", default=".teach/reader-questions")
    parser.add_argument("--minutes", type=float, default=0, help="stop after this long (0: never)")
    parser.add_argument("--passages", type=int, default=0, help="ask at most this many (0: all)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per LLM reply")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
