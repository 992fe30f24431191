"""Labeled answers from knowledge bases with and without the answer.

Users ask questions whose answer their documents may not hold, about subjects the
documents do cover. To learn and to measure that, each question-answering set becomes
two knowledge bases of the same documents (:func:`knowledge_bases`): ``present`` holds
every paragraph, ``absent`` lacks a seeded half of them. The questions are drawn from
the removed half (:func:`sample_questions`), so in ``absent`` their gold paragraph is gone
while the rest of its document (on-topic passages without the answer) remains. SQuAD
2.0's unanswerable questions, written against a paragraph that does not answer them,
are asked of ``present`` as a third condition, ``unanswerable``.

:func:`ask_rows` asks every question of a condition under each policy (``record=False``)
and keeps, per answer, the status, the answer text, whether it holds a gold answer
(SQuAD's normalisation) and the features of :mod:`assay.answer.correctness`.

Sets in SQuAD JSON: ``squad`` (SQuAD 2.0 dev, by the article splits of
:func:`assay.training.datasets.squad_splits`), ``xquad`` (XQuAD's English original:
Wikipedia articles of SQuAD 1.1 dev, every question answerable), ``policyqa`` (privacy
policies; each question is prefixed by its policy's name, since it asks about "this
website") and ``covid_qa`` (scientific articles, one long paragraph each). And
``tatqa`` (TAT-QA's own JSON: annual-report excerpts, a table and its paragraphs, see
:func:`load_tatqa`): its questions ask about "the company" of one report, so each report
is a knowledge base of its own (:data:`ONE_KNOWLEDGE_BASE_PER_DOCUMENT`).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import Any

from assay.answer.citations import strip_citations
from assay.answer.correctness import features_of
from assay.calibration.scored import contains_gold, normalize_answer
from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.flow.respond import Status
from assay.ingest.pipeline import IngestOptions
from assay.models.answerability import LLMAnswerability
from assay.settings import load_settings
from assay.training.datasets import squad_splits

__all__ = [
    "CONDITIONS",
    "ONE_KNOWLEDGE_BASE_PER_DOCUMENT",
    "AnswerRow",
    "Journal",
    "Paragraph",
    "QAItem",
    "ask_rows",
    "build_knowledge_base",
    "by_document",
    "each_knowledge_base",
    "journal_path",
    "kept_rows",
    "knowledge_bases",
    "load_documents",
    "load_tatqa",
    "read_rows",
    "removed_half",
    "sample_questions",
    "table_text",
    "write_rows",
]

CONDITIONS = ("present", "absent", "unanswerable")
AS_OF = date(2026, 6, 1)
REVIEWED = date(2026, 5, 1)  # a month before AS_OF: no review is overdue
PUBLISHED = "2026-03-01"
SOURCE = "qa-set"
SETS = ("squad", "xquad", "policyqa", "covid_qa", "tatqa")
#: sets whose questions assume a single document ("the company", "the table")
ONE_KNOWLEDGE_BASE_PER_DOCUMENT = frozenset({"tatqa"})


@dataclass(frozen=True, slots=True)
class QAItem:
    """One question with its gold answers (none: unanswerable)."""

    id: str
    question: str
    golds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One paragraph of a document, with the questions written against it."""

    id: str
    title: str
    text: str
    questions: tuple[QAItem, ...]


