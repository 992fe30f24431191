"""What every framework component shares: the engine for the calling thread, one
scoring of a framework's results into the admitted ones with their annotations, and one
judging of an answer against a framework's documents."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.access import parse_labels
from assay.adapters import to_candidates
from assay.engine import Assay
from assay.errors import InvalidInputError
from assay.judge.base import Judgment
from assay.judge.evaluate import evaluate

#: where a document's metadata says who stated it and when, as the gate reads it
#: (:func:`assay.to_candidates`): each context field under its aliases
_SOURCE_FIELDS = {
    "source_id": ("source_id",),
    "source_kind": ("source_kind",),
    "published": ("published", "published_at", "date"),
}


class ThreadEngines:
    """The engine to use in the calling thread.

    An :class:`~assay.Assay` holds one database connection, which stays in the thread
    that opened it, and frameworks call components from thread pools (LangChain's
    ``batch`` and ``ainvoke``, LlamaIndex's ``aquery``, Haystack's ``run_async``). The
    engine given serves its own thread; each other thread gets a fork of it (the same
    database and loaded models, its own connection), kept for that thread.
    """

    def __init__(self, engine: Assay) -> None:
        self.engine, self._home = engine, threading.get_ident()
        self._local = threading.local()

    def get(self) -> Assay:
        """The engine for the calling thread."""
        if threading.get_ident() == self._home:
            return self.engine
        forked: Assay | None = getattr(self._local, "engine", None)
        if forked is None:
            forked = self._local.engine = self.engine.fork()
        return forked


@dataclass(frozen=True, slots=True)
class Found:
    """One result of a framework: its text, its retriever score (``None``: none), its
    metadata and its id."""

    text: str
    score: float | None
    metadata: Mapping[str, Any]
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Rules:
    """How a component gates: the policy (or severity), default sources, score mapping."""

    policy: str | None = None
    severity: str | None = None
    source_id: str | None = None
    source_kind: str | None = None
    similarity: Callable[[float], float] | None = None
    #: the access labels of the user asked for (within the engine's own; ``None``: the
    #: engine's): a result whose metadata ``access`` names none of them is dropped unscored
    grants: Sequence[str] | None = None


def readable(engine: Assay, found: Sequence[Found], grants: Sequence[str] | None) -> list[int]:
    """The positions of the results the caller may read: those whose metadata carries no
    ``access`` labels, or one the caller holds (:mod:`assay.access`). A framework's
    store filters by its own means; this keeps a result it let through from reaching
    the answer, and from the audit row."""
    access = engine.access.narrowed(grants)
    kept = []
    for i, f in enumerate(found):
        labels = f.metadata.get("access") if isinstance(f.metadata, Mapping) else None
        if access.may_read(parse_labels(labels, field="metadata access")):
            kept.append(i)
    return kept


def admitted(
    engine: Assay, query: str, found: Sequence[Found], rules: Rules, origin: str
) -> list[tuple[int, dict[str, Any]]]:
    """``(position in found, annotation)`` of each admitted result, strongest first.

    A retriever score goes through ``rules.similarity``; a result without one is scored
    by the engine's relevance model (and the audit row names that model). One audit
    event of kind ``score`` records every result and verdict.
    """
    positions = readable(engine, found, rules.grants)
    found = [found[i] for i in positions]
    if not found:
        return []
    mapped = rules.similarity or (lambda s: s)
    scores: list[float | None] = [None if f.score is None else mapped(f.score) for f in found]
    missing = [i for i, s in enumerate(scores) if s is None]
    if missing:
        model = engine.relevance
        if model is None:
            raise InvalidInputError(
                "score", None, "return relevance scores, or give the engine a relevance model",
                problem="is missing from a result",
            )  # fmt: skip
        for i, value in zip(missing, model.score(query, [found[i].text for i in missing]),
                            strict=True):  # fmt: skip
            scores[i] = float(value)
        origin = model.name if len(missing) == len(found) else f"{origin} + {model.name}"
    records = [
        {"text": f.text, "similarity": s, "metadata": _without_annotation(f.metadata)}
        | ({"id": f.id} if f.id else {})
        for f, s in zip(found, scores, strict=True)
    ]
    candidates = to_candidates(records, source_id=rules.source_id, source_kind=rules.source_kind)
    result = engine.score(
        query, candidates, policy=rules.policy, severity=rules.severity,
        models={"similarity": origin},
    )  # fmt: skip
    position = {c.id: i for i, c in enumerate(candidates)}
    finding_of = {e: f.id for f in result.findings for e in f.evidence_ids}
    kept = [
        (
            positions[position[item.id]],
            {
                "confidence": item.confidence,
                "label": item.label.value,
                "scores": item.scores.as_dict(),
                "finding": finding_of.get(item.id),
                "evidence_id": item.id,
                "event_id": result.event_id,
                "policy": f"{item.policy_name} v{item.policy_version}",
            },
        )
        for item in result.evidence
        if item.admitted
    ]
    return sorted(kept, key=lambda pair: -float(pair[1]["confidence"]))


def _without_annotation(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A result's metadata without an earlier gate's ``assay`` annotation."""
    return {k: v for k, v in metadata.items() if k != "assay"}


def judge_context(position: int, text: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The evaluate context of a framework's ``position``-th document (from 1): its text
    as ``context-<position>``, with the ``source_id``, ``source_kind`` and ``published``
    its metadata gives (under the aliases the gate reads), so that the judge weighs an
    official document above a chat message that contradicts it."""
    context: dict[str, Any] = {"id": f"context-{position}", "text": text}
    for name, aliases in _SOURCE_FIELDS.items():
        value = next((metadata[a] for a in aliases if metadata.get(a) not in (None, "")), None)
        if value is not None:
            context[name] = value
    return context


def judged(
    engine: Assay, policy: str | None, query: str, answer: str, contexts: list[dict[str, Any]]
) -> Judgment:
    """The engine's judgment of ``answer`` under ``policy``'s thresholds (default: the
    configured policy); the contexts may name the kinds and sources of its registry."""
    chosen = engine.policies.resolve(name=policy or engine.settings.default_policy)
    return evaluate(
        query, answer, contexts, judge=engine.judge, thresholds=chosen.judge.thresholds,
        registry=engine.sources,
    )  # fmt: skip
