"""The contexts of the evaluate contract, validated: who stated each text, and when.

A context is an object with ``id`` and ``text`` and, optionally::

    "source_id": "travel-policy"    any non-empty string; a source the registry holds
                                    gives its kind and its own reliability
    "source_kind": "official"       a known kind: official 1.0, verified_kb 0.9,
                                    internal_wiki 0.7, customer 0.4, unverified 0.3,
                                    or one a database adds (`assay sources add-kind`)
    "published": "2026-03-02"       an ISO date

(:class:`~assay.judge.schema.Context` objects are taken as well, with their confidence).
Any other key is refused, naming the keys accepted; a bad value is refused naming the
field, the value and the fix. A context's kind or registered source gives it a
reliability, which the offline judge weighs when two contexts disagree
(:mod:`assay.judge.strength`); a bare ``{"id", "text"}`` context is judged as it always
was. Contexts are deduplicated: a repeat of an earlier context's text is dropped, while
one id given two different texts (or sources) is refused, because the judge could not say
which one a source id means.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING, Any

from assay.errors import InvalidInputError, UnknownSourceError, did_you_mean
from assay.judge.schema import Context
from assay.judge.strength import BUILTIN_KINDS
from assay.types import parse_date

if TYPE_CHECKING:
    from assay.sources import SourceRegistry
    from assay.store.records import Source

__all__ = ["CONTEXT_KEYS", "SourceBook", "check_contexts"]

#: the keys a context of the contract may have; ``id`` and ``text`` are required
CONTEXT_KEYS = ("id", "text", "source_id", "source_kind", "published")
_KEYS_FIX = (
    'give an object with "id" and "text", and optionally "source_id", "source_kind" and "published"'
)
#: names callers give a context's source fields by elsewhere (as the gate reads metadata)
_MEANT = {
    "kind": "source_kind",
    "source": "source_id",
    "date": "published",
    "published_at": "published",
}


class SourceBook:
    """What the contract knows of sources: the built-in kinds, or, given a registry, its
    kinds and its sources, each read once and only when a context names one."""

    def __init__(self, registry: SourceRegistry | None = None) -> None:
        """``registry``: the source registry of the caller's database, if it has one."""
        self._registry = registry
        self._kinds: dict[str, float] | None = None
        self._sources: dict[str, Source | None] = {}

    @property
    def kinds(self) -> Mapping[str, float]:
        """Every kind a context may name, with its reliability."""
        if self._registry is None:
            return BUILTIN_KINDS
        if self._kinds is None:
            self._kinds = {n: k.reliability for n, k in self._registry.kinds().items()}
        return self._kinds

    def registered(self, source_id: str) -> Source | None:
        """The registered source called ``source_id``; ``None`` when there is none (an
        unregistered source id is only a name)."""
        if self._registry is None:
            return None
        if source_id not in self._sources:
            try:
                self._sources[source_id] = self._registry.get(source_id)
            except UnknownSourceError:
                self._sources[source_id] = None
        return self._sources[source_id]


def check_contexts(contexts: object, *, registry: SourceRegistry | None = None) -> list[Context]:
    """``contexts`` validated and deduplicated (see the module docstring); ``registry``
    adds a database's own kinds and registered sources to the built-in kinds."""
    if isinstance(contexts, str | bytes | Mapping) or not isinstance(contexts, Sequence):
        raise InvalidInputError("contexts", contexts, 'give a list of {"id", "text"} objects')
    if not contexts:
        raise InvalidInputError(
            "contexts", contexts, "give at least one context the answer may rest on",
            problem="is empty",
        )  # fmt: skip
    book = SourceBook(registry)
    kept: dict[str, Context] = {}
    texts: set[str] = set()
    for i, item in enumerate(contexts):
        context = _checked(item, f"contexts[{i}]", book)
        if context.id in kept:
            earlier = kept[context.id]
            if earlier.text != context.text:
                raise InvalidInputError(
                    f"contexts[{i}].id", context.id, "give each different text its own id",
                    problem="names two different texts",
                )  # fmt: skip
            if _source(earlier) != _source(context):
                raise InvalidInputError(
                    f"contexts[{i}].id", context.id, "give each different source its own id",
                    problem="names two different sources",
                )  # fmt: skip
            continue
        if context.text in texts:
            continue  # the same passage under another id adds nothing
        kept[context.id] = context
        texts.add(context.text)
    return list(kept.values())


