"""A museum's visitor pages of my own, asked through the CLI (issue 41): "Is the museum
open on Mondays?" was answered with "The museum is open Tuesday to Sunday, ...", which
speaks of weekdays but not of Mondays, beside "It is closed on Mondays, except bank
holiday Mondays"; "What time is last entry?" quoted the opening hours, the one sentence
with a clock time, for "Last entry is 45 minutes before closing.".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

VISIT = (
    "---\ntitle: Opening times and admission\npublished: 2026-01-19\n---\n"
    "# Opening times and admission\n\n## Opening times\n\n"
    "The museum is open Tuesday to Sunday, 10:00 to 17:00, with late opening until 21:00 on "
    "the first Friday of every month. It is closed on Mondays, except bank holiday Mondays, "
    "and from 24 to 26 December.\n\nLast entry is 45 minutes before closing.\n"
)


@pytest.fixture(scope="module")
def museum(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(
        tmp_path_factory.mktemp("museum"), {"visit.md": (VISIT, ["visit", "--kind", "official"])}
    )


def test_a_day_the_question_names_is_answered_by_the_sentence_naming_it(museum: Path) -> None:
    out = ask(museum, "Is the museum open on Mondays?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert "closed on Mondays, except bank holiday Mondays" in out["answer"], out["answer"]


def test_a_time_told_by_what_it_comes_before_answers_what_time(museum: Path) -> None:
    out = ask(museum, "What time is last entry?", "--policy", "informational")
    assert out["status"] == "answered", out["answer"]
    assert out["answer"].startswith("45 minutes before closing"), out["answer"]
