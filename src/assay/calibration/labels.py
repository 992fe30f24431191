"""Labeled sets: the one JSON Lines format calibration is fitted and checked on.

One JSON object per line, with these keys (``query``, ``contexts``, ``label`` required)::

    {"id": "57285ed5ff5b5019007da1b6", "source": "squad_v2:test", "category": "Yuan_dynasty",
     "query": "What is the Chinese name for the Yuan dynasty?", "answer": null,
     "contexts": "kb", "gold": ["Yuán Cháo", "元朝"], "label": 1, "score": null}

(one line in a file). ``label`` is 1 when the answer is correct, the question answerable
or the claim supported, else 0. ``contexts`` is a non-empty list of ``{"id", "text"}``
objects to judge against, or ``"kb"``: retrieve from the knowledge base. ``answer`` is
null when assay is to write it (``gold`` then holds the accepted answers); ``score`` a
raw score recorded at the time (a reviewed answer's confidence); ``category`` a group to
report by (an article, a policy). Every problem in a file is an
:class:`InvalidInputError` naming the file, the line and the field, with the fix.

Converters build sets from the review queue's verdicts and from the public datasets,
split as in :mod:`assay.training.datasets` (fit on ``validation``, report on ``test``).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assay.audit import AuditLog
from assay.errors import InvalidInputError, did_you_mean
from assay.events import AskRecord
from assay.judge.schema import Context
from assay.review import ReviewQueue
from assay.training import datasets

KB = "kb"  # the ``contexts`` of an example to be asked of the knowledge base

_KEYS = ("id", "source", "category", "query", "answer", "contexts", "gold", "label", "score")
_DEFAULTS: dict[str, Any] = dict(id="", source="", category=None, answer=None, gold=[], score=None)
_ONE_OBJECT = f"write one JSON object per line with the keys {', '.join(_KEYS)}"


def _is_score(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and 0 <= value <= 1


_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {  # (check, fix); contexts: below
    "id": (lambda v: isinstance(v, str), "give the example's id as a string"),
    "source": (lambda v: isinstance(v, str), 'give its origin as a string ("squad_v2:test")'),
    "category": (lambda v: v is None or isinstance(v, str), "give a string, or null"),
    "query": (lambda v: isinstance(v, str) and bool(v.strip()), "give a non-empty question"),
    "answer": (lambda v: v is None or isinstance(v, str), "give a string, or null for none"),
    "gold": (
        lambda v: isinstance(v, list) and all(isinstance(g, str) for g in v),
        "give the accepted answers as a list of strings",
    ),
    "label": (
        lambda v: type(v) is int and v in (0, 1),
        "give 1 (correct / answerable / supported) or 0",
    ),
    "score": (lambda v: v is None or _is_score(v), "give a number between 0 and 1, or null"),
}
_CONTEXTS_FIX = 'give a non-empty list of {"id", "text"} objects, or "kb" for the knowledge base'


@dataclass(frozen=True, slots=True)
class LabeledExample:
    """One labeled question (and answer): the unit every calibration set is made of.

    ``contexts`` None means "retrieve from the knowledge base" (``"kb"`` in JSON); a
    context's ``confidence`` is not written. ``gold`` holds accepted answers for
    judging an answer assay writes itself; ``score`` a raw score recorded at the time.
    """

    query: str
    label: int
    answer: str | None = None
    contexts: tuple[Context, ...] | None = None
    category: str | None = None
    gold: tuple[str, ...] = ()
    score: float | None = None
    source: str = ""
    id: str = ""

    def to_json(self) -> dict[str, Any]:
        """The JSON object of one line of a labeled set, keys in the documented order."""
        contexts = KB if self.contexts is None else [c.to_dict() for c in self.contexts]
        values = (self.id, self.source, self.category, self.query, self.answer, contexts)
        return dict(zip(_KEYS, (*values, list(self.gold), self.label, self.score), strict=True))

    @classmethod
    def from_json(cls, record: Any, where: str = "record") -> LabeledExample:
        """The example a JSON object describes; ``where`` (file and line) prefixes errors."""
        if not isinstance(record, dict):
            raise InvalidInputError(f"{where}: record", record, _ONE_OBJECT, problem="is no object")
        for key in record:
            if key not in _KEYS:
                fix = f"{did_you_mean(key, _KEYS)}use only the keys {', '.join(_KEYS)}"
                raise InvalidInputError(f"{where}: {key}", record[key], fix, problem="is unknown")
        for key in _KEYS:
            if key not in record and key not in _DEFAULTS:
                fix = _CONTEXTS_FIX if key == "contexts" else _FIELDS[key][1]
                raise InvalidInputError(f"{where}: {key}", None, fix, problem="is missing")
        values: dict[str, Any] = _DEFAULTS | record
        for key, (check, fix) in _FIELDS.items():
            if not check(values[key]):
                raise InvalidInputError(f"{where}: {key}", values[key], fix)
        values["contexts"] = _contexts(values["contexts"], where)
        values["gold"] = tuple(values["gold"])
        values["score"] = None if values["score"] is None else float(values["score"])
        return cls(**values)


def _contexts(value: Any, where: str) -> tuple[Context, ...] | None:
    if value == KB:
        return None
    if not isinstance(value, list) or not value:
        raise InvalidInputError(f"{where}: contexts", value, _CONTEXTS_FIX)
    contexts = []
    for i, item in enumerate(value):
        ok = isinstance(item, dict) and set(item) == {"id", "text"}
        if not ok or not isinstance(item["id"], str) or not item["id"].strip():
            raise InvalidInputError(f"{where}: contexts[{i}]", item, _CONTEXTS_FIX)
        if not isinstance(item["text"], str):
            raise InvalidInputError(f"{where}: contexts[{i}].text", item["text"], "give text")
        contexts.append(Context(item["id"], item["text"]))
    return tuple(contexts)


def read_labels(path: str | Path) -> list[LabeledExample]:
    """Every example of a labeled set, in file order; any problem names line and field."""
    file = _labels_file(path)
    examples: list[LabeledExample] = []
    try:
        lines = file.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(str(file), exc.reason, "save the file as UTF-8") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{file}: line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problem = f"is not valid JSON ({exc.msg} at column {exc.colno})"
            raise InvalidInputError(f"{where}: record", line, _ONE_OBJECT, problem=problem) from exc
        examples.append(LabeledExample.from_json(record, where))
    return examples


def write_labels(path: str | Path, examples: Iterable[LabeledExample]) -> None:
    """Write a labeled set atomically: a temporary file beside it, then a rename.

    Each example is checked as :func:`read_labels` would check it, so a set written
    here always reads back; a refused example leaves any existing file untouched.
    """
    lines = []
    for i, example in enumerate(examples):
        record = example.to_json()
        LabeledExample.from_json(record, f"example {i}")
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
    temp = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(lines)
            handle.flush()
            os.fsync(handle.fileno())
        temp.chmod(0o644)
        temp.replace(file)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def labels_sha256(path: str | Path) -> str:
    """Hex sha256 of a labeled set's bytes: which set a calibration was fitted on."""
    return hashlib.sha256(_labels_file(path).read_bytes()).hexdigest()


