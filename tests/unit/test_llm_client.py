"""The OpenAI-compatible chat client and the LLM-backed models, against a real HTTP
server in this process that plays back scripted replies."""

from __future__ import annotations

import gc
import math
import socket
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay import Assay
from assay.errors import AssayError, EndpointError, InvalidInputError
from assay.judge.llm_judge import LLMJudge
from assay.models.llm import ChatClient, client_from_environment
from assay.models.relevance import CascadeRelevanceModel, LLMRelevanceModel, get_relevance_model
from assay.models.support import LLMSupportModel, SupportResult, get_support_model
from assay.settings import LLMSettings, load_settings
from tests.fake_llm import Endpoint, Reply, logprobs_reply, serve, text_reply


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with serve() as ep:
        yield ep


@pytest.fixture(autouse=True)
def _no_llm_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ASSAY_LLM_URL", "ASSAY_LLM_MODEL", "ASSAY_LLM_API_KEY", "ASSAY_LLM_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)


# -- the client ------------------------------------------------------------------------------


def test_yes_probability_sums_every_spelling_of_yes_and_no(endpoint: Endpoint) -> None:
    top = {"Yes": 0.5, " yes": 0.1, "YES ": 0.05, "No": 0.2, " no": 0.05, "Maybe": 0.1}
    endpoint.script(Reply(logprobs_reply(top)))
    p = endpoint.client(model="judge").yes_probability("You judge.", "Is it so?")
    assert p == pytest.approx(0.65 / (0.65 + 0.25))
    (request,) = endpoint.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Content-Type"] == "application/json"
    assert "Authorization" not in request["headers"]
    body = request["body"]
    assert body["model"] == "judge"
    assert body["messages"] == [
        {"role": "system", "content": "You judge."},
        {"role": "user", "content": "Is it so?"},
    ]
    assert body["max_tokens"] == 1 and body["temperature"] == 0
    assert body["logprobs"] is True and body["top_logprobs"] >= 2


def test_yes_probability_is_one_or_zero_when_only_one_side_appears(endpoint: Endpoint) -> None:
    endpoint.script(
        Reply(logprobs_reply({"yes": 0.7, "sure": 0.3})),
        Reply(logprobs_reply({"No": 0.9, "Perhaps": 0.1}, content="No")),
    )
    client = endpoint.client()
    assert client.yes_probability("s", "u") == 1.0
    assert client.yes_probability("s", "u") == 0.0


@pytest.mark.parametrize(("content", "expected"), [("Yes", 1.0), (" yes.", 1.0), ("No", 0.0)])
def test_without_logprobs_the_reply_text_decides(
    endpoint: Endpoint, content: str, expected: float
) -> None:
    endpoint.script(Reply(text_reply(content)))
    assert endpoint.client().yes_probability("s", "u") == expected


def test_a_reply_that_is_neither_yes_nor_no_is_an_endpoint_error(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("maybe")))
    client = endpoint.client(model="judge")
    with pytest.raises(EndpointError, match="answered neither yes nor no: 'maybe'") as info:
        client.yes_probability("s", "u")
    assert isinstance(info.value, AssayError) and "judge@127.0.0.1" in str(info.value)


def test_a_reply_with_null_content_is_an_endpoint_error(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply(None)))
    with pytest.raises(EndpointError):
        endpoint.client().yes_probability("s", "u")


@pytest.mark.parametrize("body", [{"choices": []}, {"error": "x"}, ["not", "an", "object"]])
def test_an_unexpected_reply_shape_is_an_endpoint_error(endpoint: Endpoint, body: Any) -> None:
    endpoint.script(Reply(body))
    with pytest.raises(EndpointError, match="unexpected reply shape"):
        endpoint.client().yes_probability("s", "u")


@pytest.mark.parametrize("status", [500, 503, 429])
def test_a_server_error_is_retried(endpoint: Endpoint, status: int) -> None:
    endpoint.script(Reply({"error": "busy"}, status=status), Reply(text_reply("yes")))
    assert endpoint.client(retries=2).yes_probability("s", "u") == 1.0
    assert len(endpoint.requests) == 2


def test_a_retried_error_reply_is_closed(endpoint: Endpoint) -> None:
    endpoint.script(Reply({"error": "busy"}, status=503), Reply(text_reply("yes")))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        endpoint.client(retries=1).yes_probability("s", "u")
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]


def test_a_reply_that_is_not_json_is_retried_then_fails(endpoint: Endpoint) -> None:
    endpoint.script(Reply(b"<html>oops</html>"), Reply(b"still not json"))
    with pytest.raises(EndpointError, match="failed after 2 attempts"):
        endpoint.client(retries=1).chat([{"role": "user", "content": "hi"}])
    assert len(endpoint.requests) == 2