def _fields(item: object, where: str) -> Mapping[str, Any]:
    """The contract's fields of one context, or an error naming what is wrong with it."""
    if isinstance(item, Context):
        return {
            "id": item.id, "text": item.text, "source_id": item.source_id,
            "source_kind": item.source_kind, "published": item.published,
        }  # fmt: skip
    if not isinstance(item, Mapping):
        raise InvalidInputError(where, item, _KEYS_FIX, problem="is not an object")
    unknown = [k for k in item if k not in CONTEXT_KEYS]
    if unknown:
        first = str(unknown[0])
        hint = (
            f"did you mean {_MEANT[first]!r}? "
            if first in _MEANT
            else did_you_mean(first, CONTEXT_KEYS[2:])
        )
        plural = "s" if len(unknown) > 1 else ""
        names = ", ".join(repr(k) for k in unknown)
        raise InvalidInputError(
            where, item, hint + _KEYS_FIX, problem=f"has the unknown key{plural} {names}"
        )
    absent = [k for k in ("id", "text") if k not in item]
    if absent:
        names = " and ".join(f'"{k}"' for k in absent)
        raise InvalidInputError(where, item, _KEYS_FIX, problem=f"lacks {names}")
    return item


def _checked(item: object, where: str, book: SourceBook) -> Context:
    """One context: a :class:`Context` or a mapping of :data:`CONTEXT_KEYS`, checked,
    with the reliability of its registered source or of its kind."""
    fields = _fields(item, where)
    cid, text = fields["id"], fields["text"]
    if not isinstance(cid, str) or not cid.strip():
        raise InvalidInputError(f"{where}.id", cid, "give a non-empty string id")
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(f"{where}.text", text, "give the context's text")
    source_id, kind = fields.get("source_id"), fields.get("source_kind")
    if source_id is not None and (not isinstance(source_id, str) or not source_id.strip()):
        raise InvalidInputError(
            f"{where}.source_id", source_id,
            "give the id of the source that states the text as a non-empty string, or leave it out",
        )  # fmt: skip
    published = parse_date(f"{where}.published", fields.get("published"))
    given = item if isinstance(item, Context) else None
    if given is not None and (given.confidence is not None or given.reliability is not None):
        return replace(given, published=published)  # weighed already: as assay scored it
    source = book.registered(source_id) if source_id is not None else None
    if source is not None:  # the registry says who this is, as `assay score` reads it
        if kind is not None and kind != source.kind:
            raise InvalidInputError(
                f"{where}.source_kind", kind,
                f"drop it or use {source.kind!r}, the kind registered for {source.id!r}",
                problem="disagrees with the registry",
            )  # fmt: skip
        kind, reliability = source.kind, source.reliability
    elif kind is not None:
        kinds = book.kinds
        if not isinstance(kind, str) or kind not in kinds:
            raise InvalidInputError(
                f"{where}.source_kind", kind,
                f"{did_you_mean(kind, kinds)}use one of {', '.join(kinds)} (or register the "
                "kind with `assay sources add-kind` and name its database), or leave it out",
                problem="is not a known source kind",
            )  # fmt: skip
        reliability = kinds[kind]
    else:
        reliability = None
    if given is not None:
        return replace(given, source_kind=kind, published=published, reliability=reliability)
    return Context(
        cid, text, source_id=source_id, source_kind=kind, published=published,
        reliability=reliability,
    )  # fmt: skip


def _source(context: Context) -> tuple[str | None, str | None, date | None]:
    return (context.source_id, context.source_kind, context.published)
