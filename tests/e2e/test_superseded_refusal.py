"""A refusal caused by supersession names it (issue 41, asking a knowledge base of my
own): "How much did support cost in 2024?" of a 2024 user guide that the 2026 guide
supersedes was refused as "too weak", and the refusal asked for documents that cover the
question, which the knowledge base holds: only a superseded source states it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli
from tests.e2e.conftest import ask, knowledge_base

GUIDE_2024 = """---
title: Tallyfold user guide (2024)
published: 2024-02-01
---
# Tallyfold user guide

## Support

Paid support costs €9 per user per month.
"""

GUIDE_2026 = """---
title: Tallyfold user guide (2026)
published: 2026-11-01
---
# Tallyfold user guide

## Installing

Tallyfold needs Python 3.10 or newer.

## Support

Paid support costs €12 per user per month and answers within one business day.
"""


def test_a_refusal_names_the_superseded_source_that_holds_the_question(tmp_path: Path) -> None:
    db = knowledge_base(tmp_path, {
        "guide-2024.md": (GUIDE_2024, ["guide-2024", "--kind", "official"]),
        "guide-2026.md": (GUIDE_2026, ["guide-2026", "--kind", "official",
                                       "--supersedes", "guide-2024"]),
    })  # fmt: skip
    out = ask(db, "How much did support cost in 2024?", "--policy", "informational")
    assert "€9" not in out["answer"], out["answer"]  # a superseded source never answers
    assert out["status"] != "answered", out["answer"]
    assert "of guide-2024 were kept out: guide-2026 supersedes it" in out["answer"]
    assert "assay sources update guide-2026 --no-supersedes" in out["answer"]


TERMS_2025 = """\
# Spokeway bike share: terms of use (2025)

## Who can ride

You must be at least 18 years old to hire a Spokeway bike.

## Paying for rides

If a ride lasts longer than 2 hours, an overtime charge of £3 is added for every further 30 minutes.

## Returning a bike

A bike left outside a dock is charged a £10 recovery fee.

## Damage and theft

If a bike is stolen while you are riding it, report the theft within 48 hours; your
liability is then capped at £250.
"""

TERMS_2026 = """\
# Spokeway bike share: terms of use (2026)

These terms apply from 1 March 2026 and replace the 2025 terms.

## Who can ride

You must be at least 16 years old to hire a Spokeway bike. Riders aged 16 or 17 need a
parent or guardian to accept these terms on their behalf. E-bikes may only be hired by
riders aged 18 or over.

## Paying for rides

Each ride is charged by the minute from unlock to lock. The unlock fee is waived for
members on a monthly pass. Prices are listed in the price table.

If a ride lasts longer than 3 hours, an overtime charge of £5 is added for every further 30 minutes.

## Returning a bike

End every ride at a Spokeway dock or inside a marked parking zone shown in the app. A
bike left outside a zone is charged a £20 recovery fee.

## Damage and theft

Report damage in the app within 24 hours of the end of the ride. If a bike is stolen
while you are riding it, report the theft to the police and to us within 12 hours; your
liability is then capped at £150. If you do not report it in time, you may be charged
the full replacement cost of £950 for a standard bike or £2,400 for an e-bike.

## Cancelling a pass

You can cancel a monthly pass at any time in the app. It stays active until the end of
the month already paid for. Annual passes can be cancelled within 14 days of purchase
for a full refund; after that no refund is given.
"""

PRICES = """\
# Spokeway prices (2026)

| Ride type | Unlock fee | Per minute | Monthly pass |
|---|---|---|---|
| Standard bike | £1.00 | £0.08 | £15 |
| E-bike | £1.00 | £0.20 | £30 |
| Cargo bike | £2.00 | £0.25 | not available |

Students with a valid student card get 30% off the monthly pass for standard bikes.
"""

HELP_CENTRE = """\
# Spokeway help centre

## Can I take a bike on the train?

No. Spokeway bikes must stay inside the service area, which ends at the city boundary.
Taking a bike outside the service area ends your hire and a £20 recovery fee applies.

## How many bikes can I hire at once?

One account can hire up to two bikes at the same time, for example for you and a friend.
Both rides are charged to your account.

## What if the dock is full?