def test_a_client_error_fails_at_once(endpoint: Endpoint) -> None:
    endpoint.script(Reply({"error": {"message": "unknown model 'judge'"}}, status=400))
    with pytest.raises(EndpointError, match="refused the request: 400") as info:
        endpoint.client(retries=3).yes_probability("s", "u")
    assert "unknown model" in str(info.value)  # the server's reason is shown
    assert len(endpoint.requests) == 1


def test_persistent_server_errors_give_up_after_the_retries(endpoint: Endpoint) -> None:
    endpoint.script(*[Reply({"error": "down"}, status=502) for _ in range(3)])
    with pytest.raises(EndpointError, match="failed after 3 attempts") as info:
        endpoint.client(retries=2).yes_probability("s", "u")
    assert "/v1/chat/completions" in str(info.value) and "ASSAY_LLM_URL" in str(info.value)
    assert len(endpoint.requests) == 3


def test_a_slow_reply_times_out_and_is_retried(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("yes"), delay=2.0), Reply(text_reply("yes"), delay=2.0))
    started = time.monotonic()
    with pytest.raises(EndpointError, match="failed after 2 attempts"):
        endpoint.client(timeout=0.2, retries=1).yes_probability("s", "u")
    assert time.monotonic() - started < 1.5  # the timeout, not the server, ended the wait
    assert len(endpoint.requests) == 2


def test_a_slow_reply_then_a_quick_one_succeeds(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("no"), delay=2.0), Reply(text_reply("yes")))
    assert endpoint.client(timeout=0.2, retries=1).yes_probability("s", "u") == 1.0


def test_an_unreachable_endpoint_fails_after_the_retries() -> None:
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ChatClient(f"http://127.0.0.1:{port}/v1", retries=1, backoff=0.01, timeout=2)
    with pytest.raises(EndpointError, match="failed after 2 attempts"):
        client.yes_probability("s", "u")


def test_the_api_key_is_sent_as_a_bearer_token_and_kept_out_of_repr(endpoint: Endpoint) -> None:
    client = endpoint.client(api_key="sk-secret", model="judge")
    client.chat([{"role": "user", "content": "hi"}], max_tokens=3)
    (request,) = endpoint.requests
    assert request["headers"]["Authorization"] == "Bearer sk-secret"
    assert request["body"]["max_tokens"] == 3
    assert "sk-secret" not in repr(client)
    assert client.name.startswith("judge@127.0.0.1:")


def test_a_trailing_slash_in_the_url_is_harmless(endpoint: Endpoint) -> None:
    ChatClient(endpoint.base_url + "/", backoff=0.01).chat([{"role": "user", "content": "x"}])
    assert endpoint.requests[0]["path"] == "/v1/chat/completions"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"base_url": "ftp://example.com/v1"}, "llm_url"),
        ({"base_url": "localhost:8080/v1"}, "llm_url"),
        ({"base_url": ""}, "llm_url"),
        ({"timeout": 0}, "llm_timeout"),
        ({"timeout": -1.0}, "llm_timeout"),
        ({"timeout": math.nan}, "llm_timeout"),
        ({"retries": -1}, "llm_retries"),
        ({"retries": 1.5}, "llm_retries"),
        ({"retries": True}, "llm_retries"),
    ],
)
def test_bad_client_settings_are_invalid_input(options: dict[str, Any], field: str) -> None:
    settings = {"base_url": "http://127.0.0.1:8765/v1", **options}
    with pytest.raises(InvalidInputError) as info:
        ChatClient(**settings)
    assert info.value.field == field


def test_an_infinite_timeout_is_invalid_input() -> None:
    with pytest.raises(InvalidInputError):
        client_from_environment(
            {"ASSAY_LLM_URL": "http://127.0.0.1:9/v1", "ASSAY_LLM_TIMEOUT": "inf"}
        )


def test_client_from_environment() -> None:
    assert client_from_environment({}) is None
    assert client_from_environment({"ASSAY_LLM_URL": "  "}) is None
    client = client_from_environment(
        {
            "ASSAY_LLM_URL": " http://127.0.0.1:8765/v1 ",
            "ASSAY_LLM_MODEL": "qwen",
            "ASSAY_LLM_API_KEY": "sk-1",
            "ASSAY_LLM_TIMEOUT": "7.5",
        }
    )
    assert client is not None
    assert (client.base_url, client.model, client.api_key, client.timeout) == (
        "http://127.0.0.1:8765/v1",
        "qwen",
        "sk-1",
        7.5,
    )
    assert client.name == "qwen@127.0.0.1:8765"
    plain = client_from_environment({"ASSAY_LLM_URL": "https://api.example.com/v1"})
    assert plain is not None and plain.api_key is None and plain.model == "default"
    assert plain.name == "default@api.example.com"


