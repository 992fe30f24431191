"""The auditor's endpoints: the audit log (list, one event, export, verify) and the
human-review queue, as ``assay audit`` and ``assay review`` do."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from assay.audit.seal import Checkpoint
from assay.hashing import canonical_json
from assay.keys import Role
from assay.server.access import EnginePool, acting_engine, require

router = APIRouter(prefix="/v1", tags=["audit"], dependencies=[Depends(require(Role.AUDITOR))])


@router.get("/audit", summary="Audit events, newest first; or all of them as JSON Lines")
def list_events(
    request: Request,
    kind: str | None = None,
    policy: str | None = None,
    since: str | None = Query(None, description="ISO date or time (UTC)"),
    until: str | None = Query(None, description="ISO date or time (UTC), exclusive"),
    actor: str | None = Query(None, description="API key id that caused the events"),
    limit: int = Query(50, ge=1, le=1000),
    before: int | None = Query(None, ge=1, description="Only events older than this seq"),
    format: Literal["json", "jsonl"] = Query(
        "json", description="jsonl: every matching event oldest first, hashes included"
    ),
) -> Any:
    """A page of events (``before`` = the last ``seq`` seen pages on), or the export."""
    engine = acting_engine(request)
    filters = {"kind": kind, "policy": policy, "since": since, "until": until, "actor": actor}
    if format == "jsonl":
        engine.audit.page(after_seq=0, limit=1, **filters)  # a bad filter fails now, not mid-stream
        engine.record_read("audit export", filters, engine.audit.head()[0])
        pool: EnginePool = request.app.state.engines
        return StreamingResponse(
            _export(pool, filters),
            media_type="application/x-ndjson",
            headers={"Content-Disposition": 'attachment; filename="assay-audit.jsonl"'},
        )
    events = engine.audit.list(limit=limit, before_seq=before, **filters)
    count, head = engine.audit.head()
    engine.record_read("audit events", filters | {"before": before}, len(events))
    return {
        "events": [e.as_dict() for e in events],
        "next_before": events[-1].seq if len(events) == limit else None,
        "total_events": count,
        "head": head,
    }


def _export(pool: EnginePool, filters: dict[str, str | None]) -> Iterator[str]:
    """Every matching event as canonical JSON lines, read page by page on the engine
    of whichever thread runs each step."""
    after = 0
    while True:
        events = pool.get().audit.page(after_seq=after, limit=500, **filters)
        if not events:
            return
        yield "".join(canonical_json(e.as_dict()) + "\n" for e in events)
        after = events[-1].seq


@router.get("/audit/verify", summary="Check the hash chain, the seals and every score (B2)")
def verify(
    request: Request,
    expect_head: str | None = Query(None, description="A head hash recorded earlier"),
    checkpoint: Annotated[
        list[str] | None,
        Query(description="A checkpoint line from `assay audit checkpoint` (repeatable)"),
    ] = None,
    replay: bool = True,
) -> dict[str, Any]:
    engine = acting_engine(request)
    points = [Checkpoint.parse(c, f"checkpoint {i}") for i, c in enumerate(checkpoint or [], 1)]
    report = engine.audit.verify(expected_head=expect_head, checkpoints=points, replay=replay)
    return report.as_dict()


@router.get("/audit/checkpoint", summary="The head as a sealed checkpoint to keep elsewhere")
def make_checkpoint(request: Request) -> dict[str, Any]:
    return acting_engine(request).audit.checkpoint().as_dict()


@router.get("/audit/{event_id}", summary="One event with its full evidence table")
def show_event(event_id: str, request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    event = engine.audit.get(event_id)
    engine.record_read("audit event", {"event_id": event.event_id}, 1)
    return event.as_dict()


#: a review item id: SQLite's integer range, so a huge number is a 422, not a crash
ItemId = Annotated[int, Path(ge=1, le=2**63 - 1)]


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Literal["correct", "incorrect"]
    note: str | None = None
    correction: str | None = Field(
        None, description="With verdict incorrect: the right answer, as the reviewer knows it."
    )


@router.get("/review", summary="The human-review queue (J6)")
def review_queue(
    request: Request,
    status: Literal["pending", "resolved", "all"] = "pending",
    limit: int = Query(50, ge=1, le=1000),
) -> dict[str, Any]:
    engine = acting_engine(request)
    items = engine.review.list(status, limit)
    engine.record_read("review queue", {"status": status}, len(items))
    return {"items": [item.to_dict() for item in items]}


@router.get("/review/{item_id}", summary="One review item with the judge's assessment")
def review_item(item_id: ItemId, request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    item = engine.review.get(item_id)
    engine.record_read("review item", {"item_id": item_id}, 1)
    return item.to_dict()


@router.post("/review/{item_id}", summary="Record a reviewer's verdict (audited)")
def resolve(item_id: ItemId, body: Verdict, request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    item = engine.review.resolve(item_id, body.verdict, body.note, correction=body.correction)
    return item.to_dict()
