"""The reader's endpoints: ``/v1/ask``, ``/v1/score`` and ``/v1/evaluate``.

Each takes the same inputs as its command (``assay ask``, ``assay score``, ``assay
evaluate``) and returns the same JSON; ask and score write one audit event each, with
the calling key as its actor.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay.errors import InvalidInputError
from assay.flow.respond import Response as AskResponse
from assay.flow.respond import Status
from assay.judge.evaluate import evaluate
from assay.keys import Role
from assay.policy import PolicyBook
from assay.server import metrics
from assay.server.access import acting_engine, require
from assay.server.responses import PlainJSON
from assay.types import Candidate

router = APIRouter(prefix="/v1", tags=["questions"], dependencies=[Depends(require(Role.READER))])

_ABSTAINED = {
    Status.ABSTAINED_RETRIEVAL,
    Status.ABSTAINED_CITATION,
    Status.ABSTAINED_JUDGE,
    Status.REFUSED,
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PolicyChoice(_Strict):
    policy: str | None = Field(None, description="Policy name [default: the configured one].")
    severity: str | None = Field(
        None, description="Or pick by severity: informational, financial, legal, safety_critical."
    )


GRANTS_FIELD = Field(
    None,
    max_length=32,
    description="Search only what these access labels may read, within the key's own grants "
    "(an application asking for one of its users); unset: the key's grants.",
)


class AskRequest(PolicyChoice):
    question: str = Field(min_length=1, max_length=4000)
    top_k: int = Field(8, ge=1, le=50)
    category: str | None = None
    as_of: date | None = None
    jurisdiction: str | None = None
    grants: list[str] | None = GRANTS_FIELD


class ScoreRequest(PolicyChoice):
    query: str = Field(min_length=1, max_length=4000)
    candidates: list[dict[str, Any]] = Field(
        min_length=1,
        max_length=1000,
        description="As `assay score --candidates`: id, text, similarity, source_id or "
        "source_kind, published, optionally verified, title, uri, metadata.",
    )
    as_of: date | None = None
    jurisdiction: str | None = None


class Context(_Strict):
    id: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1, max_length=100_000)
    source_id: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="Who states the text: any id; a registered source gives its kind and "
        "its reliability.",
    )
    source_kind: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="The kind of source: official, verified_kb, internal_wiki, customer, "
        "unverified, or one registered with `assay sources add-kind`. The judge weighs "
        "contexts that disagree by its reliability.",
    )
    published: date | None = Field(
        None, description="When the text was published (ISO date): the later of two "
        "equally reliable sources that disagree wins.",
    )  # fmt: skip

    @field_validator("published", mode="before")
    @classmethod
    def _iso_text(cls, value: object) -> object:
        """An ISO date as text, never a number read as a timestamp."""
        if value is not None and not isinstance(value, str):
            raise ValueError("give an ISO date such as 2026-03-02")
        return value


class EvaluateRequest(_Strict):
    query: str = Field(min_length=1, max_length=4000)
    answer: str = Field(max_length=100_000)
    contexts: list[Context] = Field(min_length=1, max_length=100)
    policy: str | None = Field(None, description="Whose [judge] thresholds pick the action.")


def checked_policy(book: PolicyBook, name: str | None) -> str | None:
    """``name`` if it is a known policy; over HTTP a policy is never a file path."""
    if name is not None and name not in book.names():
        raise InvalidInputError(
            "policy", name, f"choose one of: {', '.join(book.names())}", problem="is unknown"
        )
    return name


@router.post("/ask", summary="Answer from the knowledge base, or abstain (R9, J1)")
def ask(body: AskRequest, request: Request) -> Response:
    """The ``assay ask --json`` object: answer, status, decision, confidence, sources,
    fallback, the judge's J1 assessment and the audit event id."""
    engine = acting_engine(request)
    response = engine.ask(
        body.question,
        policy=checked_policy(engine.policies, body.policy),
        severity=body.severity,
        top_k=body.top_k,
        category=body.category,
        as_of=body.as_of,
        jurisdiction=body.jurisdiction,
        grants=body.grants,
    )
    observe_answer("ask", response)
    return PlainJSON(response.as_dict())


def observe_answer(endpoint: str, response: AskResponse) -> None:
    """Count what one answered question decided (and how it abstained) in /metrics."""
    result = response.result
    metrics.observe_outcome(
        endpoint,
        result.scored.policy.name,
        response.decision.value,
        result.confidence,
        response.status.value if response.status in _ABSTAINED else None,
    )


@router.post("/score", summary="Score, gate and corroborate your own candidates (E1-E10)")
async def score(body: ScoreRequest, request: Request) -> Response:
    """The ``assay score --json`` object for the candidates given.

    Up to :data:`INLINE_CANDIDATES` candidates are scored on the event loop: 20 take
    about 2 ms of CPU with the audit write, less than handing them to a thread and back
    costs under load (docs/service.md). Corroboration compares every pair, so larger
    sets (200: ~40 ms, 1000: ~600 ms) go to the thread pool, where they cannot stall
    the other requests."""
    candidates = []
    for index, record in enumerate(body.candidates):
        try:
            candidates.append(Candidate.from_mapping(record))
        except InvalidInputError as exc:
            raise exc.at(f"candidates[{index}]") from None
    if len(candidates) <= INLINE_CANDIDATES:
        return _score(body, candidates, request)
    return await run_in_threadpool(_score, body, candidates, request)


#: the largest candidate set scored on the event loop itself (see :func:`score`)
INLINE_CANDIDATES = 50


def _score(body: ScoreRequest, candidates: list[Candidate], request: Request) -> Response:
    engine = acting_engine(request)  # the engine of the thread this runs on
    result = engine.score(
        body.query,
        candidates,
        policy=checked_policy(engine.policies, body.policy),
        severity=body.severity,
        as_of=body.as_of,
        jurisdiction=body.jurisdiction,
    )
    best = max((e.confidence for e in result.admitted), default=0.0)
    admitted = bool(result.admitted)
    metrics.observe_outcome(
        "score",
        result.policy.name,
        "admitted" if admitted else "abstained",
        best,
        None if admitted else Status.ABSTAINED_RETRIEVAL.value,
    )
    return PlainJSON(result.as_dict())


@router.post("/evaluate", summary="Rate an answer against its contexts: the J1 object")
def evaluate_answer(body: EvaluateRequest, request: Request) -> dict[str, Any]:
    """Exactly the J1 assessment, as ``assay evaluate`` prints it (no audit event)."""
    engine = acting_engine(request)
    policy = engine.allowed_policy(name=checked_policy(engine.policies, body.policy))
    judgment = evaluate(
        body.query,
        body.answer,
        [c.model_dump(exclude_none=True) for c in body.contexts],
        judge=engine.judge,
        thresholds=policy.judge.thresholds,
        registry=engine.sources,  # read only for a kind not built in, or a source id
    )
    return judgment.assessment.to_dict()
