"""A chat model asked whether a passage states the answer (the ``llm_cited`` feature of
``assay-correctness-llm``), against an OpenAI-compatible server in this process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.errors import EndpointError, InvalidInputError
from assay.models.answerability import ANSWERABILITY_PROMPT_VERSION, LLMAnswerability
from tests.fake_llm import Endpoint, Reply, logprobs_reply, serve

QUESTION = "How long does a full charge of the HX-40 take?"
PASSAGE = "A full charge takes about 3 hours at room temperature."


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with serve() as ep:
        yield ep


def test_the_belief_is_p_yes_of_the_first_reply_token(endpoint: Endpoint) -> None:
    endpoint.script(Reply(logprobs_reply({"Yes": 0.5, "yes": 0.1, "No": 0.3, "no": 0.1})))
    asker = LLMAnswerability(endpoint.client(model="qwen"))
    assert asker.belief(QUESTION, PASSAGE, "HX-40 > Charging") == pytest.approx(0.6)
    assert asker.name == f"{ANSWERABILITY_PROMPT_VERSION}:qwen"
    system, user = (m["content"] for m in endpoint.messages(0))
    assert "yes or no" in system
    assert user.startswith(f"Passage (HX-40 > Charging): {PASSAGE}")
    assert f"Question: {QUESTION}" in user and "this exact question" in user
    body = endpoint.requests[0]["body"]
    assert body["max_tokens"] == 1 and body["logprobs"] is True


def test_a_pair_is_asked_once_and_an_untitled_passage_has_no_brackets(
    endpoint: Endpoint,
) -> None:
    endpoint.script(Reply(logprobs_reply({"No": 0.8, "Yes": 0.2}, "No")))
    asker = LLMAnswerability(endpoint.client())
    first = asker.belief(QUESTION, PASSAGE)
    assert asker.belief(QUESTION, PASSAGE) == first == pytest.approx(0.2)
    assert len(endpoint.requests) == 1  # a question asked under two policies cites it twice
    assert endpoint.messages(0)[1]["content"].startswith(f"Passage: {PASSAGE}")


def test_a_long_passage_is_cut_at_a_word(endpoint: Endpoint) -> None:
    endpoint.script(Reply(logprobs_reply({"Yes": 0.9, "No": 0.1})))
    LLMAnswerability(endpoint.client(), max_chars=200).belief(QUESTION, "charging " * 100)
    shown = endpoint.messages(0)[1]["content"].split("\n\n")[0]
    assert shown.endswith("charging ...") and len(shown) < 200 + len("Passage: ...")


def test_bad_input_and_a_failing_endpoint_say_what_to_do(endpoint: Endpoint) -> None:
    with pytest.raises(InvalidInputError, match="max_chars"):
        LLMAnswerability(endpoint.client(), max_chars=10)
    asker = LLMAnswerability(endpoint.client(retries=0))
    with pytest.raises(InvalidInputError, match="question"):
        asker.belief("  ", PASSAGE)
    endpoint.script(Reply({"error": "overloaded"}, status=503))
    with pytest.raises(EndpointError, match="ASSAY_LLM_URL"):
        asker.belief(QUESTION, PASSAGE)