def load_documents(
    name: str, path: str | Path, split: str | None = None, *, leave_out: Collection[str] = ()
) -> list[Paragraph]:
    """The paragraphs of set ``name`` (see the module docstring) in file order, but for
    the articles titled in ``leave_out`` (XQuAD's articles that SQuAD 2.0 dev holds too)."""
    file = Path(path)
    if name not in SETS:
        raise InvalidInputError("set", name, f"use one of {', '.join(SETS)}")
    if name == "tatqa":
        return load_tatqa(file)
    articles = [a for a in json.loads(file.read_text())["data"] if a.get("title") not in leave_out]
    if name == "squad":
        if split is None:
            raise InvalidInputError("split", None, "give train, validation or test for squad")
        titles = set(squad_splits(file)[split])
        articles = [a for a in articles if a["title"] in titles]
    out = []
    for a, article in enumerate(articles):
        title = str(article.get("title") or f"document {a + 1}").replace("_", " ")
        # a PolicyQA question means "this website": it names the policy it asks about
        scope = f"{title}: " if name == "policyqa" else ""
        for p, paragraph in enumerate(article["paragraphs"]):
            questions = tuple(
                QAItem(
                    str(qa["id"]),
                    scope + str(qa["question"]),
                    tuple(x["text"] for x in qa["answers"]),
                )
                for qa in paragraph["qas"]
            )
            if str(paragraph["context"]).strip():
                out.append(
                    Paragraph(f"{name}:{a}:{p}", title, str(paragraph["context"]), questions)
                )
    return out


def load_tatqa(file: Path) -> list[Paragraph]:
    """TAT-QA's reports as paragraphs titled ``report N``: the table, as text
    (:func:`table_text`), then the text paragraphs.

    Only questions one passage answers with one span are kept (TAT-QA's ``span`` answers
    from the table alone or from one paragraph), and only where that span appears in no
    other passage of the report: so ``absent``, without that passage, truly lacks the
    answer, and a quoted sentence that holds the span is the right one. Arithmetic,
    counting and multi-span answers are left out: an extractive answer cannot state them.
    """
    out = []
    for r, report in enumerate(json.loads(file.read_text(encoding="utf-8"))):
        title = f"report {r + 1}"
        passages = {"table": table_text(report["table"]["table"])}
        passages |= {str(p["order"]): str(p["text"]) for p in report["paragraphs"]}
        said = {key: f" {normalize_answer(text)} " for key, text in passages.items()}
        asked: dict[str, list[QAItem]] = {key: [] for key in passages}
        for q in report["questions"]:
            if q["answer_type"] != "span" or q["answer_from"] == "table-text":
                continue
            evidence = ["table"] if q["answer_from"] == "table" else q["rel_paragraphs"]
            gold = f" {normalize_answer(str(q['answer'][0]))} "
            where = [key for key, text in said.items() if gold.strip() and gold in text]
            if len(evidence) == 1 and where == [str(evidence[0])]:
                asked[where[0]].append(QAItem(str(q["uid"]), str(q["question"]), (q["answer"][0],)))
        out += [
            Paragraph(f"tatqa:{r}:{key}", title, text, tuple(asked[key]))
            for key, text in passages.items()
            if text.strip()
        ]
    return out


def table_text(rows: Sequence[Sequence[str]]) -> str:
    """A TAT-QA table as one sentence per row: ``Label: value (column), value (column).``

    The first row and the rows after it with an empty first cell are the header; a
    column's name joins its header cells ("Years Ended July 27, 2019"). A row of a label
    alone (a section such as "Deferred tax assets") is a sentence of its own.
    """
    cells = [[str(cell).strip() for cell in row] for row in rows]
    header = 1
    while header < len(cells) and not cells[header][0]:
        header += 1
    width = max(map(len, cells), default=0)
    columns = [
        " ".join(row[c] for row in cells[:header] if c < len(row) and row[c]) for c in range(width)
    ]
    lines = [f"{columns[0]}." if columns and columns[0] else ""]
    for row in cells[header:]:
        label = row[0].rstrip(".: ") if row else ""
        values = [
            f"{value} ({columns[c]})" if columns[c] else value
            for c, value in enumerate(row[1:], start=1)
            if value
        ]
        line = f"{label}: {', '.join(values)}" if label and values else label or ", ".join(values)
        lines.append(f"{line}." if line else "")
    return "\n".join(line for line in lines if line)


def by_document(paragraphs: Sequence[Paragraph]) -> dict[str, list[Paragraph]]:
    """The paragraphs of each document (by title), in file order."""
    documents: dict[str, list[Paragraph]] = {}
    for paragraph in paragraphs:
        documents.setdefault(paragraph.title, []).append(paragraph)
    return documents


