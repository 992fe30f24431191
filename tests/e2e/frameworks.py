"""What the framework integration tests share: three passages (an official statement, a
forum post from an unverified source, an off-topic one), the question, and an engine
with their sources registered."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from assay import Assay

OFFICIAL = "Charge the HX-40 only at an ambient temperature between 0 °C and 45 °C."
FORUM = "I always charge my HX-40 in the car at 60 °C, never had a problem."
OTHER = "Burmese pythons are among the largest snakes in the world."
QUESTION = "What ambient temperature range is safe for charging the HX-40?"
#: a forum post that states, word for word, an answer the official statement contradicts
HOT_CAR = "Charging the HX-40 in a hot car at 60 °C is fine."


def framework_engine(tmp_path: Path) -> Iterator[Assay]:
    """An engine whose registry knows the official and the forum source (a fixture's
    body: ``yield from framework_engine(tmp_path)``)."""
    with Assay(tmp_path / "frameworks.db") as engine:
        engine.sources.add("halden-sds", "official")
        engine.sources.add("forum", "unverified")
        yield engine
