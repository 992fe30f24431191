"""What to do with an answer (J6): the four recommended actions, ordered from the most
to the least trusting, and the thresholds that turn a confidence score into one.

Policies carry the thresholds (``[judge]`` and ``[judge.correctness]``), the judge's
assessment names the action, and monitoring tightens the thresholds while an alert is
open; all of them share these few types, which depend on nothing but the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assay.errors import InvalidInputError
from assay.types import check_unit_interval

__all__ = ["ACTIONS", "Action", "ActionThresholds", "stricter_action"]

Action = Literal["publish", "append_caveat", "human_review", "suppress"]
ACTIONS: tuple[Action, ...] = ("publish", "append_caveat", "human_review", "suppress")


@dataclass(frozen=True, slots=True)
class ActionThresholds:
    """Lowest scores for publish, append_caveat and human_review; below: suppress (J6)."""

    publish: float = 0.8
    caveat: float = 0.5
    human_review: float = 0.3

    def __post_init__(self) -> None:
        for name in ("publish", "caveat", "human_review"):
            check_unit_interval(f"judge.{name}", getattr(self, name))
        if not self.publish >= self.caveat > self.human_review:
            raise InvalidInputError(
                "judge thresholds",
                self.as_dict(),
                "keep publish >= caveat > human_review (equal publish and caveat: no caveat band)",
                problem="are not descending",
            )

    def action(self, score: float) -> Action:
        """The recommended action for a confidence score."""
        if score >= self.publish:
            return "publish"
        if score >= self.caveat:
            return "append_caveat"
        if score >= self.human_review:
            return "human_review"
        return "suppress"

    def as_dict(self) -> dict[str, float]:
        """The thresholds in their TOML shape."""
        return {"publish": self.publish, "caveat": self.caveat, "human_review": self.human_review}


def stricter_action(*actions: Action) -> Action:
    """The most cautious of ``actions`` (suppress > human_review > append_caveat > publish)."""
    return max(actions, key=ACTIONS.index)
