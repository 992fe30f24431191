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


def test_the_pace_counts_from_the_end_of_the_first_file() -> None:
    """Issue 43 (second pass): the first file also loads the embedder; an estimate from
    it said "about 2 min 27 s left" for a run of two seconds."""
    from assay.cli.ingest import Pace

    pace = Pace(4_000)
    assert pace.after(1_000, now=100.0) is None  # 100 s of model loading: no pace yet
    assert pace.after(1_000, now=110.0) == "about 0 min 20 s left"  # 1 KB in 10 s, 2 KB to go
    assert pace.after(1_000, now=120.0) == "about 0 min 10 s left"
