"""The answer-correctness model (issue: an answer's confidence that predicts whether it
is right): its features, its arithmetic, its file, and how the responder applies it.
The model fitted on real answers is measured by bench/pipeline.py; here a hand-written
one checks the mechanics."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.actions import ActionThresholds
from assay.answer.correctness import (
    FEATURES,
    LLM_FEATURE,
    LLM_FEATURES,
    LLM_STATEMENT,
    SHIPPED_CORRECTNESS,
    CorrectnessModel,
    CorrectnessRater,
    answer_features,
    features_of,
    first_statement,
    load_correctness_model,
    peer_ids,
    reader_belief,
)
from assay.documents import Chunk
from assay.errors import InvalidInputError
from assay.flow.assess import AskResult
from assay.flow.respond import Responder, Response, Status
from assay.flow.retrieval import Retrieval, Retrieved
from assay.flow.score import score_candidates
from assay.models.answerability import LLMAnswerability
from assay.models.reader import Reading, load_reader
from assay.routing import Decision
from assay.scoring.agreement import Conflict
from assay.scoring.evidence import SourceFacts
from assay.types import Candidate
from tests.fake_llm import Reply, logprobs_reply, serve
from tests.unit.test_respond import AS_OF, POLICY, ScriptedAnswerer, ScriptedJudge, result

N = len(FEATURES)


def model(**coef: float) -> CorrectnessModel:
    """Zero means, unit scales, the given coefficients (others 0)."""
    unknown = set(coef) - set(FEATURES)
    assert not unknown, unknown
    return CorrectnessModel(
        "test-correctness", "0.1", "test-relevance", "test-reader", (0.0,) * N, (1.0,) * N,
        tuple(coef.get(f, 0.0) for f in FEATURES), 0.0,
    )  # fmt: skip


def features(**values: float) -> dict[str, float]:
    return {f: values.get(f, 0.0) for f in FEATURES}


class SilentReader:
    """A reader that finds no answer anywhere."""

    name = "test-reader"

    def read(self, question: str, passage: str) -> Reading:
        return Reading("", 0, 0, -1.0, 1.0)


def test_reader_margins_read_as_beliefs() -> None:
    assert reader_belief(0.0) == 0.5
    assert reader_belief(-math.inf) == 0.0 and reader_belief(math.inf) == 1.0
    assert reader_belief(-4.0) < reader_belief(1.0) < reader_belief(8.0)


class ConstantRelevance:
    name = "test-relevance"

    def __init__(self, value: float) -> None:
        self.value = value

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        return [self.value] * len(passages)


def test_features_read_the_question_the_answer_and_the_evidence() -> None:
    values = answer_features(
        "How long does a full charge take?",
        "A full charge takes about 3 hours.",
        relevances=[0.2, 0.9, 0.5],
        cited_relevances=[0.5],
        answer_relevance=0.7,
        set_confidence=0.6,
        coverage=0.75,
        support=1.0,
        conflicts=5,
        reader_cited=0.8,
        reader_best=0.9,
        reader_statement=0.7,
        statement="Charging\nA full charge takes about 3 hours.",
    )
    assert list(values) == list(FEATURES)
    assert values["best_relevance"] == 0.9
    assert values["relevance_margin"] == pytest.approx(0.4)
    assert values["cited_relevance"] == 0.5
    assert values["kind_missing"] == 0.0  # "3 hours" is the duration "how long" asks for
    assert values["conflicts"] == 1.0  # capped at three
    assert values["question_overlap"] == pytest.approx(3 / 5)  # full charge takes, not 3 hours
    assert (values["reader_cited"], values["reader_best"]) == (0.8, 0.9)
    assert values["reader_statement"] == 0.7
    assert values["statement_coverage"] == 0.75  # all but "long"


def test_a_statement_about_another_item_covers_less_of_the_question() -> None:
    """Issue 41: "How much does the rabies vaccine cost for a cat?" was answered from
    the FeLV row of the same table; the row lacks "rabies"."""

    def covered(statement: str) -> float:
        return answer_features(
            "How much does the rabies vaccine cost for a cat?", statement,
            relevances=[0.8], cited_relevances=[0.8], answer_relevance=0.8,
            set_confidence=0.6, coverage=1.0, support=1.0, conflicts=0, reader_cited=0.8,
            reader_best=0.8, reader_statement=0.8, statement=statement,
        )["statement_coverage"]  # fmt: skip

    felv = covered("Vaccinations > Cats\nSpecies Cat: Vaccine: FeLV, Price per dose: £42.")
    rabies = covered("Vaccinations > Cats\nSpecies Cat: Vaccine: Rabies, Price per dose: £68.")
    assert felv < rabies == 0.75  # "cost" is not said: a price is


def test_a_model_fitted_before_a_feature_was_added_still_applies() -> None:
    older = FEATURES[:-1]
    m = CorrectnessModel(
        "old", "1", "test-relevance", "test-reader", (0.0,) * len(older), (1.0,) * len(older),
        (1.0,) + (0.0,) * (len(older) - 1), 0.0, older,
    )  # fmt: skip
    assert m.probability(features(best_relevance=1.0)) == pytest.approx(1 / (1 + math.exp(-1)))
    with pytest.raises(InvalidInputError, match="refit the model"):
        replace(m, features=(*older[:-1], "unknown_feature"))
    with pytest.raises(InvalidInputError, match="refit the model"):
        replace(m, features=(*older[:-1], older[0]))


def test_the_first_statement_is_what_the_answer_says_before_its_first_citation() -> None:
    assert first_statement("It takes 3 hours. [Source: a] Use the dock. [Source: b]") == (
        "It takes 3 hours."
    )
    assert first_statement("No citation at all.") == "No citation at all."
    assert first_statement("[Source: a] nothing before") == ""


def test_an_answer_without_the_type_asked_for_is_marked() -> None:
    values = answer_features(
        "When was the plant built?", "The plant is large.", relevances=[], cited_relevances=[],
        answer_relevance=0.0, set_confidence=0.0, coverage=0.0, support=0.0, conflicts=0,
        reader_cited=0.0, reader_best=0.0, reader_statement=0.0, statement="The plant is large.",
    )  # fmt: skip
    assert values["kind_missing"] == 1.0
    assert values["best_relevance"] == values["relevance_margin"] == 0.0


def test_probability_is_the_logistic_of_the_standardised_features() -> None:
    m = replace(model(best_relevance=2.0), mean=(0.5,) + (0.0,) * (N - 1),
                scale=(0.25,) + (1.0,) * (N - 1), intercept=-1.0)  # fmt: skip
    z = -1.0 + 2.0 * (0.9 - 0.5) / 0.25
    assert m.probability(features(best_relevance=0.9)) == round(1 / (1 + math.exp(-z)), 6)


def test_a_feature_far_outside_the_fitting_data_counts_as_three_deviations() -> None:
    m = replace(model(answer_relevance=1.0), scale=(0.01,) * N)
    assert m.probability(features(answer_relevance=-5.0)) == round(1 / (1 + math.exp(3.0)), 6)


@given(st.floats(0, 1), st.floats(0, 1), st.floats(-5, 5))
def test_probability_is_in_range_and_monotone_in_a_positive_feature(
    low: float, high: float, intercept: float
) -> None:
    low, high = sorted((low, high))
    m = replace(model(cited_relevance=3.0), intercept=intercept)
    p_low = m.probability(features(cited_relevance=low))
    p_high = m.probability(features(cited_relevance=high))
    assert 0.0 <= p_low <= p_high <= 1.0


def test_a_model_file_round_trips_and_a_foreign_one_is_refused(tmp_path: Path) -> None:
    m = model(support=1.5)
    (tmp_path / "model.json").write_text(json.dumps(m.to_dict()))
    assert load_correctness_model(tmp_path) == m
    other = m.to_dict() | {"features": ["best_relevance"]}
    (tmp_path / "model.json").write_text(json.dumps(other))
    with pytest.raises(InvalidInputError, match="make train-models"):
        load_correctness_model(tmp_path)
    with pytest.raises(InvalidInputError, match="not found"):
        load_correctness_model(tmp_path / "missing")
    with pytest.raises(InvalidInputError, match="features"):
        m.probability({"support": 1.0})


def test_the_shipped_model_loads_and_names_its_relevance_model_and_reader() -> None:
    shipped = load_correctness_model(SHIPPED_CORRECTNESS)
    assert shipped.name == "assay-correctness"
    assert shipped.applies_to(shipped.relevance_model, shipped.reader_model)
    assert shipped.reader_model == load_reader().name
    assert not shipped.applies_to("another-relevance-model", shipped.reader_model)
    assert not shipped.applies_to(shipped.relevance_model, "another-reader")
    assert (SHIPPED_CORRECTNESS / "MODEL_CARD.md").is_file()


def respond_rated(m: CorrectnessModel, support: float, relevance: float = 0.9) -> Response:
    rater = CorrectnessRater(m, ConstantRelevance(relevance), SilentReader())
    responder = Responder(ScriptedAnswerer(), ScriptedJudge(support), correctness=rater)
    return responder.respond("How warm may the anode get?", result(Decision.PROCEED, 0.9))


def test_the_score_is_the_weaker_of_correctness_and_support() -> None:
    right = model(answer_relevance=8.0)  # the answer's own relevance decides
    thresholds = ActionThresholds(0.8, 0.5, 0.3)
    sure = respond_rated(right, support=0.95, relevance=0.9)
    assert sure.judgment is not None and sure.judgment.correctness is not None
    rated = sure.judgment.correctness
    assert rated["probability"] == right.probability(rated["features"]) > 0.99
    assert sure.assessment.confidence_score == rated["score"] == 0.95  # the support is weaker
    assert sure.status is Status.ANSWERED
    assert sure.judgment.judge == "scripted-judge+test-correctness@0.1"
    doubtful = respond_rated(right, support=0.95, relevance=0.0)
    p = doubtful.judgment.correctness["probability"] if doubtful.judgment else None
    assert p == 0.5 and doubtful.assessment.confidence_score == 0.5
    assert doubtful.assessment.recommended_action == thresholds.action(0.5)
    assert "0.50 probability that the answer is right" in doubtful.assessment.score_rationale
    # the score shown is the lower of P and support: the rationale names P's own bands
    assert "this policy publishes from " in doubtful.assessment.score_rationale


def test_an_answer_unlikely_to_be_right_is_withheld_though_fully_supported() -> None:
    wrong = replace(model(answer_relevance=8.0), intercept=-10.0)
    response = respond_rated(wrong, support=1.0, relevance=0.5)
    assert response.status is Status.ABSTAINED_JUDGE
    assert response.assessment.recommended_action == "suppress"


def llm_model(features: Sequence[str] = LLM_FEATURES, **coef: float) -> CorrectnessModel:
    """:func:`model` over ``features`` (:data:`LLM_FEATURES`), fitted on the beliefs of
    ``test-llm``."""
    n = len(features)
    return CorrectnessModel(
        "test-correctness-llm", "0.1", "test-relevance", "test-reader", (0.0,) * n, (1.0,) * n,
        tuple(coef.get(f, 0.0) for f in features), 0.0, tuple(features), "answerability-v1:test",
    )  # fmt: skip


def test_a_model_of_a_chat_models_beliefs_applies_only_with_that_model(tmp_path: Path) -> None:
    m = llm_model(llm_cited=2.0)
    assert m.applies_to("test-relevance", "test-reader", "answerability-v1:test")
    assert not m.applies_to("test-relevance", "test-reader", "answerability-v1:other")
    assert not m.applies_to("test-relevance", "test-reader", None)
    assert model().applies_to("test-relevance", "test-reader", "answerability-v1:other")
    (tmp_path / "model.json").write_text(json.dumps(m.to_dict()))
    assert load_correctness_model(tmp_path) == m
    values = features() | {LLM_FEATURE: 0.9, LLM_STATEMENT: 0.5}
    assert m.probability(values) > m.probability(values | {LLM_FEATURE: 0.1})
    with pytest.raises(InvalidInputError, match=LLM_FEATURE):
        m.probability(features())
    with pytest.raises(InvalidInputError, match="answerability"):
        replace(m, answerability=None)
    with pytest.raises(InvalidInputError, match="answerability"):
        replace(model(), answerability="answerability-v1:test")


def test_a_model_of_a_chat_models_beliefs_cannot_rate_without_the_chat_model() -> None:
    with pytest.raises(InvalidInputError, match="LLMAnswerability"):
        CorrectnessRater(llm_model(), ConstantRelevance(0.9), SilentReader())


def test_an_answer_citing_no_retrieved_passage_has_no_belief_to_ask_for() -> None:
    """The chat model reads the most relevant cited passage; an answer whose citations
    name none of the retrieved passages has none, and a model that does not read the
    first statement (one of an earlier release) does not ask the endpoint at all."""
    earlier = llm_model([f for f in LLM_FEATURES if f != LLM_STATEMENT])
    with serve() as endpoint:
        asker = LLMAnswerability(endpoint.client())
        rater = CorrectnessRater(earlier, ConstantRelevance(0.9), SilentReader(), asker)
        responder = Responder(ScriptedAnswerer(), ScriptedJudge(0.9), correctness=rater)
        response = responder.respond("How warm may the anode get?", result(Decision.PROCEED, 0.9))
        assert endpoint.requests == []
    assert response.judgment is not None and response.judgment.correctness is not None
    assert response.judgment.correctness["features"][LLM_FEATURE] == 0.0


def test_the_chat_model_reads_the_answers_first_statement_alone() -> None:
    """``llm_statement``: a passage that answers is no answer when the sentence quoted
    from it is another one, so the chat model also reads what the answer states, without
    its passage or title; its doubt lowers P(right)."""
    with serve() as endpoint:
        endpoint.script(Reply(logprobs_reply({"No": 0.8, "Yes": 0.2}, "No")))
        asker = LLMAnswerability(endpoint.client())
        rater = CorrectnessRater(
            llm_model(llm_statement=2.0), ConstantRelevance(0.9), SilentReader(), asker
        )
        responder = Responder(ScriptedAnswerer(), ScriptedJudge(0.9), correctness=rater)
        response = responder.respond("How warm may the anode get?", result(Decision.PROCEED, 0.9))
        asked = endpoint.messages(0)[1]["content"]
        assert len(endpoint.requests) == 1  # the answer cites no retrieved passage
    assert asked.startswith("Passage: It charges at 0-45 C\n")
    assert response.judgment is not None and response.judgment.correctness is not None
    rated = response.judgment.correctness
    assert rated["features"][LLM_STATEMENT] == pytest.approx(0.2)
    assert rated["probability"] < llm_model(llm_statement=2.0).probability(
        rated["features"] | {LLM_STATEMENT: 0.9}
    )


def guide_post_and_old_terms() -> AskResult:
    """The router guide (official, relevance 0.6), a forum post echoing the question
    (reliability 0.4, relevance 0.9) that conflicts with it, and last year's terms
    (relevance 0.95), superseded by the guide's source."""
    question = "What does a solid amber light mean?"
    facts = {
        "guide": SourceFacts("official", 1.0, source_id="guide"),
        "forum": SourceFacts("forum", 0.4, source_id="forum"),
        "terms-2025": SourceFacts(
            "official", 1.0, source_id="terms-2025", superseded_by=("guide",)
        ),
    }
    rows = [("g", "guide", 0.6), ("p", "forum", 0.9), ("t", "terms-2025", 0.95)]
    candidates = [
        Candidate(id=i, text=f"Passage {i} on the amber light.", similarity=0.8,
                  source_id=source, published=AS_OF)
        for i, source, _ in rows
    ]  # fmt: skip
    scored = score_candidates(
        question, candidates, POLICY, lambda c: facts[c.source_id or ""], as_of=AS_OF
    )
    hits = [
        Retrieved(Chunk(i, f"doc-{i}", source, 0, c.text, None, "", f"file:{i}"),
                  0.5, 0.8, 0.5, relevance=relevance)
        for (i, source, relevance), c in zip(rows, candidates, strict=True)
    ]  # fmt: skip
    retrieval = Retrieval(question, hits, np.zeros((3, 4), dtype=np.float32), "hybrid", "test")
    conflict = Conflict("g", "p", "negation", ("No internet.", "Mine works fine."))
    base = result(Decision.PROCEED, 0.9)
    return replace(base, scored=scored, retrieval=retrieval, conflicts=(conflict,))


