"""assay's cross-encoder (``assay-relevance-ce``, ``assay-support-ce``): integrity checks,
windows over long passages, failing closed on long claims, and what it must tell apart.

The model is retrained from time to time, so these tests check order and labels on
clear cases, never exact scores.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay.errors import ModelUnavailableError
from assay.models.pair_classifier import SHIPPED_CROSS_ENCODER, PairClassifier
from assay.models.relevance import get_relevance_model
from assay.models.support import get_support_model

MANUAL = (
    "Charge the HX-40 only between 0 °C and 45 °C. A full charge takes about 3 hours with "
    "the supplied adapter. Do not leave the battery in a hot car."
)


@pytest.fixture(scope="module")
def model() -> PairClassifier:
    return PairClassifier()


def test_a_changed_model_file_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "model"
    shutil.copytree(SHIPPED_CROSS_ENCODER, copy)
    with (copy / "model.onnx").open("ab") as handle:
        handle.write(b"\0")
    with pytest.raises(ModelUnavailableError, match="sha256"):
        PairClassifier(copy)


def test_a_folder_without_its_manifest_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="cannot load"):
        PairClassifier(tmp_path)


def test_manifest_names_the_outputs_in_training_order() -> None:
    info = json.loads((SHIPPED_CROSS_ENCODER / "model.json").read_text())
    assert info["outputs"] == ["relevant", "supported", "contradicted", "unsupported"]


def test_a_long_passage_is_read_in_overlapping_windows(model: PairClassifier) -> None:
    filler = " ".join(f"Paragraph {i} describes the storage room." for i in range(120))
    question = "How long does a charge take?"
    short, long_, without = model.score(
        [(question, MANUAL), (question, f"{filler} {MANUAL}"), (question, filler)]
    )
    assert short.windows == 1 and long_.windows > 2
    # the answer at the very end of a long text is still found: the same filler without
    # it scores near zero (1.1.0: 0.325 with the answer at the end, 0.006 without)
    assert long_.relevant > 20 * without.relevant


def test_r4_the_passage_that_answers_ranks_above_on_topic_ones_that_do_not() -> None:
    scores = get_relevance_model("assay-relevance-ce").score(
        "How long does a full charge take?",
        [MANUAL, "The HX-40 ships with a two-year warranty and a carrying case.", "Cats purr."],
    )
    assert scores[0] > scores[1] > 0.0 and scores[0] > scores[2]


@pytest.mark.xfail(
    strict=True,
    reason="model quality of assay-support-ce 1.1.0: a claim copied from the evidence is "
    "called contradicted about as often as supported (answer-swap stress AUROC 0.71-0.85)",
)
def test_e10_support_falls_when_the_figure_in_the_evidence_changes() -> None:
    claim = "A full charge takes about 3 hours."
    same, swapped = get_support_model("assay-support-ce").score(
        [(claim, MANUAL), (claim, MANUAL.replace("3 hours", "9 hours"))]
    )
    assert same.label == "supported"
    assert swapped.score < same.score
    assert swapped.contradiction is not None and same.contradiction is not None
    assert swapped.contradiction > same.contradiction


def test_e10_a_claim_too_long_for_half_a_window_fails_closed() -> None:
    claim = " ".join(["The battery charges between 0 and 45 degrees."] * 40)
    (result,) = get_support_model("assay-support-ce").score([(claim, MANUAL)])
    assert result.truncated and result.score == 0.0 and result.label != "supported"