def test_client_from_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert client_from_environment() is None
    monkeypatch.setenv("ASSAY_LLM_URL", "http://127.0.0.1:8765/v1")
    monkeypatch.setenv("ASSAY_LLM_API_KEY", "")  # blank means none
    client = client_from_environment()
    assert client is not None and client.api_key is None


@pytest.mark.parametrize(
    ("timeout", "field"),
    [("soon", "ASSAY_LLM_TIMEOUT"), ("0", "llm_timeout"), ("-3", "llm_timeout")],
)
def test_a_bad_timeout_in_the_environment_is_invalid_input(timeout: str, field: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        client_from_environment({"ASSAY_LLM_URL": "http://x/v1", "ASSAY_LLM_TIMEOUT": timeout})
    assert info.value.field == field


def test_a_bad_url_in_the_environment_is_invalid_input() -> None:
    with pytest.raises(InvalidInputError, match="llm_url"):
        client_from_environment({"ASSAY_LLM_URL": "127.0.0.1:8765"})


# -- complete(): the text of one reply ---------------------------------------------------------


def test_complete_returns_the_reply_text_and_sends_the_conversation(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("  The answer. ")))
    history = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "reply"},
    ]
    client = endpoint.client(model="writer")
    text = client.complete("You write.", "second", history=history, max_tokens=7, temperature=0.3)
    assert text == "  The answer. "  # as the model wrote it; callers strip
    body = endpoint.requests[0]["body"]
    assert body["model"] == "writer"
    assert body["messages"] == [
        {"role": "system", "content": "You write."},
        *history,
        {"role": "user", "content": "second"},
    ]
    assert body["max_tokens"] == 7 and body["temperature"] == 0.3
    assert history == [  # the caller's list is not changed
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "reply"},
    ]


def test_complete_defaults_to_a_deterministic_bounded_reply(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("ok")))
    assert endpoint.client().complete("s", "u") == "ok"
    body = endpoint.requests[0]["body"]
    assert body["messages"] == [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
    ]
    assert body["temperature"] == 0.0 and body["max_tokens"] == 512


@pytest.mark.parametrize(
    "body",
    [
        {"choices": []},
        {"error": "x"},
        ["not", "an", "object"],
        {"choices": [{"index": 0}]},
        {"choices": [{"message": {"role": "assistant", "content": None}}]},
        {"choices": [{"message": {"role": "assistant", "content": ["a", "list"]}}]},
    ],
)
def test_complete_rejects_an_unexpected_reply_shape(endpoint: Endpoint, body: Any) -> None:
    endpoint.script(Reply(body))
    with pytest.raises(EndpointError, match="unexpected reply shape"):
        endpoint.client().complete("s", "u")


def test_complete_retries_server_errors_like_chat(endpoint: Endpoint) -> None:
    endpoint.script(Reply({"error": "busy"}, status=503), Reply(text_reply("fine")))
    assert endpoint.client(retries=1).complete("s", "u") == "fine"
    assert len(endpoint.requests) == 2


def test_complete_times_out(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("late"), delay=2.0))
    with pytest.raises(EndpointError, match="failed after 1 attempts"):
        endpoint.client(timeout=0.2, retries=0).complete("s", "u")


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"temperature": -0.1}, "temperature"),
        ({"temperature": math.nan}, "temperature"),
        ({"history": [{"role": "user"}]}, "history[0]"),
        ({"history": ["hi"]}, "history[0]"),
    ],
)
def test_complete_rejects_bad_options_before_any_request(
    endpoint: Endpoint, options: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInputError) as info:
        endpoint.client().complete("s", "u", **options)
    assert info.value.field == field
    assert endpoint.requests == []


# -- the models that ask it ------------------------------------------------------------------


def test_r4_llm_relevance_asks_once_per_passage(endpoint: Endpoint) -> None:
    endpoint.script(
        Reply(logprobs_reply({"Yes": 0.8, "No": 0.2})),
        Reply(logprobs_reply({"No": 0.6, "Yes": 0.3, "The": 0.1}, content="No")),
    )
    model = LLMRelevanceModel(endpoint.client(model="judge"), max_chars=40)
    assert model.name.startswith("llm-yes-no:judge@127.0.0.1:")
    long_passage = "The battery may be charged up to 45 degrees. " + "x" * 100
    scores = model.score("How hot may the battery get?", [long_passage, "Pythons are snakes."])
    assert scores == pytest.approx([0.8, 1 / 3])
    first, second = (r["body"]["messages"] for r in endpoint.requests)
    assert "yes or no" in first[0]["content"]
    assert "Question: How hot may the battery get?" in first[1]["content"]
    assert long_passage[:40] in first[1]["content"] and "x" * 61 not in first[1]["content"]
    assert "Passage: Pythons are snakes." in second[1]["content"]
    assert model.score("q", []) == [] and len(endpoint.requests) == 2
    with pytest.raises(InvalidInputError, match="passages"):
        model.score("q", "a bare string")
    # the same pair again (another policy, a broadened search) is remembered, not asked
    again = model.score("How hot may the battery get?", ["Pythons are snakes.", long_passage])
    assert again == pytest.approx([1 / 3, 0.8]) and len(endpoint.requests) == 2