def removed_half(
    paragraphs: Sequence[Paragraph], seed: int = 13, *, per_document: bool = False
) -> set[str]:
    """The ids of the seeded half of the paragraphs that ``absent`` lacks; with
    ``per_document``, half of each document's (rounded down, each document seeded by its
    title too), so that a document that is a knowledge base of its own keeps at least one
    passage."""
    if per_document:
        return {
            p.id
            for title, document in by_document(paragraphs).items()
            for p in random.Random(f"{seed}:{title}").sample(document, len(document) // 2)
        }
    ids = [p.id for p in paragraphs]
    return set(random.Random(seed).sample(ids, len(ids) // 2))


def sample_questions(
    paragraphs: Sequence[Paragraph],
    n: int,
    *,
    seed: int = 13,
    removed: Collection[str] | None = None,
) -> dict[str, list[QAItem]]:
    """Per condition, up to ``n`` seeded questions of the removed half (by default
    :func:`removed_half`): answerable ones for ``present`` and ``absent`` (the same
    questions), unanswerable for the third."""
    removed = removed_half(paragraphs, seed) if removed is None else removed
    pool = [q for p in paragraphs if p.id in removed for q in p.questions]
    rng = random.Random(seed)
    answerable = [q for q in pool if q.golds]
    unanswerable = [q for q in pool if not q.golds]
    answerable = rng.sample(answerable, min(n, len(answerable)))
    unanswerable = rng.sample(unanswerable, min(n, len(unanswerable)))
    return {"present": answerable, "absent": answerable, "unanswerable": unanswerable}


def _records(paragraphs: Sequence[Paragraph]) -> list[dict[str, str]]:
    return [
        {"id": p.id, "title": p.title, "published": PUBLISHED, "text": p.text} for p in paragraphs
    ]


@contextmanager
def knowledge_bases(
    paragraphs: Sequence[Paragraph],
    *,
    seed: int = 13,
    removed: Collection[str] | None = None,
    **settings: Any,
) -> Iterator[dict[str, Assay]]:
    """Engines on the ``present`` and ``absent`` knowledge bases of ``paragraphs`` (and
    ``unanswerable`` = ``present``), in a temporary folder; ``settings`` go to both.

    ``absent`` lacks the paragraphs whose ids are in ``removed``; by default the seeded
    half of ``paragraphs``. A document's own knowledge bases take the half drawn over the
    whole set, so that they lack what :func:`sample_questions` drew its questions from."""
    removed = removed_half(paragraphs, seed) if removed is None else removed
    with tempfile.TemporaryDirectory(prefix="assay-answer-rows-") as tmp:
        engines = {
            "present": build_knowledge_base(
                Path(tmp) / "present", _records(paragraphs), **settings
            ),
            "absent": build_knowledge_base(
                Path(tmp) / "absent",
                _records([p for p in paragraphs if p.id not in removed]),
                **settings,
            ),
        }
        try:
            yield engines | {"unanswerable": engines["present"]}
        finally:
            for engine in engines.values():
                engine.close()


def each_knowledge_base(
    name: str, paragraphs: Sequence[Paragraph], n: int, *, seed: int = 13, **settings: Any
) -> Iterator[tuple[dict[str, Assay], dict[str, list[QAItem]]]]:
    """The engines of each knowledge base of set ``name`` (:func:`knowledge_bases`; one
    per document for :data:`ONE_KNOWLEDGE_BASE_PER_DOCUMENT`, else one) and, per
    condition, the questions of :func:`sample_questions` (up to ``n``) it is asked.

    Each pair of knowledge bases is closed once the next is asked for."""
    one_each = name in ONE_KNOWLEDGE_BASE_PER_DOCUMENT
    removed = removed_half(paragraphs, seed, per_document=one_each)
    asked = sample_questions(paragraphs, n, seed=seed, removed=removed)
    for scope in by_document(paragraphs).values() if one_each else [paragraphs]:
        own = {q.id for p in scope for q in p.questions}
        items = {c: [q for q in questions if q.id in own] for c, questions in asked.items()}
        if any(items.values()):
            with knowledge_bases(scope, seed=seed, removed=removed, **settings) as engines:
                yield engines, items


def build_knowledge_base(
    folder: Path,
    records: Sequence[dict[str, str]],
    *,
    name: str = "kb",
    source: str = SOURCE,
    owner: str = "assay training",
    calibrate: bool = False,
    **settings: Any,
) -> Assay:
    """A fresh knowledge base ``folder/<name>.db`` of ``records`` (``assay ingest`` JSON
    Lines records) from one ``official`` source reviewed on ``REVIEWED``, ingested as
    ``<name>.jsonl`` by a relative uri, so chunk ids do not depend on the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / f"{name}.db"
    engine = Assay(db, settings=load_settings(db=db, **settings), calibrate=calibrate)
    engine.sources.add(source, "official", owner=owner, reviewed_at=REVIEWED)
    file = folder / f"{name}.jsonl"
    file.write_text("".join(json.dumps(r) + "\n" for r in records))
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        report = engine.ingest([Path(file.name)], options=IngestOptions(source_id=source))
    finally:
        os.chdir(cwd)
    if report.count("failed"):
        engine.close()
        raise InvalidInputError(
            "knowledge base",
            str(file),
            "check the records",
            problem=f"failed: {report.files[0].error}",
        )
    return engine


@dataclass(frozen=True, slots=True)
class AnswerRow:
    """What one question got under one policy in one condition."""

    dataset: str
    condition: str
    policy: str
    question: str
    status: str
    answer: str  #: the drafted answer as quoted from the evidence; "" when none
    answered: bool  #: an answer was given (status ``answered``)
    drafted: bool  #: an answer was drafted and judged (given or withheld)
    correct: bool  #: the drafted answer holds a gold answer
    score: float  #: the J1 confidence_score of the drafted answer; 0.0 when none
    features: dict[str, float] | None  #: of the drafted answer

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def write_rows(path: Path, rows: Sequence[AnswerRow]) -> None:
    """Keep ``rows`` in ``path``, one JSON object a line (its folder is made if missing),
    so that a later fit or bench reads them with :func:`read_rows` instead of asking
    every question again."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in rows))


def read_rows(path: Path) -> list[AnswerRow]:
    """The rows :func:`write_rows` kept in ``path``."""
    return [AnswerRow(**json.loads(line)) for line in path.read_text().splitlines()]


def kept_path(folder: Path | None, name: str, *, llm: bool = False) -> Path | None:
    """Where :func:`kept_rows` keeps set ``name``'s rows in ``folder`` (none without one)."""
    return folder / f"{name}{'-llm' if llm else ''}.jsonl" if folder else None


def journal_path(folder: Path | None, name: str, *, llm: bool = False) -> Path | None:
    """Where the :class:`Journal` of set ``name``'s rows lies while they are asked."""
    kept = kept_path(folder, name, llm=llm)
    return kept.with_suffix(".asking.jsonl") if kept else None


def kept_rows(
    folder: Path | None, name: str, collect: Callable[[], list[AnswerRow]], *, llm: bool = False
) -> list[AnswerRow]:
    """``collect()``'s rows of set ``name``, kept in ``folder/NAME.jsonl``
    (``NAME-llm.jsonl`` when they hold the chat model's beliefs): read back when an
    earlier run kept them there, else collected, and kept there when ``folder`` is given.
    Rows read back are reused as they were kept, whatever was asked this time."""
    path = kept_path(folder, name, llm=llm)
    if path is not None and path.is_file():
        return read_rows(path)
    rows = collect()
    if path is not None:
        write_rows(path, rows)
    return rows


class Journal:
    """Rows kept one by one as they are asked, in a file, so that a collection stopped
    midway (a refit that asks the chat model about every answer runs for hours) goes on
    where it stopped instead of asking everything again.

    A run that asks in the same order as the stopped one takes its rows back in order
    (:meth:`take`), as they were asked (by the code of that run); at the first row asked
    otherwise, what follows in the file no longer applies and is dropped, and so is a
    last line the stopped run did not finish writing. Without a path nothing is kept."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._rows: list[AnswerRow] = []
        self._next = 0
        lines = path.read_text().splitlines() if path is not None and path.is_file() else []
        for n, line in enumerate(lines):
            try:
                self._rows.append(AnswerRow(**json.loads(line)))
            except (json.JSONDecodeError, TypeError):
                if n < len(lines) - 1:
                    raise
                assert path is not None
                write_rows(path, self._rows)  # the stopped run's half-written last line

    def take(self, dataset: str, condition: str, question: str, policy: str) -> AnswerRow | None:
        """The kept row of this question if it is the next one kept, else ``None``."""
        if self._next < len(self._rows):
            row = self._rows[self._next]
            if (row.dataset, row.condition, row.question, row.policy) == (
                dataset, condition, question, policy,
            ):  # fmt: skip
                self._next += 1
                return row
            del self._rows[self._next :]
            if self.path is not None:
                write_rows(self.path, self._rows)
        return None

    def add(self, row: AnswerRow) -> None:
        """Keep ``row``, asked after every row taken or added before it."""
        self._rows.append(row)
        self._next += 1
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as file:
                file.write(json.dumps(row.to_dict()) + "\n")

    def close(self) -> None:
        """Remove the file: the collection finished and its rows are kept whole."""
        if self.path is not None:
            self.path.unlink(missing_ok=True)


def ask_rows(
    dataset: str,
    condition: str,
    engine: Assay,
    questions: Sequence[QAItem],
    policies: Sequence[str],
    *,
    progress: Callable[[int, int], None] | None = None,
    answerability: LLMAnswerability | None = None,
    as_of: date = AS_OF,
    journal: Journal | None = None,
) -> list[AnswerRow]:
    """Ask each question under each policy on day ``as_of``; one row each (see the
    module docstring). Rows a stopped run kept in ``journal`` are taken back instead of
    asked again, and each row asked is kept there.

    An answer the engine did not rate gets its features computed here, with the chat
    model's belief too when ``answerability`` is given (to fit a model of
    :data:`assay.answer.correctness.LLM_FEATURES`)."""
    rows = []
    relevance, reader = engine.relevance, engine.reader
    for i, item in enumerate(questions):
        if progress is not None:
            progress(i, len(questions))
        for policy in policies:
            kept = journal.take(dataset, condition, item.question, policy) if journal else None
            if kept is not None:
                rows.append(kept)
                continue
            response = engine.ask(item.question, policy=policy, as_of=as_of, record=False)
            draft, judgment = response.draft, response.judgment
            drafted = draft is not None and judgment is not None and not judgment.no_answer
            features: dict[str, float] | None = None
            correct, score, quoted = False, 0.0, ""
            if drafted:
                assert draft is not None and judgment is not None
                quoted = strip_citations(draft.quoted)
                correct = contains_gold(strip_citations(draft.text), item.golds)
                score = judgment.assessment.confidence_score
                if judgment.correctness is not None:
                    features = dict(judgment.correctness["features"])
                elif relevance is not None and reader is not None:
                    cited = response.citations.valid if response.citations else ()
                    support = judgment.assessment.confidence_score
                    features = features_of(
                        relevance, reader, item.question, response.result, draft.quoted,
                        cited, support, answerability,
                    )  # fmt: skip
            row = AnswerRow(
                dataset,
                condition,
                policy,
                item.question,
                response.status.value,
                quoted,
                response.status is Status.ANSWERED,
                drafted,
                correct,
                score,
                features,
            )
            rows.append(row)
            if journal is not None:
                journal.add(row)
    return rows
