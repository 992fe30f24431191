"""What every framework component shares: the engine for the calling thread, and one
scoring of a framework's results into the admitted ones with their annotations."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.adapters import to_candidates
from assay.engine import Assay
from assay.errors import InvalidInputError


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


def admitted(
    engine: Assay, query: str, found: Sequence[Found], rules: Rules, origin: str
) -> list[tuple[int, dict[str, Any]]]:
    """``(position in found, annotation)`` of each admitted result, strongest first.

    A retriever score goes through ``rules.similarity``; a result without one is scored
    by the engine's relevance model (and the audit row names that model). One audit
    event of kind ``score`` records every result and verdict.
    """
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
            position[item.id],
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
