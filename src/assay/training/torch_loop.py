"""What the cross-encoder's and the reader's fine-tuning share: one resumable pass over a
batch plan, and the export of the result as int8 ONNX with its ``model.json``.

Needs the ``[train]`` extra (torch, transformers); onnxruntime quantises.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["export_int8", "fine_tune", "log"]

INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def log(out: Path, message: str) -> None:
    """Print ``message`` with the time and append it to ``out/train.log``."""
    import sys

    line = f"{time.strftime('%H:%M:%S')} {message}"
    print(line, file=sys.stderr, flush=True)
    with (out / "train.log").open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def fine_tune(
    model: Any,
    plan: Sequence[Sequence[int]],
    loss_of: Callable[[Sequence[int]], Any],
    out: Path,
    *,
    lr: float,
    warmup_share: float,
    every: int,
    resume: bool,
    saved: Mapping[str, Any],
) -> None:
    """One pass over ``plan`` (batches of example indices; ``loss_of`` gives a batch's
    loss): AdamW (weight decay 0.01), linear warm-up over ``warmup_share`` of the steps
    then linear decay, gradients clipped at 1.0. ``out/checkpoint.pt`` is written every
    ``every`` steps and at the end (with ``saved`` beside the state); ``resume`` goes on
    from it with the same plan."""
    import torch

    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    total = len(plan)
    warmup = max(1, int(total * warmup_share))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / (total - warmup)))
    )
    step = 0
    checkpoint = out / "checkpoint.pt"
    if resume and checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        step = int(state["step"])
        log(out, f"resumed at step {step} of {total}")
    model.train()
    started, seen, running = time.time(), 0, 0.0
    while step < total:
        loss = loss_of(plan[step])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        step += 1
        seen += len(plan[step - 1])
        value = loss.item()
        running = 0.98 * running + 0.02 * value if step > 1 else value
        if step % 25 == 0:
            rate = seen / (time.time() - started)
            log(out, f"step {step}/{total} loss {running:.4f} {rate:.1f} examples/s")
        if step % every == 0 or step == total:
            tmp = out / "checkpoint.pt.tmp"
            torch.save(
                {"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                 "schedule": schedule.state_dict(), "step": step, **saved},
                tmp,
            )  # fmt: skip
            tmp.replace(checkpoint)
            log(out, f"checkpoint at step {step}")


def export_int8(
    model: Any,
    example: Mapping[str, Any],
    out: Path,
    tokenizer_file: Path,
    *,
    outputs: Sequence[str],
    per_token: bool,
    info: Mapping[str, Any],
) -> dict[str, Any]:
    """``model`` (in eval mode) as ``out/model.onnx`` with int8 weights, the tokenizer
    beside it and ``model.json``: ``info`` plus the sha256 of both files. ``per_token``:
    the outputs have a token axis (a span head), not one row per pair."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.mkdir(parents=True, exist_ok=True)
    fp32 = out / "model-fp32.onnx"
    axes = {0: "batch", 1: "tokens"}
    torch.onnx.export(
        model,
        tuple(example[name] for name in INPUTS),
        str(fp32),
        input_names=list(INPUTS),
        output_names=list(outputs),
        dynamic_axes={n: axes for n in INPUTS}
        | {n: axes if per_token else {0: "batch"} for n in outputs},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(fp32), str(out / "model.onnx"), weight_type=QuantType.QInt8)
    fp32.unlink()
    shutil.copyfile(tokenizer_file, out / "tokenizer.json")
    written = {
        **info,
        "sha256": {
            name: hashlib.sha256((out / name).read_bytes()).hexdigest()
            for name in ("model.onnx", "tokenizer.json")
        },
    }
    (out / "model.json").write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    return written
