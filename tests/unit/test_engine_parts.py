"""Assay(...) takes each model, the judge and the database by name or as an instance of
its protocol: a user swaps one part without touching the rest."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from assay import Assay, Candidate, IngestOptions, InvalidInputError
from assay.judge.model_judge import ModelJudge
from assay.models.embedder import HashingEmbedder
from assay.store.sqlite import SQLiteDatabase
from tests.conftest import AS_OF


def test_parts_given_as_instances_are_the_ones_used(tmp_path: Path) -> None:
    doc = tmp_path / "sds.md"
    doc.write_text("# Charging\n\nCharge the pack between 0 and 45 degrees Celsius.\n")
    embedder, judge = HashingEmbedder(dim=64), ModelJudge("assay-support-lexical")
    database = SQLiteDatabase(tmp_path / "mine.db")
    engine = Assay(
        tmp_path / "unused.db", database=database, embedder=embedder, relevance="none",
        support="none", judge=judge,
    )  # fmt: skip
    with engine:
        assert engine.db is database and engine.embedder is embedder and engine.judge is judge
        assert engine.relevance is None and engine.support is None
        engine.sources.add("sds", "official")
        engine.ingest([doc], options=IngestOptions(source_id="sds", published=AS_OF))
        response = engine.ask("At what degrees Celsius should I charge the pack?", as_of=AS_OF)
        assert response.judgment is not None and response.judgment.judge == judge.name
        assert engine.store.stats().embedder == embedder.name
    assert not (tmp_path / "unused.db").exists()


@pytest.mark.parametrize(("part", "value"), [("answerer", "gpt"), ("judge", "oracle")])
def test_a_part_named_wrongly_is_refused_with_the_setting_it_names(
    tmp_path: Path, part: str, value: str
) -> None:
    with pytest.raises(InvalidInputError, match=rf"{part}='{value}'.*as the setting {part}"):
        Assay(tmp_path / "a.db", **{part: value})  # type: ignore[arg-type]


def test_an_engine_on_a_given_database_neither_forks_nor_closes_it(tmp_path: Path) -> None:
    database = SQLiteDatabase(tmp_path / "mine.db")
    engine = Assay(database=database, embedder="hashing")
    with pytest.raises(InvalidInputError, match="cannot open another connection"):
        engine.fork()
    engine.close()
    assert engine.sources.kinds()  # the caller's database is still open
    with engine.acting_as("0123456789ab") as acting:
        acting.sources.kinds()
    assert engine.audit.head()[0] == 0  # closing the acting copy closed nothing
    database.close()


def test_each_source_is_read_once_per_request(
    engine: Assay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty candidates citing two sources read the registry twice, not twenty times
    (each read is a round trip on a database server); the facts are the same."""
    reads: list[str] = []
    get = engine.sources.get
    monkeypatch.setattr(
        engine.sources, "get", lambda source_id: reads.append(source_id) or get(source_id)
    )
    candidates = [
        Candidate(f"c{i}", f"Charge between 0 and 45 degrees ({i}).", 0.8,
                  source_id="sds" if i % 2 else "forum", published=AS_OF)
        for i in range(20)
    ]  # fmt: skip
    result = engine.score("charging range", candidates, policy="financial", as_of=AS_OF)
    assert sorted(reads) == ["forum", "sds"]
    kinds = {e.candidate.id: (e.basis.source_id, e.basis.source_kind) for e in result.evidence}
    assert kinds["c1"] == ("sds", "official") and kinds["c2"] == ("forum", "customer")


def test_a_day_is_read_as_the_source_registry_reads_one(engine: Assay, tmp_path: Path) -> None:
    """A string for ``as_of`` failed deep inside scoring ("'>' not supported between
    instances of 'str' and 'datetime.date'", comparing it with a source's review date).
    ``score``, ``assess`` and ``ask`` read an ISO date string as the source registry reads
    ``reviewed_at``, and refuse anything else that is not a date by name."""
    candidate = Candidate(id="c1", text="Charge between 0 and 45 degrees.", source_id="sds",
                          similarity=0.8)  # fmt: skip
    doc = tmp_path / "sds.md"
    doc.write_text("# Charging\n\nCharge the pack between 0 and 45 degrees Celsius.\n")
    engine.ingest([doc], options=IngestOptions(source_id="sds", published=AS_OF))
    assert engine.score("charging range", [candidate], as_of="2026-11-29").as_of == AS_OF
    assert engine.assess("What is the charging range?", as_of="2026-11-29").scored.as_of == AS_OF
    calls = [
        lambda day: engine.score("charging range", [candidate], as_of=day),
        lambda day: engine.assess("What is the charging range?", as_of=day),
        lambda day: engine.ask("What is the charging range?", as_of=day),
    ]
    for call in calls:
        with pytest.raises(InvalidInputError, match=r"as_of=20261129 is not a date"):
            call(20261129)


def test_the_registry_reads_its_review_days_as_dates_or_iso_strings(engine: Assay) -> None:
    """``sources.list(overdue_on=...)`` and ``sources.review(on=...)`` failed with a
    ``TypeError`` on an ISO string, which ``sources.add(reviewed_at=...)`` accepts."""
    assert [s.id for s in engine.sources.list(overdue_on="2099-01-01")]
    assert engine.sources.review("sds", on="2026-11-01").reviewed_at == date(2026, 11, 1)
    with pytest.raises(InvalidInputError, match="on='soon' is not a date"):
        engine.sources.review("sds", on="soon")


def test_one_path_alone_is_one_file_not_its_characters(engine: Assay, tmp_path: Path) -> None:
    """``engine.ingest("/path/to/sds.md")`` read the string as its characters: its first
    "/" sent ingest walking the whole file system (it stopped at a folder it could not
    read). One path alone, a string or a Path, is that one file or folder."""
    doc = tmp_path / "sds.md"
    doc.write_text("# Charging\n\nCharge the pack between 0 and 45 degrees Celsius.\n")
    for one in (str(doc), doc):
        report = engine.ingest(one, options=IngestOptions(source_id="sds", published=AS_OF))
        assert [f.path for f in report.files] == [str(doc)], report.files
    for bad in (5, [5], [""], b"sds.md"):
        with pytest.raises(InvalidInputError, match="paths="):
            engine.ingest(bad)  # type: ignore[arg-type]