def test_e10_llm_support_labels_by_p_yes(endpoint: Endpoint) -> None:
    endpoint.script(
        Reply(logprobs_reply({"yes": 0.9, "no": 0.1})),
        Reply(logprobs_reply({"no": 0.7, "yes": 0.3}, content="no")),
    )
    model = LLMSupportModel(endpoint.client(), max_chars=20)
    results = model.score([("Claim one.", "Evidence that goes on and on."), ("Claim two.", "E.")])
    assert results[0] == SupportResult(pytest.approx(0.9), "supported")  # type: ignore[arg-type]
    assert results[1] == SupportResult(pytest.approx(0.3), "unsupported")  # type: ignore[arg-type]
    assert all(r.contradiction is None and not r.truncated for r in results)
    user = endpoint.requests[0]["body"]["messages"][1]["content"]
    assert "Claim: Claim one." in user
    assert "Evidence: Evidence that goes o\n" in user  # cut at max_chars (20)
    with pytest.raises(InvalidInputError, match=r"pairs\[0\]"):
        model.score([("only a claim",)])  # type: ignore[list-item]


def test_llm_models_by_name_use_the_configured_endpoint(
    endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_LLM_URL", endpoint.base_url)
    monkeypatch.setenv("ASSAY_LLM_API_KEY", "sk-env")
    assert get_relevance_model("llm").score("q", ["p"]) == [1.0]  # the default reply: "yes"
    assert get_support_model("llm").score([("c", "e")])[0].label == "supported"
    assert [r["headers"]["Authorization"] for r in endpoint.requests] == ["Bearer sk-env"] * 2


def test_r4_cascade_asks_the_llm_about_the_top_three_only(
    endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_LLM_URL", endpoint.base_url)
    cascade = get_relevance_model("cascade")
    assert isinstance(cascade, CascadeRelevanceModel)
    query = "What is the maximum charging temperature of the battery?"
    passages = [
        "Burmese pythons are large snakes.",
        "The battery may be charged at up to 45 degrees.",
        "Refunds are issued within 14 days.",
        "Charging the battery above 45 degrees is not allowed.",
        "The recipe needs two cups of flour.",
    ]
    fast = cascade.fast.score(query, passages)
    endpoint.script(*[Reply(logprobs_reply({"yes": 0.5, "no": 0.5})) for _ in range(3)])
    scores = cascade.score(query, passages)
    assert len(endpoint.requests) == 3
    top = sorted(range(len(passages)), key=lambda i: -fast[i])[:3]
    asked = [r["body"]["messages"][1]["content"] for r in endpoint.requests]
    assert all(f"Passage: {passages[i]}" in text for i, text in zip(top, asked, strict=True))
    for i, (f, s) in enumerate(zip(fast, scores, strict=True)):
        if i in top:  # P(yes) = 0.5 has log-odds 0: the average halves the fast log-odds
            z = 0.5 * math.log(f / (1 - f))
            assert s == pytest.approx(1 / (1 + math.exp(-z)))
        else:
            assert s == f


def test_models_ask_the_endpoint_their_settings_name(endpoint: Endpoint, tmp_path: Path) -> None:
    """An engine built with its own LLM settings asks that endpoint, not the environment's
    (which is unset here), for relevance, support and the judge alike."""
    llm = LLMSettings(url=endpoint.base_url, api_key="sk-set")
    assert get_relevance_model("llm", llm=llm).score("q", ["p"]) == [1.0]
    assert get_support_model("llm", llm=llm).score([("c", "e")])[0].label == "supported"
    settings = load_settings(db=tmp_path / "a.db", judge="llm", llm=llm)
    with Assay(settings=settings) as engine:
        assert isinstance(engine.judge, LLMJudge)
    assert [r["headers"]["Authorization"] for r in endpoint.requests] == ["Bearer sk-set"] * 2
    with pytest.raises(InvalidInputError, match="set ASSAY_LLM_URL"):
        get_relevance_model("llm")  # the environment names no endpoint
