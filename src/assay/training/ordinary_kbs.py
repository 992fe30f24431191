"""Knowledge bases written as users write them, in the "ordinary documents" layout.

Two suites share the layout (described in ``bench/ordinary/README.md``): ``bench/ordinary``,
which measures what users get and is never fitted to, and ``labels/ordinary-fit``, other
knowledge bases of other domains written the same way, which the answer-correctness
model is fitted on (:mod:`assay.training.correctness_train`). A knowledge base is a
folder with ``kb.json`` (its sources and the day its questions are asked, ``as_of``),
``docs/`` (Markdown files with front matter, JSON Lines files of forum or chat posts) and
``questions.jsonl`` (direct, paraphrased, unanswerable and disagreement questions with
their gold answers).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.ingest.loaders import load_file
from assay.ingest.pipeline import IngestOptions
from assay.models.answerability import LLMAnswerability
from assay.settings import LLMSettings, load_settings
from assay.training.answer_rows import AnswerRow, Journal, QAItem, ask_rows

__all__ = ["FIT_SUITE", "OrdinaryKB", "answer_rows", "build", "knowledge_bases"]

#: the suite the answer-correctness model is fitted on (the repository's labels/)
FIT_SUITE = Path(__file__).resolve().parents[3] / "labels" / "ordinary-fit"


@dataclass(frozen=True, slots=True)
class OrdinaryKB:
    """One knowledge base of a suite: its folder, ``kb.json`` and questions."""

    folder: Path
    spec: dict[str, Any]
    questions: tuple[dict[str, Any], ...]

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def as_of(self) -> date:
        """The day its questions are asked ("today" for freshness and "this year")."""
        return date.fromisoformat(self.spec["as_of"])


def knowledge_bases(suite: Path) -> Iterator[OrdinaryKB]:
    """Every knowledge base of ``suite`` (each folder holding a ``kb.json``), by name."""
    folders = sorted(p.parent for p in suite.glob("*/kb.json"))
    if not folders:
        raise InvalidInputError(
            "suite", str(suite), "give a folder of knowledge bases", problem="holds no */kb.json"
        )
    for folder in folders:
        spec = json.loads((folder / "kb.json").read_text(encoding="utf-8"))
        lines = (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        yield OrdinaryKB(folder, spec, tuple(json.loads(line) for line in lines if line.strip()))


def build(kb: OrdinaryKB, folder: Path, **settings: Any) -> Assay:
    """A fresh engine in ``folder`` over ``kb``: its sources registered as ``kb.json``
    states them, each file ingested under the source its front matter names (as the
    curator who wrote it would ingest it). ``settings`` override the engine's (offline:
    no chat endpoint)."""
    db = folder / f"{kb.name}.db"
    base = load_settings(db=db, llm=LLMSettings())
    engine = Assay(db, settings=base.model_copy(update=settings), calibrate=False)
    for source in kb.spec["sources"]:
        reviewed = source.get("reviewed_at")
        engine.sources.add(
            source["id"], source["kind"], name=source.get("name"), owner=source.get("owner"),
            reviewed_at=date.fromisoformat(reviewed) if reviewed else None,
            supersedes=source.get("supersedes"),
        )  # fmt: skip
    for doc in sorted(p for p in (kb.folder / "docs").rglob("*") if p.is_file()):
        source_id = load_file(doc)[0].source_id
        report = engine.ingest([doc], options=IngestOptions(source_id=source_id))
        if report.count("failed"):
            engine.close()
            errors = "; ".join(str(f.error) for f in report.files if f.error)
            raise InvalidInputError(
                "document", str(doc), "fix the file", problem=f"did not ingest: {errors}"
            )
    return engine


def answer_rows(
    suite: Path,
    dataset: str,
    policies: Sequence[str],
    answerability: LLMAnswerability | None = None,
    journal: Journal | None = None,
    **settings: Any,
) -> list[AnswerRow]:
    """Every question of every knowledge base of ``suite`` asked of it under each policy
    on its ``as_of`` day, one :class:`~assay.training.answer_rows.AnswerRow` each (set
    ``dataset``): answerable questions (direct, paraphrase, disagreement) in condition
    ``present``, the others in ``unanswerable``. Rows a stopped run kept in ``journal`` are
    taken back (:func:`~assay.training.answer_rows.ask_rows`)."""
    rows: list[AnswerRow] = []
    for kb in knowledge_bases(suite):
        with tempfile.TemporaryDirectory(prefix="assay-ordinary-") as tmp:
            engine = build(kb, Path(tmp), **settings)
            try:
                for condition in ("present", "unanswerable"):
                    items = [
                        QAItem(q["id"], q["question"], tuple(q["answers"]))
                        for q in kb.questions
                        if (q["type"] == "unanswerable") == (condition == "unanswerable")
                    ]
                    rows += ask_rows(
                        dataset, condition, engine, items, policies,
                        answerability=answerability, as_of=kb.as_of, journal=journal,
                    )  # fmt: skip
            finally:
                engine.close()
    return rows
