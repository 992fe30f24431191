"""Every benchmark script still imports and parses its arguments.

The benchmarks are not part of the test run (they take minutes to hours), so a change to
what they import would otherwise only show when someone next runs ``make bench-*``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize("script", sorted(p.name for p in BENCH.glob("*.py")))
def test_bench_script_imports_and_shows_its_help(script: str) -> None:
    done = subprocess.run(
        [sys.executable, script, "--help"], cwd=BENCH, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
