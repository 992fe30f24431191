"""Relevance labels from a stronger model: the local LLM as teacher (resumable).

The shipped relevance models read a passage's topic, not the question's qualifiers: on
question-passage pairs where the negative is the same event in another year, they rank
the answering passage first about half the time, where the local 1.5B chat model asked
"does the passage state the answer to this exact question?" does so four times in five.
At 1-4 s a pair the chat model cannot score every retrieved chunk, but it can label
tens of thousands of pairs for a student (the cross-encoder) to learn from.

This job labels the question-passage pairs of every commercially usable answerability
set (:data:`~assay.training.answerability_sets.ANSWERABILITY_SETS`) and their
qualifier swaps (:mod:`assay.training.qualifier_swaps`: another year, quarter or name
in the question, which the passage then no longer answers), and the questions of the
ordinary-documents suites against the chunks retrieval would hand on
(:mod:`assay.training.ordinary_pairs`: users' documents under headings, where the
students read worst), up to ``--per-set`` of each, the pairs of one passage together
(the endpoint then reads the passage once) and the sets taking turns
(:func:`teacher_pairs`). The label is the chat model's P(yes), read from the first
reply token's log-probabilities, under :data:`PROMPT_VERSION` (the manifest records it).

Output (``--out``): ``labels.jsonl``, one line per pair, appended and flushed as it
goes, so a run stopped at any moment resumes where it was; each line holds the pair's
id (a hash of its set and texts: :func:`pair_id`), its set, kind and gold label, and the
teacher's belief, but none of the set's text (the loaders rebuild it from the data).
``manifest.json`` says which model and prompt labelled what, rewritten every
``CHECKPOINT`` pairs. The labels are the slow part, so they are kept in the repository
(``labels/teacher-relevance/``) and later runs add to them::

    python -m assay.training.teach --data ../shared/data --more ../shared/data_more \\
        --out labels/teacher-relevance [--minutes 60] [--per-set 3000]

``bench/teacher.py`` measures the teacher against the gold labels beside the students.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.models.llm import ChatClient, EndpointError
from assay.text import clip_words, squash_spaces
from assay.training.answerability_sets import ANSWERABILITY_SETS
from assay.training.mix import SWAP_SOURCES
from assay.training.ordinary_pairs import ORDINARY_SUITES, ordinary_pairs
from assay.training.pairsets import LabeledPair, cap
from assay.training.qualifier_swaps import qualifier_swaps
from assay.training.resumable import append_to, endpoint_client, read_rows

__all__ = [
    "CHECKPOINT", "PROMPT_VERSION", "belief", "main", "pair_id", "teacher_pairs", "teacher_sets",
]  # fmt: skip

#: bump with any change of the wording below: labels of two wordings are not one teacher
PROMPT_VERSION = "teacher-relevance-v1"
#: the instructions open the prompt and the question closes it, so that the endpoint
#: reads the instructions and a passage once for all the passage's questions
SYSTEM = (
    "You judge reading comprehension. You are given a passage and a question. Reply with "
    "one word: yes if the passage states the answer to this exact question, no if it does "
    "not. Questions may be written to look answerable while asking about something the "
    "passage does not say: another year, quarter, person, place or group."
)
USER = "Passage: {passage}\n\nQuestion: {question}"
CHECKPOINT = 200  #: pairs between two rewrites of the manifest
MAX_CHARS = 2000  #: passages cut here: longer ones cost seconds each and rarely help
SEED = 13
#: the ordinary-documents suites are written in this repository, under its licence
OWN_LICENCE = "Apache-2.0 (assay's own)"


def pair_id(pair: LabeledPair) -> str:
    """A stable id of a pair: its set and both texts, hashed (16 hex digits). A
    qualifier-swap set's unchanged pairs are its source's: the same id, labelled once."""
    key = "\x1f".join((pair.dataset.removeprefix("swap:"), pair.first, pair.second))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def teacher_sets(
    data: Path, more: Path, sets: Sequence[str] | None = None
) -> dict[str, list[LabeledPair]]:
    """Every pair the teacher may label, by set: each commercially usable answerability
    set, the qualifier swaps (``swap:<set>``) of those in
    :data:`~assay.training.mix.SWAP_SOURCES`, and the ordinary-documents suites
    (:data:`~assay.training.ordinary_pairs.ORDINARY_SUITES`); only ``sets`` where given."""
    out: dict[str, list[LabeledPair]] = {}
    for name, info in sorted(ANSWERABILITY_SETS.items()):
        wanted = sets is None or name in sets or f"swap:{name}" in sets
        if not info.commercial or not wanted:
            continue
        try:
            pairs = info.loader(data, more)
        except FileNotFoundError as exc:
            print(f"{name}: {exc.filename} is missing, skipped", file=sys.stderr)
            continue
        if sets is None or name in sets:
            out[name] = pairs
        if name in SWAP_SOURCES and (sets is None or f"swap:{name}" in sets):
            out[f"swap:{name}"] = qualifier_swaps(pairs, name)
    for name, suite in ORDINARY_SUITES.items():
        if sets is None or name in sets:
            out[name] = ordinary_pairs(name, suite)
    return out


def teacher_pairs(
    data: Path, more: Path, *, per_set: int, sets: Sequence[str] | None = None
) -> list[LabeledPair]:
    """Up to ``per_set`` pairs of each set of :func:`teacher_sets`, in an order that
    labels fast and stops fairly.

    The pairs of one passage come one after another: the prompt opens with the passage,
    and the endpoint reuses what it computed for a prompt's opening when the next prompt
    opens alike (llama.cpp's server does), so the second question on a passage costs a
    fraction of the first. Passages are shuffled within each set, and sets take turns
    passage by passage, so that a run stopped early has labelled all sets alike.
    """
    loaded: list[list[list[LabeledPair]]] = []
    for pairs in teacher_sets(data, more, sets).values():
        by_passage: dict[str, list[LabeledPair]] = {}
        for pair in cap(pairs, per_set, seed=SEED):
            by_passage.setdefault(pair.second, []).append(pair)
        groups = list(by_passage.values())
        random.Random(SEED).shuffle(groups)
        loaded.append(groups)
    out: list[LabeledPair] = []
    for k in range(max((len(s) for s in loaded), default=0)):
        out += [pair for s in loaded if k < len(s) for pair in s[k]]
    return out


def belief(client: ChatClient, question: str, passage: str) -> float:
    """The teacher's P(yes) that ``passage`` states the answer to ``question``."""
    user = USER.format(passage=clip_words(passage, MAX_CHARS), question=squash_spaces(question))
    return client.yes_probability(SYSTEM, user)


def _manifest(out: Path, teacher: str, rows: Sequence[dict[str, Any]]) -> None:
    per_set = Counter(r["dataset"] for r in rows)
    manifest = {
        "what": "P(the passage states the answer to the question), read from a chat model",
        "teacher": teacher,
        "prompt_version": PROMPT_VERSION,
        "prompt_sha256": hashlib.sha256((SYSTEM + USER).encode()).hexdigest(),
        "passage_max_chars": MAX_CHARS,
        "updated": datetime.now(UTC).isoformat(timespec="seconds"),
        "pairs": dict(sorted(per_set.items())),
        "total": len(rows),
        "licences": {
            r["dataset"]: ANSWERABILITY_SETS[r["dataset"].removeprefix("swap:")].licence
            for r in rows
            if r["dataset"].removeprefix("swap:") in ANSWERABILITY_SETS
        }
        | {r["dataset"]: OWN_LICENCE for r in rows if r["dataset"] in ORDINARY_SUITES},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def run(args: argparse.Namespace) -> int:
    """Label until every chosen pair is labelled, ``--minutes`` pass, or the endpoint
    fails five times in a row."""
    client = endpoint_client(args.timeout)
    if client is None:
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "labels.jsonl"
    rows = read_rows(path)
    done = {str(r["id"]) for r in rows}
    pairs = teacher_pairs(Path(args.data), Path(args.more), per_set=args.per_set, sets=args.sets)
    todo = []
    for pair in pairs:  # a pair two loaders give alike is asked once
        key = pair_id(pair)
        if key not in done:
            done.add(key)
            todo.append((key, pair))
    print(f"{len(rows)} labelled, {len(todo)} to go", file=sys.stderr, flush=True)
    _manifest(out, client.model, rows)  # a run killed before its first checkpoint keeps one
    deadline = time.monotonic() + 60 * args.minutes if args.minutes else None
    failures = 0  #: endpoint failures in a row; five stop the run
    with append_to(path) as sink:
        for n, (key, pair) in enumerate(todo, 1):
            if deadline is not None and time.monotonic() > deadline:
                break
            start = time.perf_counter()
            try:
                p_yes = belief(client, pair.first, pair.second)
            except EndpointError as exc:  # not written: the next run asks it again
                failures += 1
                print(f"{pair.dataset} {key}: {exc}", file=sys.stderr, flush=True)
                if failures >= 5:
                    break
                continue
            failures = 0
            row = {
                "id": key, "dataset": pair.dataset, "kind": pair.kind,
                "gold": int(pair.positive), "teacher": round(p_yes, 4),
                "seconds": round(time.perf_counter() - start, 2),
            }  # fmt: skip
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            rows.append(row)
            if n % CHECKPOINT == 0:
                _manifest(out, client.model, rows)
                print(f"{len(rows)} labelled", file=sys.stderr, flush=True)
    _manifest(out, client.model, rows)
    print(f"{len(rows)} labelled in all", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--more", default="../shared/data_more")
    parser.add_argument("--out", default="labels/teacher-relevance")
    parser.add_argument("--per-set", type=int, default=3000, help="pairs of each set at most")
    parser.add_argument("--sets", nargs="+", help="only these sets (default: every usable one)")
    parser.add_argument("--minutes", type=float, default=0, help="stop after this long (0: never)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
