"""What a file may claim: a source no more trusted, in any respect, than the one it is
ingested under.

A document may name its source (``source_id`` in front matter or a JSON Lines record),
but trust comes from the registry, never from the document. The run's source
(``assay ingest --source``, an upload's ``source``), or the source the file was first
ingested under, is the *ceiling*: without one the file names none and fails. Under it,
the file may name another registered source only when that source gains it nothing
anywhere the score looks:

* the same owner (corroboration counts independent owners, so a second owner would
  fake a confirmation);
* the ceiling's jurisdiction, when the ceiling has one (another, or none, would escape
  the jurisdiction penalty);
* overruled when the ceiling is; superseding nothing the ceiling does not;
* under every policy, a source score (reliability and the kind's adjustment) no higher
  and a freshness decay no slower than the ceiling's.
"""

from __future__ import annotations

from collections.abc import Iterable

from assay.policy import Policy
from assay.scoring.evidence import source_score
from assay.store.records import Source


def trust_gained(named: Source, ceiling: Source, policies: Iterable[Policy]) -> str | None:
    """How ``named`` would be trusted more than ``ceiling``; ``None`` when it would not."""
    if named.id == ceiling.id:
        return None
    if named.owner != ceiling.owner:
        return (
            f"has another owner ({named.owner!r}) than {ceiling.id!r} ({ceiling.owner!r}): it "
            "would count as an independent confirmation"
        )
    if ceiling.jurisdiction is not None and (named.jurisdiction or "").casefold() != (
        ceiling.jurisdiction.casefold()
    ):
        return (
            f"is scoped to {named.jurisdiction or 'no jurisdiction'}, not {ceiling.jurisdiction} "
            f"as {ceiling.id!r} is: it would escape the jurisdiction penalty"
        )
    if ceiling.overruled and not named.overruled:
        return f"is not overruled, though {ceiling.id!r} is"
    if named.supersedes is not None and named.supersedes != ceiling.supersedes:
        return f"supersedes {named.supersedes!r}, which {ceiling.id!r} does not"
    if named.reliability > ceiling.reliability:
        more, most = f"{named.reliability:.2f}", f"{ceiling.reliability:.2f}"
        return f"is more reliable ({more}) than {ceiling.id!r} ({most})"
    for policy in policies:
        mine = source_score(named.reliability, policy.adjustment_for(named.kind))
        cap = source_score(ceiling.reliability, policy.adjustment_for(ceiling.kind))
        if mine > cap:
            return (
                f"scores higher under policy {policy.name} ({mine:.2f}, kind {named.kind}) "
                f"than {ceiling.id!r} ({cap:.2f}, kind {ceiling.kind})"
            )
        if policy.decay_rate_for(named.kind) < policy.decay_rate_for(ceiling.kind):
            return (
                f"ages more slowly under policy {policy.name} (kind {named.kind}) than "
                f"{ceiling.id!r} (kind {ceiling.kind})"
            )
    return None
