"""Which answers rest on forum posts or messages alone beside a source in force."""

from __future__ import annotations

import pytest

from assay.judge.strength import passed_over, weak_alone


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


MANUAL = "Vantro AF55 user manual > Error codes\n- E2: the fryer has overheated."
BOARD = "E2 code\nE2 just means the drawer is open, give it a shove."


@pytest.mark.parametrize(
    ("used", "kept_out", "passed"),
    [
        ([(0.3, BOARD)], [(1.0, MANUAL)], [0]),  # the manual names E2 too
        ([(0.3, BOARD)], [(1.0, "Warranty\nTwo years from purchase.")], []),  # names none of it
        ([(0.3, BOARD)], [(0.5, MANUAL)], []),  # not clearly more reliable
        ([(0.7, BOARD)], [(1.0, MANUAL)], []),  # an internal wiki is in force: it stands
        ([(0.3, BOARD), (1.0, MANUAL)], [(1.0, MANUAL)], []),  # it cites the manual too
        ([], [(1.0, MANUAL)], []),  # no citation
    ],
)  # fmt: skip
def test_a_passage_kept_out_that_names_the_subject_as_fully_is_passed_over(
    used: list[tuple[float | None, str]],
    kept_out: list[tuple[float | None, str]],
    passed: list[int],
) -> None:
    """An air fryer's owner documents of my own: "What does E2 mean?" was published from
    the owners' board alone, while the manual's error code list, which names E2, read
    below the similarity floor."""
    assert passed_over("What does E2 mean?", used, kept_out) == passed
