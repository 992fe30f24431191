"""Train ``assay-reader`` (:mod:`assay.models.reader`), resumably; export it as int8 ONNX.

The encoder starts from the cross-encoder's checkpoint (it already reads questions
against passages) with a fresh span head: two logits per token, the answer's first and
last token, and ``[CLS]`` for "no answer in this passage". Loss: the mean of the
cross-entropies of the start and the end position over the window's tokens.

The examples (:func:`reader_examples`), only from sets whose licence allows commercial
use and never from what the answer benchmarks measure on:

* SQuAD 2.0 dev, the ``train`` articles of
  :func:`assay.training.datasets.squad_splits` (CC BY-SA 4.0): every question against its
  own paragraph, the unanswerable ones with no answer (written to look answerable, they
  are the hard negatives), and for a third of the answerable ones another paragraph of
  the same article without the answer: the on-topic passage a knowledge base without
  the answer offers;
* HaluEval QA, its ``train`` rows (MIT): the right answer where the knowledge states it
  word for word, and for a fifth the knowledge of another row;
* PolicyQA dev (MIT; its test file is benchmarked): each question against its segment,
  and for a third another segment of the same policy without the answer.

``--continue-from`` trains a whole reader further instead, head and all: from its
``checkpoint.pt``, or, where that is gone, from a shipped reader's folder, whose int8
weights are read back as floats.

A passage longer than a window is cut as at run time (:func:`assay.models.reader.windows`);
an example trains on the window holding its answer (the first one if it has none).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.models.reader import MAX_TOKENS, WindowTokenizer, reader_tokenizer, windows
from assay.training.cross_train import batches, feeds
from assay.training.datasets import halueval_rows, squad_splits
from assay.training.resumable import read_rows as read_written
from assay.training.torch_loop import export_int8, fine_tune, log

__all__ = ["ReaderExample", "encode", "main", "reader_examples"]

SEED = 13


@dataclass(frozen=True, slots=True)
class ReaderExample:
    """A question, a passage and where the answer is in it (``None``: it is not)."""

    dataset: str
    question: str
    passage: str
    answer_start: int | None = None
    answer_text: str = ""


def _without(passages: Sequence[str], own: int, golds: Sequence[str], rng: random.Random) -> str:
    """Another passage of ``passages`` that holds none of ``golds`` ("" if none does)."""
    others = [
        p
        for i, p in enumerate(passages)
        if i != own and not any(g.lower() in p.lower() for g in golds)
    ]
    return rng.choice(others) if others else ""


def _squad_format(
    articles: list[dict[str, Any]], name: str, rng: random.Random
) -> list[ReaderExample]:
    out = []
    for article in articles:
        passages = [str(p["context"]) for p in article["paragraphs"]]
        for own, paragraph in enumerate(article["paragraphs"]):
            for qa in paragraph["qas"]:
                question = str(qa["question"])
                if not qa["answers"]:
                    out.append(ReaderExample(name, question, passages[own]))
                    continue
                first = qa["answers"][0]
                out.append(
                    ReaderExample(
                        name, question, passages[own], int(first["answer_start"]), first["text"]
                    )
                )
                if rng.random() < 1 / 3:
                    golds = [a["text"] for a in qa["answers"]]
                    other = _without(passages, own, golds, rng)
                    if other:
                        out.append(ReaderExample(f"{name}:absent", question, other))
    return out


def reader_examples(data: Path, more: Path, *, seed: int = SEED) -> list[ReaderExample]:
    """The training examples of the module docstring, in a fixed order."""
    rng = random.Random(seed)
    squad_file = data / "squad_v2_dev" / "dev-v2.0.reconstructed.json"
    train_titles = set(squad_splits(squad_file)["train"])
    squad = [a for a in json.loads(squad_file.read_text())["data"] if a["title"] in train_titles]
    out = _squad_format(squad, "squad", rng)
    policy = json.loads((more / "policyqa" / "dev.json").read_text())["data"]
    out += _squad_format(policy, "policyqa", rng)
    rows = halueval_rows(data / "halueval" / "qa_data.json", "train", seed=seed)
    for k, row in enumerate(rows):
        at = row["knowledge"].lower().find(row["right_answer"].lower())
        if at >= 0 and row["right_answer"].strip():
            end = at + len(row["right_answer"])
            out.append(
                ReaderExample(
                    "halueval", row["question"], row["knowledge"], at, row["knowledge"][at:end]
                )
            )
        if rng.random() < 0.2:
            other = rows[(k + rng.randrange(1, len(rows))) % len(rows)]["knowledge"]
            out.append(ReaderExample("halueval:other", row["question"], other))
    return out


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def written_examples(folder: Path, *, seed: int = SEED) -> list[ReaderExample]:
    """Examples from :mod:`assay.training.written_questions`' output in ``folder``: each
    kept question against its passage; for a third, another passage of the same set
    without the answer; and where a question names a year its passage holds, the same
    question about a year the passage never names, against the same passage, with no
    answer (the reader must keep to the question's qualifier, not the topic)."""
    rng = random.Random(seed)
    rows = [r for r in read_written(folder / "questions.jsonl") if r["pairs"]]
    by_set: dict[str, list[str]] = {}
    for row in rows:
        by_set.setdefault(row["dataset"], []).append(row["passage"])
    out: list[ReaderExample] = []
    for row in rows:
        name, passage = f"written:{row['dataset']}", row["passage"]
        for pair in row["pairs"]:
            question, answer = pair["question"], pair["answer"]
            out.append(ReaderExample(name, question, passage, pair["answer_start"], answer))
            if rng.random() < 1 / 3:
                other = _without(by_set[row["dataset"]], -1, [answer], rng)
                if other:
                    out.append(ReaderExample(f"{name}:absent", question, other))
            named = [y for y in _YEAR.findall(question) if y in passage]
            if named:
                held = set(_YEAR.findall(passage))
                unheld = [str(y) for y in range(1990, 2031) if str(y) not in held]
                swapped = question.replace(named[0], rng.choice(unheld))
                out.append(ReaderExample(f"{name}:other-year", swapped, passage))
    return out


def encode(tok: WindowTokenizer, example: ReaderExample) -> tuple[Any, int, int] | None:
    """The window that trains ``example`` with its start and end token (0, 0: no answer);
    ``None`` when no window holds the whole answer (the example is skipped)."""
    parts = windows(tok, example.question, example.passage)
    if example.answer_start is None:
        return parts[0], 0, 0
    first, last = example.answer_start, example.answer_start + len(example.answer_text)
    for window in parts:
        tokens = [
            i
            for i, (s, (a, b)) in enumerate(zip(window.sequence_ids, window.offsets, strict=True))
            if s == 1 and a < last and b > first
        ]
        inside = [s == 1 for s in window.sequence_ids]
        passage_end = max(i for i, x in enumerate(inside) if x) if any(inside) else -1
        ends_here = tokens and window.offsets[passage_end][1] >= last
        starts_here = tokens and window.offsets[tokens[0]][0] <= first + 1
        if tokens and ends_here and starts_here:
            return window, tokens[0], tokens[-1]
    return None


def build_model(init_from: str | None, continue_from: str | None = None) -> Any:
    """The MiniLM encoder (the cross-encoder's weights if ``init_from``) + a 2-logit token
    head; or, with ``continue_from``, a whole reader to train further: its
    ``checkpoint.pt``, or a shipped reader's folder (its int8 ONNX weights dequantised by
    :func:`assay.training.onnx_weights.float_weights`)."""
    import torch
    from transformers import AutoModel

    from assay.training.cross_train import base_weights
    from assay.training.onnx_weights import trained_state

    class SpanReader(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(base_weights()))
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, 2)

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            states = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            logits = self.head(states).masked_fill(attention_mask.unsqueeze(-1) == 0, -1e4)
            return logits[..., 0], logits[..., 1]

    model = SpanReader()
    if init_from:
        state = torch.load(init_from, weights_only=False)["model"]
        encoder = {k[len("encoder.") :]: v for k, v in state.items() if k.startswith("encoder.")}
        model.encoder.load_state_dict(encoder)
    if continue_from:
        model.load_state_dict(
            trained_state(Path(continue_from), model.state_dict(), "--continue-from")
        )
    return model


