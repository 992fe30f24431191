"""Every shipped ONNX model opens the same way: on the CPU, quiet, its worker threads
not left spinning for the next run (on two cores they took the cores from the next
model's run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.models.onnx_sessions import open_session

SHIPPED = Path(__file__).resolve().parents[2] / "src/assay/models/shipped"


@pytest.mark.parametrize(
    ("threads", "arena"), [(None, True), (1, False)], ids=["defaults", "one-thread-no-arena"]
)
def test_a_session_opens_without_spinning_threads(threads: int | None, arena: bool) -> None:
    session = open_session(SHIPPED / "assay-reader/model.onnx", threads=threads, memory_arena=arena)
    options = session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.log_severity_level == 3
    assert options.enable_cpu_mem_arena is arena and options.enable_mem_pattern is arena
    assert options.intra_op_num_threads == (threads or 0)
    assert session.get_providers() == ["CPUExecutionProvider"]
