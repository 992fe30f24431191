"""Which of two contexts speaks with more authority, when they disagree.

A context's *weight* is the evidence confidence assay gave it (``ask``), else the
reliability of its source kind (``evaluate`` with ``source_kind``: official 1.0,
verified_kb 0.9, internal_wiki 0.7, customer 0.4, unverified 0.3, or a kind the
registry adds), else unknown. One context *outweighs* another when

* its source is clearly more reliable (:func:`more_reliable`: by
  :data:`CLEARLY_MORE_RELIABLE`, 0.3 in the registry), whatever their confidences: a
  forum post that echoes the question's words gains confidence from its similarity, and
  that made an official price list's answer and the post's other figure an unsettled
  conflict, which withheld the right answer; nor does the post then outweigh it;
* else both weights are known and the first exceeds the second by :data:`SETTLED` (0.15,
  the margin by which the judge has always settled conflicts between confidences: an
  official data sheet against a forum post, not an official text against a verified
  knowledge-base article), or
* both weights are known and equal, and the first was published later (a newer
  version of an equally reliable source supersedes the older one).

Passages of one document (:func:`same_document`) never conflict with each other here: a
price table's row and the prose that restates it, a procedure and its change log ("from
2 m to 3 m"), read as contradictions by the support model, withheld the document's own
right answers.

Anything less is no verdict: weights within the margin but unequal, or a side whose
weight is unknown (a bare ``{"id", "text"}`` context), leave a conflict unsettled, as
before source information existed. Dates alone never settle anything: a recent chat
message does not outweigh an older policy of unknown standing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from types import MappingProxyType

from assay.judge.schema import Context
from assay.scoring.gate import IN_FORCE
from assay.scoring.signals import coverage_score

__all__ = [
    "BUILTIN_KINDS",
    "CLEARLY_MORE_RELIABLE",
    "SETTLED",
    "document_key",
    "more_reliable",
    "outweighs",
    "passed_over",
    "rank",
    "same_document",
    "weak_alone",
    "weight",
]

#: the source kinds every assay database starts with, and their default reliability
#: (E3), for when no registry is at hand; equal to what the store's migrations seed
BUILTIN_KINDS: Mapping[str, float] = MappingProxyType(
    {
        "official": 1.0,
        "verified_kb": 0.9,
        "internal_wiki": 0.7,
        "customer": 0.4,
        "unverified": 0.3,
    }
)

#: the weight margin by which one side of a conflict clearly outweighs the other
SETTLED = 0.15
#: how much more reliable (in the registry) a source must be to outweigh another
#: whatever their confidences: official (1.0) over an internal wiki (0.7) or a forum
#: post (0.4), not over a verified knowledge base (0.9)
CLEARLY_MORE_RELIABLE = 0.3
_DECIMALS = 6  # confidences are stored to 6 decimals: compare margins at that precision


def weight(context: Context) -> float | None:
    """The context's confidence, else its source's reliability, else ``None``."""
    if context.confidence is not None:
        return context.confidence
    return context.reliability


def more_reliable(a: Context, b: Context) -> bool:
    """Whether ``a``'s source is clearly more reliable than ``b``'s (by
    :data:`CLEARLY_MORE_RELIABLE`): an official text against a wiki or a forum post."""
    if a.reliability is None or b.reliability is None:
        return False
    return round(a.reliability - b.reliability, _DECIMALS) >= CLEARLY_MORE_RELIABLE


def weak_alone(used: Sequence[float | None], others: Sequence[float | None]) -> bool:
    """Whether an answer that cites sources of reliabilities ``used`` rests on forum posts
    or messages alone (each below :data:`~assay.scoring.gate.IN_FORCE`) while one of the
    other admitted sources, ``others``, is clearly more reliable than each of them
    (:data:`CLEARLY_MORE_RELIABLE`): such an answer is kept for review, whatever its score
    (:mod:`assay.flow.respond`; audit replay checks it with this same rule)."""
    if not used or any(u is None or u >= IN_FORCE for u in used):
        return False
    return any(
        o is not None
        and all(round(o - u, _DECIMALS) >= CLEARLY_MORE_RELIABLE for u in used if u is not None)
        for o in others
    )


def passed_over(
    query: str,
    used: Sequence[tuple[float | None, str]],
    kept_out: Sequence[tuple[float | None, str]],
) -> list[int]:
    """Which passages the gate kept out for their similarity, ``kept_out`` (each its
    source's reliability and its text under its title path), still speak to the question
    as fully as the forum posts or messages an answer rests on alone, ``used``: those
    clearly more reliable than each of them (:data:`CLEARLY_MORE_RELIABLE`) whose text
    covers at least as large a share of the question's subject (R3), and some of it.
    "What does E2 mean?" is answered by the owners' board's "E2 just means the drawer is
    open" (it echoes "mean") while the manual's "E2: the fryer has overheated" reads
    below the similarity floor: the manual still names E2, so the post does not answer
    alone (:func:`weak_alone`)."""
    reliabilities = [u for u, _ in used]
    if not used or any(u is None or u >= IN_FORCE for u in reliabilities):
        return []
    covered = max(coverage_score(query, [text])[0] for _, text in used)
    return [
        n for n, (reliability, text) in enumerate(kept_out)
        if reliability is not None
        and all(round(reliability - u, _DECIMALS) >= CLEARLY_MORE_RELIABLE
                for u in reliabilities if u is not None)
        and (share := coverage_score(query, [text])[0]) > 0
        and share >= covered
    ]  # fmt: skip


def outweighs(a: Context, b: Context) -> bool:
    """Whether ``a`` clearly outweighs ``b`` (see the module docstring)."""
    if more_reliable(a, b) or more_reliable(b, a):
        return more_reliable(a, b)
    wa, wb = weight(a), weight(b)
    if wa is None or wb is None:
        return False
    margin = round(wa - wb, _DECIMALS)
    if margin >= SETTLED:
        return True
    if margin == 0.0 and a.published is not None and b.published is not None:
        return a.published > b.published
    return False


def rank(context: Context) -> tuple[float, date]:
    """A sort key, strongest last: weight (unknown counts as 0), then the later date."""
    return (weight(context) or 0.0, context.published or date.min)


def document_key(source_id: str | None, title: str | None) -> tuple[str, str] | None:
    """Which document a passage is of: its source and the first part of its title path
    ("Lending Policy 2026" of "Lending Policy 2026 > 3. Loan periods"); ``None`` when
    either is unknown."""
    if not source_id or not title:
        return None
    return source_id, title.split(" > ", 1)[0].strip().casefold()


def same_document(a: Context, b: Context) -> bool:
    """Whether two contexts are passages of one document (:func:`document_key`)."""
    key = document_key(a.source_id, a.title)
    return key is not None and key == document_key(b.source_id, b.title)
