"""A user's small knowledge base (issue 41, found in the closing check of issue 43's
second pass): a clinic's visitor policy and a patient forum post that contradicts it.
"Can my 8-year-old visit the ICU?" was drafted from the post, which echoes the
question, with the policy named as the weaker disagreement."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import ask, knowledge_base

POLICY = """---
title: Aster Valley Clinic Visitor Policy (2026)
published: 2026-02-01
---
# Aster Valley Clinic Visitor Policy (2026)

## Visiting hours

General wards are open to visitors from 10:00 to 20:00 every day, weekends included.
The intensive care unit (ICU) admits visitors from 14:00 to 18:00 only.

## Children

Children under 12 may visit general wards with an adult.
Children under 12 are not admitted to the ICU.
"""
POST = """---
title: "Patient forum: visiting at Aster Valley"
published: 2026-06-10
---
# Visiting at Aster Valley

Posted by maria_k: We went in with five of us to see my dad and nobody said anything.
I also brought my 8-year-old into the ICU, the nurses were fine with it.
"""


@pytest.fixture(scope="module")
def clinic_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("clinic"), {
        "policy.md": (POLICY, ["aster-visitors", "--kind", "official", "--owner", "Aster Valley"]),
        "forum.md": (POST, ["patient-forum", "--kind", "customer", "--owner", "forum users"]),
    })  # fmt: skip


def test_r_the_official_policy_drafts_the_yes_no_answer_and_the_post_is_named(
    clinic_db: Path,
) -> None:
    out = ask(clinic_db, "Can my 8-year-old visit the ICU?", "--policy", "informational")
    cited = {s["source_id"] for s in out["sources"] if s["cited"]}
    assert cited == {"aster-visitors"}, out["answer"]
    assert 'patient-forum (customer) states "I also brought my 8-year-old' in out["answer"]
    conflicts = out["assessment"]["source_conflicts"]
    assert conflicts and "8-year-old" in conflicts[0]["claim"]


def test_how_with_an_adjective_asks_for_a_span() -> None:
    """ "How accurate ...", "How late ...": a degree, which a span states; the reader may
    decline it. "How do ...", "Why ...", "Can I ..." want no span."""
    from assay.answer.expected import wants_explanation

    assert not wants_explanation("How late can I visit the ICU?")
    assert not wants_explanation("How accurate is the humidity sensor?")
    assert wants_explanation("How do I reset the thermostat?")
    assert wants_explanation("Can my 8-year-old visit the ICU?")


GUIDE = """---
title: "LumeHub 6 router: quick guide"
published: 2026-01-10
---
# LumeHub 6 router: quick guide

## Lights

- Solid white: connected and working.
- Flashing white: starting up or updating; do not switch off.
- Solid amber: no internet connection. Check the cable to the wall socket, then restart the hub.
- Flashing red: the hub is overheating. Move it somewhere with air around it.
"""
THREAD = """---
title: Router light amber
published: 2026-06-01
---
Mine went amber all evening. Holding the button on the back for a few seconds fixed it for
me, no idea why.
"""


@pytest.fixture(scope="module")
def router_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return knowledge_base(tmp_path_factory.mktemp("router"), {
        "guide.md": (GUIDE, ["hub-guide", "--kind", "official"]),
        "thread.md": (THREAD, ["forum", "--kind", "unverified"]),
    })  # fmt: skip


def test_r_a_thread_titled_like_the_question_does_not_answer_over_the_guide(
    router_db: Path,
) -> None:
    """Found with a user's broadband knowledge base: "What does a solid amber light on
    the router mean?" quoted "Mine went amber all evening" from a forum thread titled
    "Router light amber" (its evidence confidence the higher, by its similarity to the
    question), and the judge then graded the guide's own sentence contradicted by itself.
    The guide's sentence answers, and is published."""
    out = ask(router_db, "What does a solid amber light on the router mean?", "--policy",
              "informational")  # fmt: skip
    assert out["status"] == "answered", out["answer"]
    assert "no internet connection" in out["answer"].lower()
    cited = {s["source_id"] for s in out["sources"] if s["cited"]}
    assert cited == {"hub-guide"}, out["answer"]