Tap "Dock full" in the app and you get 15 extra minutes free to reach the next dock.

## How fast do the e-bikes go?

The motor assists up to 25 km/h. Above that speed you pedal on your own.
"""

POSTS = [  # id, title, date, text
    ("p1", "Overtime?", "2026-05-02",
     "Heads up, rides over 2 hours get hit with overtime now, cost me a fortune on Sunday."),
    ("p2", "Kids riding", "2026-06-10",
     "My 15 year old rides Spokeway all the time on my account, nobody ever checked."),
    ("p3", "Stolen bike", "2026-07-21",
     "If your bike gets nicked you have 2 days to report it, that's what support told me."),
]  # fmt: skip
FORUM = "".join(
    json.dumps({"id": i, "title": t, "published": d, "text": x}) + "\n" for i, t, d, x in POSTS
)


def test_a_refusal_never_asks_to_restore_a_source_whose_successor_holds_the_question(
    tmp_path: Path,
) -> None:
    """A knowledge base of my own: "What happens if my ride goes over 3 hours?" was refused
    with the advice to un-supersede the 2025 terms, whose "over 2 hours" the 2026 terms
    replace. The 2026 terms hold the question too (their passage reads as weak beside its
    other sentences), and restoring the old terms would only bring back the old rule.
    Since assay-relevance 1.2.0 the draft quotes the 2026 passage."""
    db = tmp_path / "assay.db"
    documents = [  # file, text, source, kind, publication date
        ("terms-2025.md", TERMS_2025, "terms-2025", "official", "2025-01-15"),
        ("terms-2026.md", TERMS_2026, "terms-2026", "official", "2026-03-01"),
        ("prices.md", PRICES, "prices", "official", "2026-03-01"),
        ("faq.md", HELP_CENTRE, "faq", "verified_kb", "2026-04-01"),
        ("forum.jsonl", FORUM, "forum", "unverified", None),  # each post states its date
    ]
    for name, text, source, kind, published in documents:
        (tmp_path / name).write_text(text)
        new = ["--supersedes", "terms-2025"] if source == "terms-2026" else []
        dated = ["--published", published] if published else []
        for args in (["sources", "add", source, "--kind", kind, *new],
                     ["ingest", str(tmp_path / name), "--source", source, *dated]):  # fmt: skip
            assert run_cli(*args, db=db).exit_code == 0
    out = json.loads(run_cli(
        "ask", "What happens if my ride goes over 3 hours?", "--as-of", "2026-12-01",
        "--policy", "informational", "--json", db=db,
    ).stdout)  # fmt: skip
    answer = out["answer"]
    assert "£3" not in answer, answer
    assert "--no-supersedes" not in answer, answer
    # the knowledge base has the question's words: a draft quotes the 2026 terms, or the
    # refusal says where they are, not "add documents"
    pointer = 'read the passage of terms-2026 under "Spokeway bike share: terms of use (2026)'
    cited = [s["source_id"] for s in out["sources"] if s["cited"]]
    assert cited == ["terms-2026"] or pointer in answer, answer


def test_a_refusal_points_only_to_a_passage_of_a_source_in_force(tmp_path: Path) -> None:
    """A knowledge base of my own: "How many KIT days can I do?" was refused pointing to the
    staff chat's "You can do KIT days but I think max 5", the one passage with every word
    of the question (the policy says "keeping-in-touch days" and allows 10): a refusal
    sends no one to read an unverified post as if it held the answer."""
    policy = (
        "# Family leave policy\n\n## Keeping-in-touch days\n\nDuring maternity or adoption "
        "leave you may work up to 10 keeping-in-touch days without ending your leave.\n"
    )
    chat = json.dumps({"id": "s2", "title": "#parents channel", "published": "2026-03-02",
                       "text": "You can do KIT days but I think max 5."})  # fmt: skip
    db = knowledge_base(tmp_path, {
        "policy.md": (policy, ["policy", "--kind", "official"]),
        "chat.jsonl": (chat + "\n", ["chat", "--kind", "unverified"]),
    })  # fmt: skip
    out = ask(db, "How many KIT days can I do?", "--policy", "informational")
    assert out["status"] != "answered", out["answer"]
    assert "read the passage of chat" not in out["answer"], out["answer"]
