"""The reader's training examples: each answer is labelled on the tokens that spell it,
"no answer" on [CLS], and nothing from the sets the answer benchmarks measure on."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from assay.models.reader import SHIPPED_READER, WindowTokenizer, reader_tokenizer
from assay.training.datasets import squad_splits
from assay.training.reader_train import ReaderExample, encode, reader_examples

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("ASSAY_DATA", REPO.parent / "shared" / "data"))
MORE = DATA.parent / "data_more"
SQUAD = DATA / "squad_v2_dev" / "dev-v2.0.reconstructed.json"
PASSAGE = "The HX-40 was first sold in 2019. A full charge takes about 3 hours."


@pytest.fixture(scope="module")
def tok() -> WindowTokenizer:
    return reader_tokenizer(SHIPPED_READER / "tokenizer.json")


def test_an_answer_is_labelled_on_the_tokens_that_spell_it(tok: WindowTokenizer) -> None:
    at = PASSAGE.index("about 3 hours")
    window, first, last = encode(tok, ReaderExample("t", "How long?", PASSAGE, at, "about 3 hours"))
    assert PASSAGE[window.offsets[first][0] : window.offsets[last][1]] == "about 3 hours"
    assert window.sequence_ids[first] == window.sequence_ids[last] == 1


def test_no_answer_is_labelled_on_cls_and_a_lost_answer_is_skipped(tok: WindowTokenizer) -> None:
    _, first, last = encode(tok, ReaderExample("t", "Who made it?", PASSAGE))
    assert (first, last) == (0, 0)
    far = "filler " * 600 + "The maker is Voltix."
    at = far.index("Voltix")
    window, first, last = encode(tok, ReaderExample("t", "Who made it?", far, at, "Voltix"))
    assert far[window.offsets[first][0] : window.offsets[last][1]] == "Voltix"  # a later window
    beyond = ReaderExample("t", "Who?", PASSAGE, len(PASSAGE) - 3, "rs. And more")
    assert encode(tok, beyond) is None  # no window holds all of it


@pytest.mark.skipif(not SQUAD.is_file(), reason="no SQuAD 2.0 dev set: set ASSAY_DATA")
def test_the_examples_keep_out_what_the_benchmarks_measure() -> None:
    examples = reader_examples(DATA, MORE)
    counts = Counter(e.dataset for e in examples)
    assert set(counts) == {
        "squad", "squad:absent", "policyqa", "policyqa:absent", "halueval", "halueval:other"
    }  # fmt: skip
    held = set(squad_splits(SQUAD)["validation"] + squad_splits(SQUAD)["test"])
    held_text = {
        p["context"]
        for a in json.loads(SQUAD.read_text())["data"]
        if a["title"] in held
        for p in a["paragraphs"]
    }
    assert not any(e.passage in held_text for e in examples)
    answered = [e for e in examples if e.answer_start is not None]
    assert all(
        e.passage[e.answer_start : e.answer_start + len(e.answer_text)] == e.answer_text
        for e in answered
        if e.answer_start is not None
    )
    assert all(
        e.answer_start is None for e in examples if e.dataset.endswith((":absent", ":other"))
    )
