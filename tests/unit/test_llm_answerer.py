"""The LLM answerer (R8, G2) against a real HTTP server playing back scripted replies."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.answer.base import Answerer, Uncertainty
from assay.answer.citations import cited_ids, validate_citations
from assay.answer.llm import LLMAnswerer, parse_phrasings, rewrite_labels
from assay.answer.prompts import (
    CLARIFY,
    EXPAND,
    HEDGED,
    JUDGE,
    LLM_ONLY,
    LLM_ONLY_MARKER,
    PROMPT_SET_VERSION,
    PROMPTS,
    REFUSAL,
    STANDARD,
)
from assay.errors import InvalidInputError
from assay.judge.base import is_refusal
from assay.judge.schema import Context
from assay.models.llm import EndpointError
from tests.fake_llm import Endpoint, Reply, serve, text_reply

EVIDENCE = [
    Context("kb-battery-7", "The X200 battery may be charged between 0 and 45 degrees Celsius."),
    Context("sds-x200#3", "Charging the X200 below 0 degrees Celsius damages the cells."),
    Context("wiki/charging", "Fast charging is available on the X200 Pro only."),
]
QUESTION = "At what temperatures may the X200 battery be charged?"


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with serve() as ep:
        yield ep


def answerer(endpoint: Endpoint, **options: int) -> LLMAnswerer:
    return LLMAnswerer(endpoint.client(model="writer"), **options)


def test_it_is_an_answerer_named_after_its_endpoint(endpoint: Endpoint) -> None:
    llm = answerer(endpoint)
    assert isinstance(llm, Answerer)
    assert llm.name.startswith("llm:writer@127.0.0.1:")
    assert llm.can_answer_without_evidence is True


def test_prompts_are_versioned() -> None:
    assert PROMPT_SET_VERSION
    assert set(PROMPTS) == {"standard", "hedged", "llm_only", "clarify", "expand", "judge"}
    for prompt in PROMPTS.values():
        assert prompt.version.startswith(prompt.name.replace("_", "-") + "-v")
    assert is_refusal(REFUSAL)  # the judge suppresses the refusal the prompts ask for (J4)


# -- G2: the model cites S1..Sn, the draft cites real evidence ids ------------------------------


def test_g2_labels_are_rewritten_to_the_real_evidence_ids(endpoint: Endpoint) -> None:
    endpoint.script(
        Reply(
            text_reply(
                "The X200 charges between 0 and 45 degrees [Source: S1]. Below zero the cells "
                "are damaged [Source: S2, S1]. Fast charging is a Pro feature [S3]."
            )
        )
    )
    draft = answerer(endpoint).answer(QUESTION, EVIDENCE)
    assert draft.text == (
        "The X200 charges between 0 and 45 degrees [Source: kb-battery-7]. Below zero the cells "
        "are damaged [Source: sds-x200#3, kb-battery-7]. Fast charging is a Pro feature "
        "[Source: wiki/charging]."
    )
    assert (draft.mode, draft.prompt_version) == ("standard", STANDARD.version)
    assert draft.answerer.startswith("llm:writer@")
    assert validate_citations(draft.text, [c.id for c in EVIDENCE]).ok
    system, user = (m["content"] for m in endpoint.messages(0))
    assert "[Source: S1]" in system and REFUSAL in system
    assert "Source S1:\nThe X200 battery may be charged" in user
    assert "Source S3:\nFast charging" in user and f"Question: {QUESTION}" in user
    assert "kb-battery-7" not in user  # the model only ever sees the short labels
    body = endpoint.requests[0]["body"]
    assert body["temperature"] == 0.0 and body["max_tokens"] == 400


def test_g2_an_invented_label_stays_invalid(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("It charges up to 45 degrees [Source: S1; S9] [Source: S0].")))
    draft = answerer(endpoint).answer(QUESTION, EVIDENCE)
    assert cited_ids(draft.text) == ["kb-battery-7", "S9", "S0"]
    check = validate_citations(draft.text, [c.id for c in EVIDENCE])
    assert not check.ok and check.invalid == ("S9", "S0")


def test_g2_a_real_id_or_unknown_text_cited_by_the_model_is_left_alone() -> None:
    text = rewrite_labels("A [Source: kb-battery-7]. B [Source: the manual]. C [s2].", ["x", "y"])
    assert text == "A [Source: kb-battery-7]. B [Source: the manual]. C [Source: y]."


def test_contexts_are_cut_to_max_context_chars(endpoint: Endpoint) -> None:
    long = Context("long", "word " * 500)
    answerer(endpoint, max_context_chars=50).answer(QUESTION, [long])
    user = endpoint.messages(0)[1]["content"]
    assert "word " * 9 in user and "word " * 12 not in user and "..." in user


def test_a_refusal_is_passed_through(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply(f"  {REFUSAL}\n")))
    draft = answerer(endpoint).answer(QUESTION, EVIDENCE)
    assert draft.text == REFUSAL and is_refusal(draft.text)


# -- R8: hedged, llm_only --------------------------------------------------------------------


def test_r8_a_hedged_answer_is_told_its_confidence_and_reasons(endpoint: Endpoint) -> None:
    """The model words the answer knowing its uncertainty; stating the confidence to the
    reader is the pipeline's job (assay.flow.respond), so the draft is the answer only."""
    endpoint.script(Reply(text_reply("The sources suggest 0-45 C [Source: S1].")))
    uncertainty = Uncertainty(0.62, "medium", ("the sources are old", "no date given"))
    draft = answerer(endpoint).answer(QUESTION, EVIDENCE, mode="hedged", uncertainty=uncertainty)
    assert draft.text == "The sources suggest 0-45 C [Source: kb-battery-7]."
    assert (draft.mode, draft.prompt_version) == ("hedged", HEDGED.version)
    system, user = (m["content"] for m in endpoint.messages(0))
    assert "do not write it yourself" in system
    assert "Confidence: medium (0.62)" in user
    assert "Reasons for uncertainty: the sources are old; no date given" in user


