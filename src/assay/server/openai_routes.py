"""``POST /v1/chat/completions``: the governed knowledge base behind any OpenAI client.

Point an OpenAI client (and whatever is built on one) at ``assay serve``::

    client = openai.OpenAI(base_url="http://127.0.0.1:8000/v1", api_key=ASSAY_KEY)
    reply = client.chat.completions.create(
        model="assay/financial", messages=[{"role": "user", "content": "Max charging temperature?"}]
    )

The last user message is the question; it is answered by ``Assay.ask`` as ``/v1/ask``
answers it, under the policy the model names (``assay``: the default policy;
``assay/<policy>``) or the ``assay`` options of the request body (``extra_body``). The
reply is an ordinary assistant message whatever happened: an answer, a hedge, a
clarifying question or a refusal. Its ``assay`` field holds the whole ``/v1/ask`` object:
status, decision, confidence, sources, the J1 assessment and the audit event id. The
keys and roles are those of ``/v1/ask`` (reader). Sampling parameters (``temperature``
and the like) are accepted and ignored: assay's answers are not sampled. With
``stream`` the reply comes as server-sent events, the whole answer in one chunk.
``GET /v1/models`` lists the model names this accepts (OpenAI-compatible tools ask it
first): ``assay`` and ``assay/<policy>`` for every policy the service knows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import date
from typing import Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from assay.errors import InvalidInputError
from assay.keys import Role
from assay.server.access import acting_engine, require
from assay.server.query_routes import GRANTS_FIELD, checked_policy, observe_answer
from assay.server.responses import PlainJSON

router = APIRouter(prefix="/v1", tags=["openai"], dependencies=[Depends(require(Role.READER))])

MODEL = "assay"
MAX_QUESTION = 4000  #: as ``/v1/ask``'s question


class TextPart(BaseModel):
    """One part of a message's content; only text parts carry a question."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    """A message of the conversation (other fields, such as ``name``, are ignored)."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[TextPart] | None = None

    def text(self) -> str:
        """The message's text: its string, or its text parts joined."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(part.text or "" for part in self.content or [] if part.type == "text")


class AssayOptions(BaseModel):
    """What ``/v1/ask`` takes besides the question, under the ``assay`` key."""

    model_config = ConfigDict(extra="forbid")

    policy: str | None = None
    severity: str | None = None
    top_k: int = Field(8, ge=1, le=50)
    category: str | None = None
    as_of: date | None = None
    jurisdiction: str | None = None
    grants: list[str] | None = GRANTS_FIELD


class ChatRequest(BaseModel):
    """An OpenAI chat completion request; unknown OpenAI parameters are ignored."""

    model_config = ConfigDict(extra="ignore")

    model: str = Field(min_length=1, max_length=200)
    messages: list[ChatMessage] = Field(min_length=1, max_length=1000)
    stream: StrictBool = False  # "yes" is not a boolean
    assay: AssayOptions = AssayOptions()


@router.get("/models", summary="The model names /v1/chat/completions takes (OpenAI-compatible)")
def list_models(request: Request) -> dict[str, Any]:
    """An OpenAI model list: ``assay`` (the default policy) and ``assay/<policy>`` for
    each policy, so that a client's first call (``client.models.list()``) succeeds."""
    engine = acting_engine(request)
    names = [MODEL, *(f"{MODEL}/{name}" for name in engine.policies.names())]
    return {
        "object": "list",
        "data": [{"id": n, "object": "model", "created": 0, "owned_by": "assay"} for n in names],
    }


@router.post("/chat/completions", summary="Ask through any OpenAI client (the last user message)")
def chat_completions(body: ChatRequest, request: Request) -> Response:
    """An OpenAI ``chat.completion`` whose message is ``ask``'s answer (or abstention),
    with the whole ``/v1/ask`` object in its ``assay`` field."""
    question = _question(body.messages)
    engine = acting_engine(request)
    options = body.assay
    named = _policy_of(body.model)
    if named and options.policy and options.policy != named:  # one would be run, the other named
        raise InvalidInputError(
            "assay.policy",
            options.policy,
            f'leave it out, or name the same policy as the model ("{body.model}")',
            problem=f"differs from the model's policy {named!r}",
        )
    policy = options.policy or named
    response = engine.ask(
        question,
        policy=checked_policy(engine.policies, policy),
        severity=options.severity,
        top_k=options.top_k,
        category=options.category,
        as_of=options.as_of,
        jurisdiction=options.jurisdiction,
        grants=options.grants,
    )
    observe_answer("chat", response)
    asked = response.as_dict()
    completion_id, created = f"chatcmpl-{response.event_id}", int(time.time())
    if body.stream:
        return StreamingResponse(
            _events(completion_id, created, body.model, response.answer, asked),
            media_type="text/event-stream",
        )
    return PlainJSON(
        {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": body.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": response.answer},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "assay": asked,
        }
    )


def _question(messages: list[ChatMessage]) -> str:
    """The text of the last message, a user's (earlier turns are context assay does not
    use), within ``/v1/ask``'s length limit."""
    last = messages[-1]
    question = last.text() if last.role == "user" else ""
    if not question.strip():
        raise InvalidInputError(
            "messages", [m.role for m in messages],
            "end the conversation with a user message that asks the question",
        )  # fmt: skip
    if len(question) > MAX_QUESTION:
        raise InvalidInputError(
            "messages[-1].content", f"{len(question)} characters",
            f"ask in at most {MAX_QUESTION} characters, as /v1/ask does",
            problem="is too long",
        )  # fmt: skip
    return question


def _policy_of(model: str) -> str | None:
    """``assay`` -> the default policy; ``assay/<policy>`` -> that policy."""
    name, _, policy = model.partition("/")
    if name != MODEL or (_ and not policy):
        raise InvalidInputError(
            "model", model, 'use "assay" (the default policy) or "assay/<policy>"'
        )
    return policy or None


def _events(
    completion_id: str, created: int, model: str, answer: str, asked: dict[str, Any]
) -> Iterator[str]:
    """The reply as server-sent chunks: the whole answer, then the stop, then [DONE]."""
    head = {"id": completion_id, "object": "chat.completion.chunk", "created": created,
            "model": model}  # fmt: skip
    first = {"index": 0, "delta": {"role": "assistant", "content": answer}, "finish_reason": None}
    last = {"index": 0, "delta": {}, "finish_reason": "stop"}
    yield f"data: {json.dumps(head | {'choices': [first]}, default=str)}\n\n"
    yield f"data: {json.dumps(head | {'choices': [last], 'assay': asked}, default=str)}\n\n"
    yield "data: [DONE]\n\n"