def test_an_answer_is_measured_against_passages_of_sources_as_reliable_as_its_own() -> None:
    """The forum post that echoes the question and the superseded terms rated the guide's
    right answers 0.03-0.16: its best relevance, margin, reader belief and conflicts are
    read among passages of the guide's standing; a post's answer is still measured
    against the guide."""
    asked = guide_post_and_old_terms()
    assert {e.id for e in asked.scored.excluded} == {"t"}  # superseded by the guide
    assert peer_ids(asked, {"g"}) == {"g"}
    assert peer_ids(asked, {"p"}) == {"g", "p"}
    assert peer_ids(asked, set()) == {"g", "p"}

    def rated(answer: str, cited: str) -> dict[str, float]:
        relevance, reader = ConstantRelevance(0.5), SilentReader()
        return features_of(relevance, reader, asked.retrieval.query, asked, answer, [cited], 1.0)

    from_guide = rated("No internet connection [Source: g].", "g")
    assert from_guide["best_relevance"] == from_guide["cited_relevance"] == 0.6
    assert from_guide["relevance_margin"] == 0.6 and from_guide["conflicts"] == 0.0
    from_post = rated("Mine went amber all evening [Source: p].", "p")
    assert from_post["best_relevance"] == 0.9 and from_post["cited_relevance"] == 0.9
    assert from_post["relevance_margin"] == pytest.approx(0.3)
    assert from_post["conflicts"] == pytest.approx(1 / 3)
