"""The cross-encoder's training plumbing: the mix travels as a file without loss, and the
batched loss is the per-pair loss it replaced (binary cross-entropy for relevance rows,
cross-entropy over the three support logits, set cross-entropy for "not supported")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from assay.training.cross_train import read_pairs, write_pairs
from assay.training.pairsets import LabeledPair

PAIRS = [
    LabeledPair("squad_v2", "relevance", "When was it sold?", "Sold in 2019.", "relevant", "a"),
    LabeledPair("swap:squad_v2", "relevance", "When was it sold in 1990?", "Sold in 2019.",
                "irrelevant", "a", kind="year"),
    LabeledPair("scifact", "support", "It rose.", "It rose by 3%.", "supported", "b", answer="3%"),
    LabeledPair("contract_nli", "support", "It may.", "It must not.", "contradicted", "c"),
    LabeledPair("q2", "support", "Ünïcode — ok", "text", "unsupported", "d"),
    LabeledPair("faithdial", "support", "A claim.", "Evidence.", "not_supported", "e"),
]  # fmt: skip


def test_the_mix_dump_reads_back_every_field(tmp_path: Path) -> None:
    path = tmp_path / "mix.jsonl.gz"
    write_pairs(PAIRS, path)
    assert read_pairs(path) == PAIRS


def test_the_batched_loss_equals_the_mean_of_each_pairs_loss() -> None:
    torch = pytest.importorskip("torch")
    from assay.training.cross_train import loss_of

    logits = torch.randn(len(PAIRS), 4, generator=torch.Generator().manual_seed(3))
    expected = []
    for row, pair in zip(logits, PAIRS, strict=True):
        if pair.task == "relevance":
            target = torch.tensor(1.0 if pair.positive else 0.0)
            expected.append(torch.nn.functional.binary_cross_entropy_with_logits(row[0], target))
            continue
        log_p = torch.log_softmax(row[1:], dim=0)
        index = {"supported": 0, "contradicted": 1, "unsupported": 2}.get(pair.label)
        expected.append(-(log_p[index] if index is not None else torch.logsumexp(log_p[1:], 0)))
    assert torch.allclose(loss_of(logits, PAIRS), torch.stack(expected).mean(), atol=1e-6)


def test_a_relevance_pair_with_a_soft_target_is_trained_towards_it() -> None:
    """Issue 42: a pair the teacher labelled carries its soft target, and the loss is the
    binary cross-entropy towards that target, not towards the gold 0 or 1."""
    torch = pytest.importorskip("torch")
    from assay.training.cross_train import loss_of

    soft = [replace(PAIRS[0], target=0.7), replace(PAIRS[1], target=0.2)]
    logits = torch.tensor([[0.4, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0]])
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    expected = (bce(logits[0, 0], torch.tensor(0.7)) + bce(logits[1, 0], torch.tensor(0.2))) / 2
    assert torch.allclose(loss_of(logits, soft), expected, atol=1e-6)
    assert not torch.allclose(loss_of(logits, PAIRS[:2]), expected, atol=1e-3)
