"""The float weights of an int8 ONNX model that :func:`assay.training.torch_loop.export_int8`
wrote, under the PyTorch names of the module it was exported from.

A shipped model keeps only its ONNX file (the fp32 checkpoint stays on the machine that
trained it), so training it further starts from these: each int8 tensor dequantised,
``(q - zero_point) * scale``, and each matrix of a ``MatMulInteger`` named after the
``Linear`` layer whose output it computes (the exporter names that node after the layer,
``/encoder/encoder/layer.0/attention/self/query/MatMul``) and transposed back to
``Linear``'s ``[out, in]``. Rounding to int8 moved each weight by at most half its
tensor's scale; training recovers that.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from assay.errors import InvalidInputError

__all__ = ["float_weights", "trained_state"]

QUANTIZED = "_quantized"
#: the suffix of a weight the quantiser stored transposed for a ``Gemm`` (a head's Linear)
TRANSPOSED = "_Transposed"
#: the output of a Linear layer's product, as the exporter names it: /<module path>/MatMul...
EXPORTED_MATMUL = re.compile(r"^/(.+?)/MatMul")


def float_weights(file: Path) -> dict[str, Any]:
    """``{parameter name: numpy array}`` for every weight of the ONNX model in ``file``."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(file))
    tensors = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}

    def dequantized(stem: str) -> Any:
        q = tensors[stem + QUANTIZED].astype(np.float32)
        return (q - tensors[stem + "_zero_point"].astype(np.float32)) * tensors[stem + "_scale"]

    weights: dict[str, Any] = {
        name: array for name, array in tensors.items() if array.dtype == np.float32
        and not name.endswith("_scale") and not name.startswith("onnx::")
    }  # fmt: skip
    for name in tensors:
        if name.endswith(QUANTIZED) and not name.startswith("onnx::"):
            weights[name[: -len(QUANTIZED)]] = dequantized(name[: -len(QUANTIZED)])
    for node in model.graph.node:
        if node.op_type != "MatMulInteger":
            continue
        matrix = node.input[1]
        stem = matrix[: -len(QUANTIZED)]
        if matrix.endswith(QUANTIZED) and stem.endswith(TRANSPOSED):
            # a Gemm's weight, stored under its own name
            weights.pop(stem)
            weights[stem[: -len(TRANSPOSED)]] = dequantized(stem).T.copy()
            continue
        named = EXPORTED_MATMUL.match(node.output[0])
        if not matrix.endswith(QUANTIZED) or named is None:
            raise InvalidInputError(
                "ONNX model", str(file), "give a model written by export_int8",
                problem=f"has a MatMulInteger node {node.name!r} it cannot name",
            )  # fmt: skip
        layer = named.group(1).replace("/", ".")
        weights[f"{layer}.weight"] = dequantized(stem).T.copy()
    return weights


def trained_state(source: Path, current: dict[str, Any], option: str) -> dict[str, Any]:
    """The state dict to train further from ``source``: a ``checkpoint.pt`` of the
    training loop, or a shipped model's folder (or its ``model.onnx``), dequantised onto
    ``current``'s names. Weights the exporter dropped (an unused pooler) keep ``current``'s.
    ``option`` names the command-line option in the error."""
    import torch

    if source.suffix == ".pt":
        return dict(torch.load(source, weights_only=False, map_location="cpu")["model"])
    onnx_file = source / "model.onnx" if source.is_dir() else source
    if not onnx_file.is_file():
        raise InvalidInputError(
            option, str(source), "give a checkpoint.pt or a shipped model's folder"
        )
    weights = float_weights(onnx_file)
    return {k: torch.tensor(weights[k]) if k in weights else v for k, v in current.items()}
