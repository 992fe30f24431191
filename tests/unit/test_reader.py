"""The reader (``assay-reader``): span search, windows over long passages, and the shipped
model on the walkthrough's kind of text."""

from __future__ import annotations

import shutil
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.errors import InvalidInputError
from assay.models.reader import (
    MAX_ANSWER_TOKENS,
    MAX_TOKENS,
    SHIPPED_READER,
    Reader,
    best_span,
    load_reader,
    reader_tokenizer,
    windows,
)

SDS = (
    "Charge the HX-40 only between 0 °C and 45 °C. A full charge from empty takes about "
    "3 hours. Use only the supplied charger."
)


@given(st.lists(st.tuples(st.floats(-9, 9), st.floats(-9, 9), st.booleans()), min_size=1))
def test_the_best_span_is_the_highest_start_plus_end_in_the_passage(
    tokens: list[tuple[float, float, bool]],
) -> None:
    start = np.array([t[0] for t in tokens])
    end = np.array([t[1] for t in tokens])
    sequence_ids = [1 if t[2] else 0 for t in tokens]
    found = best_span(start, end, sequence_ids)
    allowed = [
        (start[i] + end[j], i, j)
        for i in range(len(tokens))
        for j in range(i, min(len(tokens), i + MAX_ANSWER_TOKENS))
        if sequence_ids[i] == sequence_ids[j] == 1
    ]
    if not any(sequence_ids):
        assert found is None
        return
    assert found is not None
    score, i, j = found
    assert sequence_ids[i] == sequence_ids[j] == 1 and 0 <= j - i < MAX_ANSWER_TOKENS
    assert score == pytest.approx(max(a[0] for a in allowed))


def test_a_long_passage_is_read_in_overlapping_windows_with_offsets_into_it() -> None:
    tok = reader_tokenizer(SHIPPED_READER / "tokenizer.json")
    passage = " ".join(f"Sentence {i} says the pack holds {i} cells." for i in range(120))
    parts = windows(tok, "How many cells does the pack hold?", passage)
    assert len(parts) > 2
    reach = []
    for window in parts:
        assert len(window.ids) <= MAX_TOKENS
        spans = [o for o, s in zip(window.offsets, window.sequence_ids, strict=True) if s == 1]
        assert all(0 <= a <= b <= len(passage) for a, b in spans)
        reach.append((spans[0][0], spans[-1][1]))
    assert reach[0][0] == 0 and reach[-1][1] == len(passage)
    assert all(b[0] < a[1] for a, b in pairwise(reach))  # they overlap


def test_a_long_question_is_cut_not_refused() -> None:
    tok = reader_tokenizer(SHIPPED_READER / "tokenizer.json")
    parts = windows(tok, "why " * 300 + "?", SDS)
    assert parts and all(len(w.ids) <= MAX_TOKENS for w in parts)


@pytest.fixture(scope="module")
def reader() -> Reader:
    return load_reader()


def test_the_shipped_reader_finds_the_duration_asked_for(reader: Reader) -> None:
    reading = reader.read("How long does a full charge take?", SDS)
    assert "3 hours" in reading.answer
    assert SDS[reading.start : reading.end] == reading.answer
    assert reading.margin > 0
    assert reader.name == "assay-reader@" + reader.version


def test_a_passage_without_the_answer_reads_as_less_answering(reader: Reader) -> None:
    question = "How long does a full charge take?"
    other = "The HX-40 weighs 2.1 kg and ships in a grey case with two spare fuses."
    assert reader.read(question, other).margin < reader.read(question, SDS).margin


def test_readings_are_cached_and_bad_input_is_refused(reader: Reader) -> None:
    question = "How long does a full charge take?"
    assert reader.read(question, SDS) is reader.read(question, SDS)
    with pytest.raises(InvalidInputError, match="question"):
        reader.read("  ", SDS)
    with pytest.raises(InvalidInputError, match="passage"):
        reader.read(question, None)  # type: ignore[arg-type]
    empty = reader.read(question, "")
    assert empty.answer == "" and empty.margin < 0


def test_a_changed_model_file_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "reader"
    shutil.copytree(SHIPPED_READER, copy)
    with (copy / "tokenizer.json").open("a", encoding="utf-8") as handle:
        handle.write(" ")
    with pytest.raises(InvalidInputError, match="make train-models"):
        Reader(copy)
    with pytest.raises(InvalidInputError, match="not a reader folder"):
        Reader(tmp_path)