def _labels_file(path: str | Path) -> Path:
    if not Path(path).is_file():
        fix = "give the path of a labeled set (.jsonl)"
        raise InvalidInputError("labels path", str(path), fix, problem="is not a file")
    return Path(path)


# -- converters ------------------------------------------------------------------------------


def _squad_articles(path: str | Path, split: str, seed: int) -> list[dict[str, Any]]:
    """The raw articles of one split, in file order, the file checked by squad_splits."""
    datasets._check_split(split)
    datasets._check_count("seed", seed)
    titles = set(datasets.squad_splits(path)[split])
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    return [article for article in raw["data"] if str(article["title"]) in titles]


def squad_labels(path: str | Path, split: str, *, seed: int = 13) -> list[LabeledExample]:
    """Every question of one split's SQuAD 2.0 articles, to be answered from the KB.

    Label 1 if answerable, 0 if not; ``gold`` the distinct answer texts; ``category``
    the article title. SQuAD splits by article in file order, so ``seed`` is only
    checked; the KB to ask is :func:`squad_knowledge_base` of the same split.
    """
    examples, source = [], f"squad_v2:{split}"
    for article in _squad_articles(path, split, seed):
        title = str(article["title"])
        for question in (q for p in article["paragraphs"] for q in p["qas"]):
            try:
                qid, answers = str(question["id"]), [str(a["text"]) for a in question["answers"]]
            except (KeyError, TypeError) as exc:
                fix = "give SQuAD 2.0 questions with an id and answers[].text"
                raise InvalidInputError(f"{path}: article {title!r}", question, fix) from exc
            query, label = str(question["question"]), 0 if question["is_impossible"] else 1
            gold = tuple(dict.fromkeys(answers))
            examples.append(
                LabeledExample(query, label, category=title, gold=gold, source=source, id=qid)
            )
    return examples


