"""Drop-in scoring for other people's retrievers (B6).

:func:`to_candidates` turns what common retrievers return into assay
:class:`~assay.types.Candidate` objects, without importing their libraries:

* ``(text, score)`` pairs and plain dicts (``text``/``content``/``page_content``,
  ``similarity``/``score``/``relevance_score``, plus any candidate field);
* LangChain ``Document`` objects, alone or as ``(Document, score)`` pairs from
  ``similarity_search_with_relevance_scores``;
* LlamaIndex ``NodeWithScore`` objects;
* Haystack ``Document`` objects (``content``, ``score``, ``meta``).

Candidate fields are read from the item's metadata: ``source_id``, ``source_kind``,
``published`` (or ``published_at``, ``date``), ``verified`` (or ``last_verified``),
``title``, ``uri`` (or ``url``, ``source``); everything else stays in ``metadata``.
Scores must be relevances in [0, 1]: pass ``similarity=`` to map anything else (for a
cosine *distance* ``lambda d: 1 - d``). An item without an id gets one from the hash of
its text, source and uri, so the same passage keeps the same id in every audit row.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from assay.errors import InvalidInputError
from assay.types import Candidate

_TEXT_KEYS = ("text", "content", "page_content")
_SCORE_KEYS = ("similarity", "score", "relevance_score")
_FIELD_ALIASES = {
    "source_id": ("source_id",),
    "source_kind": ("source_kind",),
    "published": ("published", "published_at", "date"),
    "verified": ("verified", "last_verified"),
    "title": ("title",),
    "uri": ("uri", "url", "source"),
}


def to_candidates(
    items: Iterable[Any],
    *,
    source_id: str | None = None,
    source_kind: str | None = None,
    similarity: Callable[[float], float] | None = None,
) -> list[Candidate]:
    """Convert retriever results to candidates.

    ``source_id`` / ``source_kind`` apply to items whose metadata names no source;
    ``similarity`` maps each raw score to a relevance in [0, 1].
    """
    out = []
    for position, item in enumerate(items):
        if isinstance(item, Candidate):
            out.append(item)
            continue
        text, score, metadata, item_id = _unpack(item, position)
        if score is None:
            raise InvalidInputError(
                f"item {position}: score",
                None,
                "return scores from the retriever",
                problem="is missing",
            )
        fields = _fields(metadata)
        if "source_id" not in fields and "source_kind" not in fields:
            fields.update(source_id=source_id, source_kind=source_kind)
        try:
            relevance = similarity(score) if similarity else score
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(
                f"item {position}: score", score, "fix the similarity= mapping"
            ) from exc
        out.append(
            Candidate(
                id=item_id or _content_id(text, fields),
                text=text,
                similarity=_relevance(position, score, relevance, similarity is not None),
                metadata=_json_safe(metadata),
                **fields,
            )
        )
    return out


def _unpack(item: Any, position: int) -> tuple[str, Any, dict[str, Any], str | None]:
    """(text, score, metadata, id) from one retriever result."""
    score: Any = None
    if isinstance(item, tuple | list) and len(item) == 2:
        item, score = item
    if isinstance(item, str):
        return item, score, {}, None
    if isinstance(item, Mapping):
        record = dict(item)
        text = next((record.pop(k) for k in _TEXT_KEYS if k in record), None)
        found = next((record.pop(k) for k in _SCORE_KEYS if k in record), None)
        extra = record.pop("metadata", {}) or {}
        item_id = record.pop("id", None)
        return (
            _text(text, position),
            score if score is not None else found,
            {**extra, **record},
            item_id,
        )
    if hasattr(item, "node") and hasattr(item, "score"):  # LlamaIndex NodeWithScore
        node = item.node
        content = (
            node.get_content() if hasattr(node, "get_content") else getattr(node, "text", None)
        )
        node_id = getattr(node, "node_id", None) or getattr(node, "id_", None)
        return _text(content, position), item.score, dict(node.metadata or {}), node_id
    if hasattr(item, "page_content"):  # LangChain Document
        meta = dict(item.metadata or {})
        item_id = getattr(item, "id", None) or meta.pop("id", None)
        found = next((meta.pop(k) for k in _SCORE_KEYS if k in meta), None)
        return (
            _text(item.page_content, position),
            score if score is not None else found,
            meta,
            item_id,
        )
    if hasattr(item, "content") and hasattr(item, "meta"):  # Haystack Document
        found = getattr(item, "score", None)
        return (
            _text(item.content, position),
            score if score is not None else found,
            dict(item.meta or {}),
            getattr(item, "id", None),
        )
    raise InvalidInputError(
        f"item {position}",
        item,
        "pass (text, score) pairs, dicts, LangChain Documents, LlamaIndex NodeWithScore "
        "or Haystack Documents",
        problem="is not a retriever result assay knows",
    )


def _text(value: Any, position: int) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(
            f"item {position}: text", value, "give the passage text as a string"
        )
    return value


def _fields(metadata: dict[str, Any]) -> dict[str, Any]:
    """Pop the candidate fields out of the metadata, under any of their aliases."""
    fields: dict[str, Any] = {}
    for name, aliases in _FIELD_ALIASES.items():
        for alias in aliases:
            if alias in metadata and metadata[alias] not in (None, ""):
                fields[name] = metadata.pop(alias)
                break
    return fields


def _relevance(position: int, raw: Any, value: Any, mapped: bool) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0.0 <= value <= 1.0:
        return float(value)
    fix = (
        "make the similarity= mapping return a number in [0, 1]"
        if mapped
        else "pass similarity= to map it into [0, 1] (e.g. lambda d: 1 - d for a cosine distance)"
    )
    raise InvalidInputError(
        f"item {position}: score", raw, fix, problem="is not a relevance in [0, 1]"
    )


def _content_id(text: str, fields: dict[str, Any]) -> str:
    """A stable id from the passage and where it came from (source and uri)."""
    origin = f"{fields.get('source_id') or fields.get('source_kind')}\n{fields.get('uri')}"
    return "sha256:" + hashlib.sha256(f"{origin}\n{text}".encode()).hexdigest()[:16]


def _json_safe(metadata: dict[str, Any]) -> dict[str, Any]:
    """Keep JSON values as they are; render anything else (dates, objects) as text."""
    safe: dict[str, Any] = json.loads(json.dumps(metadata, default=str))
    return safe