def test_r8_a_hedged_refusal_stays_a_refusal(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply(REFUSAL)))
    draft = answerer(endpoint).answer(
        QUESTION, EVIDENCE, mode="hedged", uncertainty=Uncertainty(0.5, "medium")
    )
    assert is_refusal(draft.text)


def test_r8_a_hedged_answer_needs_an_uncertainty(endpoint: Endpoint) -> None:
    with pytest.raises(InvalidInputError, match="uncertainty"):
        answerer(endpoint).answer(QUESTION, EVIDENCE, mode="hedged")
    assert endpoint.requests == []


def test_r8_llm_only_is_marked_by_the_code_and_ignores_the_evidence(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("Usually 0 to 45 degrees [Source: S1].")))
    draft = answerer(endpoint).answer(QUESTION, EVIDENCE, mode="llm_only")
    assert draft.text == f"{LLM_ONLY_MARKER} Usually 0 to 45 degrees."  # no citation survives
    assert draft.text.startswith("Not from the knowledge base")
    assert (draft.mode, draft.prompt_version) == ("llm_only", LLM_ONLY.version)
    system, user = (m["content"] for m in endpoint.messages(0))
    assert "may be wrong" in system
    assert QUESTION in user and "degrees Celsius" not in user


def test_r8_llm_only_is_marked_even_when_the_model_says_nothing(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("")))
    draft = answerer(endpoint).answer(QUESTION, [], mode="llm_only")
    assert draft.text == LLM_ONLY_MARKER


@pytest.mark.parametrize("mode", ["standard", "hedged"])
def test_an_answer_from_the_evidence_needs_evidence(endpoint: Endpoint, mode: str) -> None:
    with pytest.raises(InvalidInputError, match="evidence"):
        answerer(endpoint).answer(
            QUESTION,
            [],
            mode=mode,  # type: ignore[arg-type]
            uncertainty=Uncertainty(0.5, "medium"),
        )


def test_an_unknown_mode_is_invalid_input(endpoint: Endpoint) -> None:
    with pytest.raises(InvalidInputError, match="mode"):
        answerer(endpoint).answer(QUESTION, EVIDENCE, mode="creative")  # type: ignore[arg-type]


@pytest.mark.parametrize("options", [{"max_context_chars": 0}, {"max_tokens": -1}])
def test_bad_settings_are_invalid_input(endpoint: Endpoint, options: dict[str, int]) -> None:
    with pytest.raises(InvalidInputError):
        answerer(endpoint, **options)


