"""The time `assay ingest` says is left goes by bytes at the pace so far: counting files
showed "1/400 01:33:52" for a run that took two minutes (the first file paid for the
model's loading, and files differ in size by orders of magnitude)."""

from __future__ import annotations

from assay.cli.ingest import time_left


def test_the_time_left_follows_the_bytes_still_to_read() -> None:
    assert time_left(10.0, 1_000, 4_000) == "about 0 min 30 s left"
    assert time_left(30.0, 1_000_000, 400_000_000) == "about 3 h 19 min left"


def test_no_estimate_before_there_is_a_pace_or_after_the_last_byte() -> None:
    assert time_left(0.5, 1_000, 4_000) is None
    assert time_left(10.0, 0, 4_000) is None
    assert time_left(10.0, 4_000, 4_000) is None
