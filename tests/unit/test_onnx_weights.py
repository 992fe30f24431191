"""Reading an int8 ONNX model's weights back as floats, under their PyTorch names, so that
a shipped model can be trained further (``reader_train --continue-from``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

from assay.errors import InvalidInputError
from assay.models.pair_classifier import SHIPPED_CROSS_ENCODER
from assay.models.reader import SHIPPED_READER
from assay.training.onnx_weights import float_weights, trained_state

#: the weighted modules of one MiniLM (BERT) layer
MINILM_LAYER_PARTS = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "attention.output.LayerNorm",
    "intermediate.dense",
    "output.dense",
    "output.LayerNorm",
)


def _exported_linear(folder: Path, weight: np.ndarray, bias: np.ndarray) -> Path:
    """A float model named as torch.onnx.export names ``head = Linear(...)``, quantised to
    int8 as the shipped models are."""
    fp32, int8 = folder / "fp32.onnx", folder / "model.onnx"
    graph = helper.make_graph(
        [
            helper.make_node(
                "MatMul", ["x", "onnx::MatMul_7"], ["/head/MatMul_output_0"], name="/head/MatMul"
            ),
            helper.make_node(
                "Add", ["head.bias", "/head/MatMul_output_0"], ["y"], name="/head/Add"
            ),
        ],
        "head",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", weight.shape[1]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", weight.shape[0]])],
        initializer=[
            numpy_helper.from_array(weight.T.copy(), "onnx::MatMul_7"),  # torch stores [out, in]
            numpy_helper.from_array(bias, "head.bias"),
        ],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(fp32))
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    return int8


def test_int8_weights_come_back_as_floats_under_their_layer_names(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    weight = rng.normal(size=(2, 16)).astype(np.float32)
    bias = np.array([0.5, -0.25], dtype=np.float32)
    weights = float_weights(_exported_linear(tmp_path, weight, bias))
    assert sorted(weights) == ["head.bias", "head.weight"]
    assert weights["head.weight"].shape == (2, 16)
    step = np.abs(weight).max() / 127  # one int8 step of a symmetric per-tensor scale
    assert np.abs(weights["head.weight"] - weight).max() <= step
    assert np.array_equal(weights["head.bias"], bias)


def test_a_matmul_the_exporter_did_not_name_is_refused(tmp_path: Path) -> None:
    file = _exported_linear(tmp_path, np.ones((2, 4), np.float32), np.zeros(2, np.float32))
    model = onnx.load(str(file))
    for node in model.graph.node:
        if node.op_type == "MatMulInteger":
            node.output[0] = "unnamed"
    onnx.save(model, str(file))
    with pytest.raises(InvalidInputError, match="cannot name"):
        float_weights(file)


def test_the_shipped_reader_comes_back_whole() -> None:
    """Every weight of the MiniLM encoder and the span head, in ``Linear``'s shape: what
    ``reader_train --continue-from`` loads into the PyTorch reader (all but the pooler,
    which the reader never uses and the exporter drops)."""
    weights = float_weights(SHIPPED_READER / "model.onnx")
    per_layer = {
        f"encoder.encoder.layer.{i}.{part}.{kind}"
        for i in range(6)
        for part in MINILM_LAYER_PARTS
        for kind in ("weight", "bias")
    }
    assert per_layer <= set(weights)
    assert len(weights) == len(per_layer) + 7  # 3 embeddings, their LayerNorm, the head
    assert weights["encoder.encoder.layer.0.intermediate.dense.weight"].shape == (1536, 384)
    assert weights["encoder.encoder.layer.0.output.dense.weight"].shape == (384, 1536)
    assert weights["head.weight"].shape == (2, 384)
    assert all(np.isfinite(w).all() for w in weights.values())


def test_the_shipped_cross_encoder_comes_back_with_its_head() -> None:
    """The cross-encoder's head is a ``Gemm``, which the quantiser stores transposed under
    the weight's own name (``head.weight_Transposed``): it comes back as ``head.weight``
    in ``Linear``'s shape, so ``cross_train train --init-from`` can start from the shipped
    model."""
    weights = float_weights(SHIPPED_CROSS_ENCODER / "model.onnx")
    assert weights["head.weight"].shape == (4, 384)
    assert not [name for name in weights if name.endswith("_Transposed")]
    assert weights["encoder.encoder.layer.5.output.dense.weight"].shape == (384, 1536)


def test_a_shipped_folder_or_a_checkpoint_gives_the_state_to_train_from(tmp_path: Path) -> None:
    """``trained_state``: every name of the model being trained, the shipped weights where
    the export kept them and the model's own elsewhere; a folder without a model is
    refused with the option named."""
    torch = pytest.importorskip("torch")
    current = {"head.weight": torch.zeros(4, 384), "encoder.pooler.dense.bias": torch.ones(384)}
    state = trained_state(SHIPPED_CROSS_ENCODER, current, "--init-from")
    assert set(state) == set(current)
    assert state["head.weight"].abs().sum() > 0  # the shipped head, not the zeros
    assert torch.equal(state["encoder.pooler.dense.bias"], torch.ones(384))
    torch.save({"model": {"head.weight": torch.full((4, 384), 2.0)}}, tmp_path / "checkpoint.pt")
    saved = trained_state(tmp_path / "checkpoint.pt", current, "--init-from")
    assert float(saved["head.weight"][0, 0]) == 2.0
    with pytest.raises(InvalidInputError, match="--init-from"):
        trained_state(tmp_path, current, "--init-from")
