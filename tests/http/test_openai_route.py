"""``POST /v1/chat/completions`` driven by the real OpenAI Python client: the governed
answer, abstentions as ordinary messages, the assay object beside them, and streaming."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from assay import Assay
from tests.http.conftest import Service

QUESTION = "What is the maximum ambient temperature for charging the HX-40?"


def _client(service: Service, role: str = "reader") -> openai.OpenAI:
    """The OpenAI client over the in-process app (its transport is the test client)."""
    return openai.OpenAI(
        base_url="http://testserver/v1",
        api_key=service.tokens[role],
        http_client=service.client,
        max_retries=0,
    )


def _assay(completion: Any) -> dict[str, Any]:
    extra = completion.model_extra or {}
    assert "assay" in extra
    return dict(extra["assay"])


def test_an_openai_client_gets_the_governed_answer(service: Service) -> None:
    completion = _client(service).chat.completions.create(
        model="assay/financial",
        messages=[
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi! What do you need?"},
            {"role": "user", "content": QUESTION},
        ],
        temperature=0.2,  # accepted, and ignored: answers are not sampled
        extra_body={"assay": {"as_of": "2026-11-29"}},
    )
    [choice] = completion.choices
    asked = _assay(completion)
    assert choice.message.role == "assistant" and choice.finish_reason == "stop"
    assert choice.message.content == asked["answer"] and "45" in asked["answer"]
    assert asked["policy"]["name"] == "financial" and asked["event_id"]
    assert completion.id == f"chatcmpl-{asked['event_id']}"
    with Assay(service.db) as engine:
        event = engine.audit.get(asked["event_id"])
    assert event.kind == "ask" and event.query == QUESTION  # the last user message
    assert event.actor is not None  # written as the reader's key


def test_an_abstention_is_an_ordinary_assistant_message(service: Service) -> None:
    completion = _client(service).chat.completions.create(
        model="assay",
        messages=[{"role": "user", "content": [{"type": "text", "text": "Who won in 1974?"}]}],
    )
    asked = _assay(completion)
    assert asked["status"] != "answered"
    assert completion.choices[0].message.content == asked["answer"] != ""


def test_streaming_gives_the_answer_then_the_stop(service: Service) -> None:
    stream = _client(service).chat.completions.create(
        model="assay/financial",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
        extra_body={"assay": {"as_of": "2026-11-29"}},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "45" in text and chunks[-1].choices[0].finish_reason == "stop"
    assert _assay(chunks[-1])["answer"] == text


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"model": "gpt-4o", "messages": [{"role": "user", "content": QUESTION}]}, "model"),
        ({"model": "assay", "messages": [{"role": "system", "content": "Be brief."}]}, "messages"),
        (
            {"model": "assay/nonexistent", "messages": [{"role": "user", "content": QUESTION}]},
            "policy",
        ),
        (
            {
                "model": "assay",
                "messages": [
                    {"role": "user", "content": QUESTION},
                    {"role": "assistant", "content": "Hm."},
                ],
            },
            "messages",
        ),
        (
            {"model": "assay", "messages": [{"role": "user", "content": "x" * 4001}]},
            "messages[-1].content",
        ),
    ],
)
def test_bad_requests_are_named_in_the_usual_error(
    service: Service, kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        _client(service).chat.completions.create(**kwargs)
    error = info.value.body
    assert isinstance(error, dict) and error["field"] == field and error["fix"]


def test_the_route_needs_a_key(service: Service) -> None:
    client = openai.OpenAI(
        base_url="http://testserver/v1", api_key="not-a-key", http_client=service.client,
        max_retries=0,
    )  # fmt: skip
    with pytest.raises(openai.AuthenticationError):
        client.chat.completions.create(model="assay", messages=[{"role": "user", "content": "q"}])


def test_an_openai_clients_first_call_lists_the_models_it_may_name(service: Service) -> None:
    """OpenAI-compatible tools call ``models.list()`` before anything else (it was a 404)."""
    names = [m.id for m in _client(service).models.list()]
    assert names[0] == "assay" and "assay/financial" in names
    assert all(n == "assay" or n.startswith("assay/") for n in names)
    completion = _client(service).chat.completions.create(
        model=names[-1], messages=[{"role": "user", "content": QUESTION}]
    )
    assert completion.choices[0].message.content


def test_a_model_and_an_assay_policy_that_disagree_are_refused_not_mixed(service: Service) -> None:
    """model assay/safety_critical with "assay": {"policy": "informational"} ran
    informational and replied as safety_critical; "stream": "yes" passed for true."""
    headers = service.headers("reader")
    messages = [{"role": "user", "content": QUESTION}]
    mixed = service.client.post(
        "/v1/chat/completions",
        json={"model": "assay/safety_critical", "messages": messages,
              "assay": {"policy": "informational"}},
        headers=headers,
    )  # fmt: skip
    assert mixed.status_code == 400 and "differs from the model's policy" in mixed.text
    same = service.client.post(
        "/v1/chat/completions",
        json={"model": "assay/financial", "messages": messages, "assay": {"policy": "financial"}},
        headers=headers,
    )
    assert same.status_code == 200
    loose = service.client.post(
        "/v1/chat/completions",
        json={"model": "assay", "messages": messages, "stream": "yes"},
        headers=headers,
    )
    assert loose.status_code == 422
