"""The encoding cache: each text is run through MiniLM once, whoever asks and whenever."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from assay import Assay
from assay.errors import InvalidInputError
from assay.flow.retrieval import search
from assay.ingest.pipeline import IngestOptions, embedding_text
from assay.models.embedder import MiniLMEmbedder, TokenWindow, get_embedder
from assay.models.encoding_settings import MIB, configure_encodings, wanted_encodings
from assay.models.encodings import EncodingCache, embed_through_cache, shared_encodings
from assay.models.pair_classifier import shipped_pair_classifier

MODEL = "all-MiniLM-L6-v2-int8@test"
TEXTS = [
    "The HX-40 charges fully in about three hours.",
    "Store the battery between -20 and 35 degrees Celsius.",
]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    embedder = get_embedder("minilm")
    assert isinstance(embedder, MiniLMEmbedder)
    return embedder


class Counting:
    """``encode_tokens`` of MiniLM, counting the texts it is asked to encode."""

    def __init__(self, minilm: MiniLMEmbedder) -> None:
        self.minilm, self.texts = minilm, []  # type: list[str]

    def __call__(self, texts: list[str]) -> list[list[TokenWindow]]:
        self.texts += texts
        return self.minilm.encode_tokens(texts)


def _same(a: list[list[TokenWindow]], b: list[list[TokenWindow]]) -> bool:
    return all(
        np.array_equal(x.ids, y.ids)
        and x.offsets == y.offsets
        and np.array_equal(x.states, y.states)
        and np.array_equal(x.pooled, y.pooled)
        for xs, ys in zip(a, b, strict=True)
        for x, y in zip(xs, ys, strict=True)
    )


def test_a_text_is_encoded_once_and_served_from_memory(minilm: MiniLMEmbedder) -> None:
    cache, encode = EncodingCache(), Counting(minilm)
    first = cache.windows(MODEL, [TEXTS[0], TEXTS[0], TEXTS[1]], encode)
    again = cache.windows(MODEL, TEXTS, encode)
    assert encode.texts == TEXTS  # each once, though the first call named one twice
    assert _same(first[1:], again)
    assert again[0][0].states.dtype == np.float32
    direct = minilm.encode_tokens(TEXTS)
    # kept as float16: every token vector within float16 rounding of the network's
    for got, want in zip(again, direct, strict=True):
        assert np.abs(got[0].states - want[0].states).max() < 2e-3
        assert np.array_equal(got[0].pooled, want[0].pooled)


def test_the_disk_tier_serves_a_new_process_the_same_windows(
    minilm: MiniLMEmbedder, tmp_path: Path
) -> None:
    path = tmp_path / "kb.encodings.db"
    before = EncodingCache(disk=path).windows(MODEL, TEXTS, Counting(minilm))
    later, encode = EncodingCache(disk=path), Counting(minilm)  # another process, say
    after = later.windows(MODEL, TEXTS, encode)
    assert encode.texts == [] and later.hits["disk"] == 2
    assert _same(before, after)  # the same float16 values from either tier


def test_the_model_is_part_of_the_key(minilm: MiniLMEmbedder) -> None:
    cache, encode = EncodingCache(), Counting(minilm)
    cache.windows(MODEL, TEXTS[:1], encode)
    cache.windows(MODEL + "-v2", TEXTS[:1], encode)
    assert encode.texts == [TEXTS[0], TEXTS[0]]


def test_memory_holds_its_size_in_bytes_least_recently_used_first(
    minilm: MiniLMEmbedder,
) -> None:
    texts = [f"Sentence number {n} of the manual." for n in ("one", "two", "six")]
    probe = EncodingCache()
    probe.windows(MODEL, texts[:1], minilm.encode_tokens)
    one = probe._held  # the bytes of one of them (they have as many tokens)
    cache, encode = EncodingCache(memory_bytes=int(2.5 * one)), Counting(minilm)
    cache.windows(MODEL, texts[:2], encode)
    cache.windows(MODEL, texts[:1], encode)  # read again: the first is now the newest
    cache.windows(MODEL, texts[2:], encode)  # evicts the second
    encode.texts.clear()
    cache.windows(MODEL, texts, encode)
    assert encode.texts == [texts[1]]


def test_the_disk_tier_stays_under_its_size(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    cache = EncodingCache(disk=tmp_path / "small.db", disk_bytes=60_000)
    texts = [f"Paragraph {n}: the charger must stay dry and cool." for n in range(12)]
    for text in texts:
        cache.windows(MODEL, [text], minilm.encode_tokens)
    disk = cache._disk
    assert disk is not None and 0 < disk.total <= 60_000
    (stored,) = disk._db.execute("SELECT sum(size) FROM encodings").fetchone()
    assert stored == disk.total
    encode = Counting(minilm)
    EncodingCache(disk=tmp_path / "small.db").windows(MODEL, texts[-1:], encode)
    assert encode.texts == []  # the newest survived


def test_a_broken_disk_file_turns_the_tier_off_and_loses_nothing(
    minilm: MiniLMEmbedder, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "broken.db"
    path.write_bytes(b"this is not an SQLite file" * 100)
    with caplog.at_level(logging.WARNING):
        cache = EncodingCache(disk=path)
        windows = cache.windows(MODEL, TEXTS, minilm.encode_tokens)
    assert len(windows) == 2 and cache._disk is None
    assert "keeping memory only" in caplog.text


def test_sizes_are_validated() -> None:
    with pytest.raises(InvalidInputError, match="memory_bytes"):
        EncodingCache(memory_bytes=-1)
    with pytest.raises(InvalidInputError, match="disk_bytes"):
        configure_encodings(MIB, None, -5)


def test_the_process_cache_follows_the_sizes_configured_last(tmp_path: Path) -> None:
    """Opening an engine only states the sizes; the cache is built on first use, once,
    and built again (the old one closed) when the sizes change."""
    before = wanted_encodings()
    try:
        configure_encodings(3 * MIB, tmp_path / "a.db", 0)  # no disk bytes: memory only
        first = shared_encodings()
        assert first.sizes == (3 * MIB, None, 0) and shared_encodings() is first
        configure_encodings(4 * MIB, tmp_path / "b.db", 5 * MIB)
        second = shared_encodings()
        assert second is not first and second.sizes == (4 * MIB, tmp_path / "b.db", 5 * MIB)
        assert (tmp_path / "b.db").exists()
    finally:
        configure_encodings(*before)


def test_the_question_vector_comes_with_its_token_states(minilm: MiniLMEmbedder) -> None:
    """One run of the network serves both dense search and the relevance model."""
    question = "How long does a full charge of the HX-40 take, in hours?"
    vectors = embed_through_cache(minilm, [question])
    assert np.array_equal(vectors, minilm.embed([question]))
    encode = Counting(minilm)
    shared_encodings().windows(minilm.name, [question], encode)
    assert encode.texts == []


def test_ingest_keeps_each_chunks_states_for_the_relevance_model(tmp_path: Path) -> None:
    engine = Assay(tmp_path / "kb.db")
    engine.sources.add("manual", "official", owner="Acme")
    records = [
        {"id": "charge", "title": "HX-40 > Charging", "text": "A full charge takes 3 hours."},
        {"id": "store", "title": "HX-40 > Storage", "text": "Store it below 35 degrees."},
    ]
    data = tmp_path / "manual.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = engine.ingest([data], options=IngestOptions(source_id="manual"))
    assert report.count("added") == 1
    cache = shared_encodings()
    assert cache.disk_path == tmp_path / "kb.encodings.db"
    cache.clear_memory()  # as a new process: only the disk holds them
    hits = search(engine.store, engine.embedder, "How long does a charge take?", k=2).hits
    texts = [embedding_text(h.chunk) for h in hits]
    assert len(texts) == 2 and "HX-40 > Charging" in texts[0] + texts[1]
    encode = Counting(engine.embedder)  # type: ignore[arg-type]
    cache.windows(engine.embedder.name, texts, encode)
    assert encode.texts == []
    engine.close()


def test_a_question_encodes_no_passage_that_ingest_kept(tmp_path: Path) -> None:
    """The answer path finds each admitted passage's states under its titled text (the
    title path travels with the contexts): it encodes the question and a few sentences
    to read alone, never a passage again."""
    engine = Assay(tmp_path / "kb.db")
    engine.sources.add("manual", "official", owner="Acme")
    records = [
        {"id": "charge", "title": "HX-40 > Charging", "text": "A full charge takes 3 hours. "
         "Charge it between 0 and 45 degrees. Use only the supplied charger."},
        {"id": "store", "title": "HX-40 > Storage", "text": "Store it below 35 degrees. "
         "Keep it dry. Check the charge every six months."},
    ]  # fmt: skip
    data = tmp_path / "manual.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    engine.ingest([data], options=IngestOptions(source_id="manual"))
    shared_encodings().clear_memory()  # as a new process: only the disk holds them
    minilm = engine.embedder
    assert isinstance(minilm, MiniLMEmbedder)
    encoded: list[str] = []
    original = minilm.encode_tokens

    def counted(texts: list[str]) -> list[list[TokenWindow]]:
        encoded.extend(texts)
        return original(texts)

    minilm.encode_tokens = counted  # type: ignore[method-assign]
    try:
        engine.ask("How long does a full charge of the HX-40 take?", policy="informational")
    finally:
        minilm.encode_tokens = original  # type: ignore[method-assign]
        engine.close()
    passages = {r["text"] for r in records} | {f"{r['title']}\n{r['text']}" for r in records}
    assert encoded and not passages & set(encoded)


def test_a_cross_encoder_pair_is_run_once() -> None:
    model = shipped_pair_classifier()
    pair = ("The charger must stay dry.", "Keep the charger dry and away from water.")
    first = model.score([pair])
    calls: list[int] = []
    run = model._run
    model._run = lambda rows: calls.append(len(rows)) or run(rows)  # type: ignore[method-assign]
    try:
        assert model.score([pair, pair]) == first * 2
    finally:
        del model._run
    assert calls == []


def test_more_texts_than_one_query_takes_come_from_disk(
    minilm: MiniLMEmbedder, tmp_path: Path
) -> None:
    texts = [f"Clause {n} of the contract." for n in range(1200)]
    fake = TokenWindow(
        np.arange(3), [(0, 1), (1, 2), (2, 3)], np.ones((3, 4), "f4"), np.ones(4, "f4")
    )
    EncodingCache(disk=tmp_path / "many.db").put(MODEL, texts, [[fake]] * len(texts))
    later = EncodingCache(disk=tmp_path / "many.db")
    got = later.windows(MODEL, texts, lambda missing: pytest.fail(f"encoded {len(missing)}"))
    assert len(got) == 1200 and later.hits["disk"] == 1200 and later._disk is not None