def train(args: argparse.Namespace) -> None:
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tok = reader_tokenizer(_tokenizer_file())
    examples = reader_examples(Path(args.data), Path(args.more))
    if args.max_examples:
        examples = random.Random(args.seed).sample(examples, min(args.max_examples, len(examples)))
    if args.written:
        examples += written_examples(Path(args.written), seed=args.seed)
    encoded = [e for e in (encode(tok, x) for x in examples) if e is not None]
    plan = batches([len(w.ids) for w, _, _ in encoded], args.batch, args.seed)
    model = build_model(args.init_from, args.continue_from)
    log(out, f"{len(encoded)} examples, {len(plan)} steps of {args.batch}")

    def loss(batch: Sequence[int]) -> Any:
        chosen = [encoded[i] for i in batch]
        start, end = model(**feeds([w for w, _, _ in chosen]))
        targets = torch.tensor([[s, e] for _, s, e in chosen])
        return (
            torch.nn.functional.cross_entropy(start, targets[:, 0])
            + torch.nn.functional.cross_entropy(end, targets[:, 1])
        ) / 2

    fine_tune(
        model, plan, loss, out, lr=args.lr, warmup_share=0.1, every=args.every,
        resume=args.resume, saved={"examples": len(encoded)},
    )  # fmt: skip


