"""How every shipped ONNX model is opened: one place for the runtime's options.

A question runs four networks in turn (MiniLM, the cross-encoder, the reader, MiniLM
again). By default ONNX Runtime's worker threads spin for a while after each run,
waiting for the next one of *their* session; on two cores the spinning threads of one
session then take the cores from the next session's run. With spinning off, a cold
``ask`` on the SQuAD knowledge base took 151-172 ms at p50 instead of 183-203 ms (four
runs of 60 new questions, each variant on a fresh copy of the knowledge base), while
the embedder alone on 400 paragraphs kept its pace (49-53 against 48-54 texts/s).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["open_session"]


def open_session(model: Path, *, threads: int | None = None, memory_arena: bool = True) -> Any:
    """An ``onnxruntime.InferenceSession`` of ``model`` on the CPU, quiet and without
    spinning threads; ``threads`` caps its intra-op threads (``None``: one per core),
    ``memory_arena=False`` has each run allocate and give back its own memory (no pooled
    arena, no memory pattern): the embedder's batches vary in shape at ingest."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads is not None:
        options.intra_op_num_threads = threads
    options.enable_cpu_mem_arena = memory_arena
    options.enable_mem_pattern = memory_arena
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
