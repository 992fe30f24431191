"""Who may read which documents: access labels on documents, grants on callers.

A document carries a set of access labels (``hr``, ``matter-2291``, ``deal-room``),
given at ingestion or changed later; each of its chunks carries the same set. A caller
holds an :class:`Access`: the labels it was granted, or every document (the owner of
the database file, and keys with the auditor or admin role). A document is readable
when it has no labels, or when the caller holds at least one of them::

    readable(document) = not document.labels or document.labels & caller.grants

So labels name groups of readers, not levels: a document labelled ``hr`` and
``legal`` is read by HR and by legal. A document without labels stays readable by
every key (the behaviour before labels existed), unless the settings require labels
(``access_labels_required``), in which case ingestion refuses it.

The filter runs inside the search (:mod:`assay.store`): nothing a caller may not read is
ranked, so the rest of the pipeline (relevance, conflicts, findings, answers, the audit
row) never holds it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from assay.errors import InvalidInputError

__all__ = ["EVERYTHING", "Access", "parse_labels"]

_LABEL = re.compile(r"[a-z0-9][a-z0-9_.:-]{0,63}")
MAX_LABELS = 32


def parse_labels(values: Iterable[object] | str | None, *, field: str = "access") -> frozenset[str]:
    """Access labels as given (a list, or one string of labels separated by commas):
    lowercased, checked, deduplicated. A bad label is an error naming it and the form."""
    if values is None:
        return frozenset()
    if isinstance(values, str):
        values = values.split(",")
    labels = set()
    for value in values:
        if not isinstance(value, str):
            raise InvalidInputError(field, value, "give each access label as text, e.g. hr")
        label = value.strip().lower()
        if not label:
            continue
        if not _LABEL.fullmatch(label):
            raise InvalidInputError(
                field, value,
                "use 1-64 lowercase letters, digits or . _ : - (starting with a letter or digit)",
                problem="is not an access label",
            )  # fmt: skip
        labels.add(label)
    if len(labels) > MAX_LABELS:
        raise InvalidInputError(
            field, len(labels), f"give at most {MAX_LABELS} labels", problem="are too many labels"
        )
    return frozenset(labels)


@dataclass(frozen=True, slots=True)
class Access:
    """What one caller may read: every document (``everything``), or the documents
    without labels and those holding one of ``grants``."""

    grants: frozenset[str] = frozenset()
    everything: bool = False

    def may_read(self, labels: Iterable[str]) -> bool:
        """Whether a document with these labels is readable."""
        labels = frozenset(labels)
        return self.everything or not labels or bool(labels & self.grants)

    def narrowed(self, grants: Iterable[object] | str | None) -> Access:
        """This access limited further to ``grants`` (``None``: unchanged): a call may
        ask for less than its key holds, never for more."""
        if grants is None:
            return self
        asked = parse_labels(grants, field="grants")
        return Access(asked if self.everything else asked & self.grants)

    def within(self, other: Access) -> Access:
        """What both this access and ``other`` allow (acting for a key never widens what
        an engine already limited may read)."""
        if self.everything:
            return other
        if other.everything:
            return self
        return Access(self.grants & other.grants)

    def to_dict(self) -> dict[str, object]:
        """As the audit row records it."""
        return {"everything": self.everything, "grants": sorted(self.grants)}

    def describe(self) -> str:
        """For people: ``every document`` or ``unlabelled documents and hr, legal``."""
        if self.everything:
            return "every document"
        if not self.grants:
            return "unlabelled documents only"
        return "unlabelled documents and those labelled " + ", ".join(sorted(self.grants))


#: the owner of the database: reads every document
EVERYTHING = Access(everything=True)