def _tokenizer_file() -> Path:
    from assay.models.embedder import _locate_files

    return Path(_locate_files()[1])


def export(args: argparse.Namespace) -> None:
    """The checkpoint as ``model.onnx`` (int8 weights) + ``tokenizer.json`` in ``--out``."""
    import torch

    model = build_model(None)
    state = torch.load(args.checkpoint, weights_only=False)
    model.load_state_dict(state["model"])
    model.eval()
    info = {
        "name": "assay-reader",
        "version": args.version,
        "max_tokens": MAX_TOKENS,
        "steps": state["step"],
        "examples": state.get("examples"),
    }
    example = feeds(windows(reader_tokenizer(_tokenizer_file()), "a question", "a passage")[:1])
    written = export_int8(
        model, example, Path(args.out), _tokenizer_file(),
        outputs=["start_logits", "end_logits"], per_token=True, info=info,
    )  # fmt: skip
    print(json.dumps(written, indent=2))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m assay.training.reader_train", description=__doc__
    )
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("train", help="fine-tune on the reader's examples (resumable)")
    fit.add_argument("--data", default="../shared/data")
    fit.add_argument("--more", default="../shared/data_more")
    fit.add_argument("--out", required=True, help="folder for checkpoint.pt and train.log")
    fit.add_argument("--init-from", help="the cross-encoder's checkpoint.pt (its encoder)")
    fit.add_argument(
        "--continue-from", help="a reader to train further: its checkpoint.pt or its folder"
    )
    fit.add_argument("--batch", type=int, default=16)
    fit.add_argument("--lr", type=float, default=5e-5)
    fit.add_argument("--seed", type=int, default=SEED)
    fit.add_argument("--threads", type=int, default=2)
    fit.add_argument("--every", type=int, default=100, help="checkpoint every N steps")
    fit.add_argument(
        "--max-examples", type=int, default=0, help="a sample of the gold examples (0: all)"
    )
    fit.add_argument(
        "--written", help="add the questions of assay.training.written_questions in this folder"
    )
    fit.add_argument("--resume", action="store_true")
    save = commands.add_parser("export", help="write int8 ONNX + tokenizer from a checkpoint")
    save.add_argument("--checkpoint", required=True)
    save.add_argument("--out", required=True)
    save.add_argument("--version", default="1.0.0", help="recorded in model.json and audit rows")
    args = parser.parse_args(argv)
    (train if args.command == "train" else export)(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
