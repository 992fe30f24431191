"""``assay-support-stack``: integrity checks, the recipe, and what it must tell apart.

The heads are refitted whenever the cross-encoder changes, so these tests check order
and labels on clear cases, never exact scores.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from assay.errors import ModelUnavailableError
from assay.models.support import get_support_model
from assay.models.support_stack import SHIPPED_STACK, STACK_FEATURES, SupportStack
from assay.training.stack_train import fit_stack_head

MANUAL = (
    "Charge the HX-40 only between 0 °C and 45 °C. A full charge takes about 3 hours with "
    "the supplied adapter. Do not leave the battery in a hot car."
)


@pytest.fixture(scope="module")
def stack() -> SupportStack:
    return SupportStack()


def copy_of_the_stack(tmp_path: Path) -> Path:
    copy = tmp_path / "stack"
    shutil.copytree(SHIPPED_STACK, copy)
    return copy


def test_a_changed_head_file_is_refused(tmp_path: Path, stack: SupportStack) -> None:
    copy = copy_of_the_stack(tmp_path)
    with (copy / "support.npz").open("ab") as handle:
        handle.write(b"\0")
    with pytest.raises(ModelUnavailableError, match="sha256"):
        SupportStack(copy, stack.classifier)


def test_heads_fitted_on_another_cross_encoder_are_refused(
    tmp_path: Path, stack: SupportStack
) -> None:
    copy = copy_of_the_stack(tmp_path)
    info = json.loads((copy / "model.json").read_text())
    (copy / "model.json").write_text(json.dumps({**info, "cross_encoder_sha256": "0" * 64}))
    with pytest.raises(ModelUnavailableError, match="make train-models"):
        SupportStack(copy, stack.classifier)


def test_a_missing_model_file_names_the_fix(tmp_path: Path, stack: SupportStack) -> None:
    with pytest.raises(ModelUnavailableError, match="reinstall assay"):
        SupportStack(tmp_path, stack.classifier)


def test_probabilities_form_a_distribution(stack: SupportStack) -> None:
    pairs = [("A full charge takes about 3 hours.", MANUAL), ("Cats purr.", MANUAL)]
    scores = stack.score(pairs)
    supported, contradicted = scores.supported, scores.contradicted
    assert len(supported) == len(contradicted) == len(scores.views) == len(scores.shown) == 2
    assert ((supported >= 0) & (supported + contradicted <= 1 + 1e-9) & (contradicted <= 1)).all()
    assert stack.score([]).supported.shape == (0,)


def test_e10_support_falls_and_contradiction_rises_when_the_figure_changes() -> None:
    claim = "A full charge takes about 3 hours."
    same, swapped = get_support_model("assay-support-stack").score(
        [(claim, MANUAL), (claim, MANUAL.replace("3 hours", "9 hours"))]
    )
    assert same.label == "supported" and swapped.label != "supported"
    assert swapped.contradiction is not None and same.contradiction is not None
    assert swapped.contradiction > same.contradiction


def test_e10_a_negated_passage_does_not_support_its_claim() -> None:
    claim = "Leave the battery in a hot car."
    (result,) = get_support_model("assay-support-stack").score([(claim, MANUAL)])
    assert result.label != "supported"


def test_e10_a_claim_too_long_for_half_a_window_fails_closed() -> None:
    claim = " ".join(["The battery charges between 0 and 45 degrees."] * 40)
    (result,) = get_support_model("assay-support-stack").score([(claim, MANUAL)])
    assert result.truncated and result.score == 0.0 and result.label != "supported"


def test_the_recipe_weighs_every_set_the_same() -> None:
    """A set ten times larger does not outvote a small one that disagrees with it."""
    rng = np.random.default_rng(0)
    rows, labels = {}, {}
    for name, size, sign in (("big", 2000, 1), ("small", 200, -1)):
        rows[name] = np.zeros((size, len(STACK_FEATURES)))
        rows[name][:, 0] = rng.normal(size=size)  # one feature, read oppositely by the two
        labels[name] = (sign * rows[name][:, 0] > 0).astype(np.int64)
    head = fit_stack_head("test", rows, labels)
    assert head.features == STACK_FEATURES and head.classes == ("0", "1")
    x = np.vstack(list(rows.values()))
    above = head.probabilities(x)[:, 1][x[:, 0] > 0]
    # pooled pair by pair, the big set's rule would win (P about 0.9 above 0); set by set,
    # neither does (the sparse tails of the small set leave it short of 0.5)
    assert 0.3 < above.mean() < 0.7
