"""Which answers rest on forum posts or messages alone beside a source in force."""

from __future__ import annotations

import pytest

from assay.judge.strength import weak_alone


@pytest.mark.parametrize(
    ("used", "others", "alone"),
    [
        ([0.3], [1.0], True),  # an unverified post, the official text found too
        ([0.3, 0.4], [1.0, 0.9], True),  # a post and a customer's message
        ([0.3], [0.5], False),  # nothing clearly more reliable was found
        ([0.3], [], False),  # nothing else was found: the post is all there is
        ([0.7], [1.0], False),  # an internal wiki is in force: its answer stands
        ([0.3, 1.0], [1.0], False),  # the answer cites the official text too
        ([None], [1.0], False),  # a source of unknown reliability is not judged
        ([], [1.0], False),  # no citation
    ],
)  # fmt: skip
def test_an_answer_rests_on_weak_sources_alone(
    used: list[float | None], others: list[float | None], alone: bool
) -> None:
    assert weak_alone(used, others) is alone