def squad_knowledge_base(path: str | Path, split: str, *, seed: int = 13) -> list[dict[str, Any]]:
    """One split's SQuAD paragraphs as ``assay ingest`` JSON Lines records.

    ``{"id": "<article>:<n>", "title": <article, "_" as " ">, "text": ...}``, from the
    articles of :func:`squad_labels`: each question is asked of the KB written for it.
    """
    records = []
    for article in _squad_articles(path, split, seed):
        title = str(article["title"])
        for n, paragraph in enumerate(article["paragraphs"]):
            text = str(paragraph["context"])
            if text.strip():  # ingest refuses an empty record
                record = {"id": f"{title}:{n}", "title": title.replace("_", " "), "text": text}
                records.append(record)
    return records


def halueval_labels(
    path: str | Path, split: str, *, seed: int = 13, length_matched: bool = False
) -> list[LabeledExample]:
    """Two answers per HaluEval QA row of one split: the right one (1), the made-up one (0).

    The context is the row's knowledge (id ``"knowledge"``). Rows and their order come
    from :func:`halueval_pairs`; with ``length_matched`` only its length-matched pairs
    are kept, so that answer length alone no longer tells the classes apart.
    """
    rows, examples = datasets._load_halueval(path), []
    source = f"halueval:{split}" + (":length_matched" if length_matched else "")
    for pair in datasets.halueval_pairs(path, split, seed=seed, length_matched=length_matched):
        row, kind = rows[int(pair.group)], "right" if pair.label == "supported" else "hallucinated"
        answer, contexts = row[f"{kind}_answer"], (Context("knowledge", row["knowledge"]),)
        label, eid = int(kind == "right"), f"halueval:{pair.group}:{kind}"
        examples.append(
            LabeledExample(row["question"], label, answer, contexts, source=source, id=eid)
        )
    return examples


def scifact_labels(
    claims: str | Path, corpus: str | Path, split: str, *, seed: int = 13
) -> list[LabeledExample]:
    """SciFact claims of one split against their evidence: 1 if it supports them, else 0.

    One example per :func:`scifact_pairs` pair: query and answer are the claim, the
    context (id ``"evidence"``) the pair's sentences, ``category`` the pair's label.
    """
    examples, seen = [], Counter[str]()
    for pair in datasets.scifact_pairs(claims, corpus, split, seed=seed):
        seen[pair.group] += 1
        label, contexts = int(pair.label == "supported"), (Context("evidence", pair.evidence),)
        claim, eid = pair.claim, f"scifact:{pair.group}:{seen[pair.group]}"
        example = LabeledExample(claim, label, claim, contexts, category=pair.label, id=eid)
        examples.append(replace(example, source=f"scifact:{split}"))
    return examples


def review_labels(queue: ReviewQueue, audit: AuditLog | None = None) -> list[LabeledExample]:
    """The review queue's resolved items, oldest first: the verdicts people gave.

    Label 1 when the verdict is ``correct``; ``score`` the judge's raw score at the time
    (read from the ask's audit event when ``audit`` is given and a map calibrated it,
    since maps are fitted on raw scores; else the score shown); ``id`` the ask's audit
    event (whose contexts are in the audit log); ``category`` the policy it was judged
    under.
    """
    examples = []
    for item in sorted(queue.list("resolved", limit=1_000_000), key=lambda item: item.id):
        label, score = int(item.verdict == "correct"), item.confidence_score
        if audit is not None:
            try:
                asked: object = audit.get(item.event_id).record()
            except ValueError:  # a row that is not its record: the score shown stands
                asked = None
            judgment = asked.judgment if isinstance(asked, AskRecord) else None
            if judgment is not None and judgment.calibration is not None:
                score = float(judgment.calibration.raw)
        example = LabeledExample(item.query, label, item.answer, category=item.policy_name)
        examples.append(replace(example, score=score, source="review", id=item.event_id))
    return examples