# -- clarify ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "question"),
    [
        ("Do you mean the X200 or the X200 Pro?", "Do you mean the X200 or the X200 Pro?"),
        ("Sure! Here is one: Which model do you mean? And when?", "Which model do you mean?"),
        ('"Which charger are you using."', "Which charger are you using?"),
    ],
)
def test_clarify_returns_one_question(endpoint: Endpoint, reply: str, question: str) -> None:
    endpoint.script(Reply(text_reply(reply)))
    draft = answerer(endpoint).clarify("How fast does it charge?", EVIDENCE, ["fast", "charge"])
    assert draft.text == question
    assert (draft.mode, draft.prompt_version) == ("clarify", CLARIFY.version)
    user = endpoint.messages(0)[1]["content"]
    assert "How fast does it charge?" in user and "fast, charge" in user
    assert "The X200 battery may be charged" in user


def test_clarify_asks_a_fixed_question_when_the_model_gives_none(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply("  ")))
    draft = answerer(endpoint).clarify("How fast?", [], ["fast"])
    assert draft.text.endswith("?") and "fast" in draft.text


# -- expand -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        '["X200 charging temperature", "battery heat limits"]',
        '```json\n["X200 charging temperature", "battery heat limits"]\n```',
        'Here you are:\n["X200 charging temperature", "battery heat limits"] Enjoy',
        '{"queries": ["X200 charging temperature", "battery heat limits"]}',
        '["X200 charging temperature", " ", 7, "x200 CHARGING  temperature", '
        f'"{QUESTION}", "battery heat limits", "third", "fourth"]',
    ],
)
def test_expand_parses_a_json_array(endpoint: Endpoint, reply: str) -> None:
    endpoint.script(Reply(text_reply(reply)))
    assert answerer(endpoint).expand(QUESTION, EVIDENCE, n=2) == [
        "X200 charging temperature",
        "battery heat limits",
    ]
    system, user = (m["content"] for m in endpoint.messages(0))
    assert "JSON array of 1 to 2 strings" in system and QUESTION in user
    assert endpoint.requests[0]["body"]["temperature"] > 0  # variety helps a second search


@pytest.mark.parametrize(
    "reply",
    ["X200 charging temperature, battery heat limits", '{"a": 1}', "[1, 2]", f'["{QUESTION}"]'],
)
def test_expand_gives_nothing_for_an_unusable_reply(endpoint: Endpoint, reply: str) -> None:
    endpoint.script(Reply(text_reply(reply)))
    assert answerer(endpoint).expand(QUESTION, EVIDENCE) == []


def test_expand_gives_nothing_when_the_endpoint_fails(endpoint: Endpoint) -> None:
    endpoint.script(*[Reply({"error": "down"}, status=500) for _ in range(2)])
    llm = LLMAnswerer(endpoint.client(retries=1))
    assert llm.expand(QUESTION, EVIDENCE) == []
    assert len(endpoint.requests) == 2  # the client's own retry, then give up


def test_expand_gives_nothing_after_a_timeout(endpoint: Endpoint) -> None:
    endpoint.script(Reply(text_reply('["late"]'), delay=2.0))
    llm = LLMAnswerer(endpoint.client(timeout=0.2, retries=0))
    assert llm.expand(QUESTION, EVIDENCE) == []


def test_expand_needs_a_positive_count(endpoint: Endpoint) -> None:
    with pytest.raises(InvalidInputError, match="n="):
        answerer(endpoint).expand(QUESTION, EVIDENCE, n=0)


def test_parse_phrasings_keeps_at_most_n() -> None:
    assert parse_phrasings('["a", "b", "c"]', "q", 1) == ["a"]
    assert parse_phrasings("", "q", 3) == []


def test_answers_raise_when_the_endpoint_fails(endpoint: Endpoint) -> None:
    endpoint.script(Reply({"error": "bad"}, status=400))
    with pytest.raises(EndpointError):
        answerer(endpoint).answer(QUESTION, EVIDENCE)


def test_the_judge_prompt_is_in_the_set() -> None:
    assert PROMPTS["judge"] is JUDGE and PROMPTS["expand"] is EXPAND
