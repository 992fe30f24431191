"""Ingestion runs: idempotence, replacement of changed documents, per-file failures."""

from __future__ import annotations

import os
import sys
import time
from datetime import date
from pathlib import Path

import pytest

from assay import Assay, UnknownSourceError
from assay.ingest import deadline
from assay.ingest.pipeline import IngestOptions, ingest
from assay.ingest.textutil import file_uri
from assay.models.embedder import HashingEmbedder
from assay.settings import load_settings


@pytest.fixture
def kb(db_path: Path) -> Assay:
    engine = Assay(db_path)
    engine.sources.add("manual", "official")
    engine.sources.add("forum", "customer")
    return engine


def run(kb: Assay, *paths: Path, **options: object):
    return ingest(
        list(paths),
        store=kb.store,
        embedder=HashingEmbedder(),
        registry=kb.sources,
        options=IngestOptions(**options),
    )  # type: ignore[arg-type]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_reingesting_unchanged_files_writes_nothing(kb: Assay, tmp_path: Path) -> None:
    doc = write(tmp_path / "docs" / "a.md", "# Charging\n\nCharge between 0 and 45 degrees.\n")
    first = run(kb, tmp_path / "docs", source_id="manual")
    assert first.count("added") == 1 and first.chunks == 1
    again = run(kb, doc, source_id="manual")
    assert again.count("unchanged") == 1 and again.chunks == 0
    assert kb.store.stats().chunks == 1


def test_a_changed_document_replaces_its_old_chunks(kb: Assay, tmp_path: Path) -> None:
    doc = write(tmp_path / "a.md", "# Charging\n\nCharge between 10 and 35 degrees.\n")
    run(kb, doc, source_id="manual")
    write(doc, "# Charging\n\nCharge between 0 and 45 degrees.\n\n# Storage\n\nKeep it dry.\n")
    report = run(kb, doc, source_id="manual")
    assert report.count("updated") == 1
    texts = [kb.store.get([h.chunk_id])[0].text for h in kb.store.lexical_search("degrees dry", 9)]
    assert sorted(texts) == ["Charge between 0 and 45 degrees.", "Keep it dry."]


def test_a_bad_file_fails_alone_and_writes_nothing(kb: Assay, tmp_path: Path) -> None:
    write(tmp_path / "kb" / "good.md", "Charge between 0 and 45 degrees.\n")
    write(tmp_path / "kb" / "posts.jsonl", '{"text": "fine post"}\n{"text": ""}\n')
    report = run(kb, tmp_path / "kb", source_id="forum")
    assert [f.status for f in report.files] == ["added", "failed"]
    assert "posts.jsonl line 2" in (report.files[1].error or "")
    assert kb.store.stats().documents == 1  # the good first record of posts.jsonl was not kept
    assert "1 failed" in report.summary()


def test_dates_from_the_file_win_then_arguments(kb: Assay, tmp_path: Path) -> None:
    stated = write(tmp_path / "a.md", "---\npublished: 2026-03-02\n---\n\nText one.\n")
    bare = write(tmp_path / "b.md", "Text two.\n")
    run(
        kb, stated, bare, source_id="manual", published=date(2020, 1, 1), verified=date(2026, 11, 1)
    )
    by_text = {
        c.text: c for h in kb.store.lexical_search("text", 5) for c in kb.store.get([h.chunk_id])
    }
    assert by_text["Text one."].published == date(2026, 3, 2)
    assert by_text["Text two."].published == date(2020, 1, 1)
    assert by_text["Text two."].verified == date(2026, 11, 1)


def test_records_name_their_own_source_up_to_the_runs_reliability(
    kb: Assay, tmp_path: Path
) -> None:
    kb.sources.add("rumour", "unverified")
    posts = write(
        tmp_path / "p.jsonl",
        '{"text": "rumour note", "source_id": "rumour"}\n{"text": "forum note"}\n',
    )
    run(kb, posts, source_id="forum")
    sources = {
        c.text: c.source_id
        for h in kb.store.lexical_search("note", 5)
        for c in kb.store.get([h.chunk_id])
    }
    assert sources == {"rumour note": "rumour", "forum note": "forum"}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("post.md", "---\nsource_id: manual\n---\n\nThe manual says this is safe.\n"),
        ("posts.jsonl", '{"text": "official note", "source_id": "manual"}\n'),
    ],
)
def test_content_cannot_raise_its_own_trust_above_the_runs_source(
    kb: Assay, tmp_path: Path, name: str, text: str
) -> None:
    """A forum file that claims to be the official manual is refused, not promoted."""
    report = run(kb, write(tmp_path / name, text), source_id="forum")
    assert [f.status for f in report.files] == ["failed"]
    error = report.files[0].error or ""
    assert "source_id='manual'" in error and "'forum'" in error and "--source manual" in error
    assert kb.store.stats().documents == 0
    assert run(kb, tmp_path / name, source_id="manual").count("added") == 1


def test_unknown_or_missing_source_is_reported(kb: Assay, tmp_path: Path) -> None:
    doc = write(tmp_path / "a.md", "Text.\n")
    with pytest.raises(UnknownSourceError):
        run(kb, doc, source_id="nope")
    report = run(kb, doc)
    assert report.files[0].status == "failed" and "pass --source ID" in (
        report.files[0].error or ""
    )


def test_an_undecodable_file_name_is_ingested_and_reported_safely(
    kb: Assay, tmp_path: Path
) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "ok.txt").write_text("Readable text.\n")
    with open(bytes(folder) + b"/bad\xff.txt", "wb") as fh:  # noqa: PTH123 (bytes path)
        fh.write(b"Text under an odd name.\n")
    report = run(kb, folder, source_id="manual")
    assert [f.status for f in report.files] == ["added", "added"]
    assert any("bad\\xff.txt" in f.path for f in report.files)
    report.summary().encode("utf-8")  # printable: no lone surrogates left


def test_records_removed_from_a_file_are_dropped(kb: Assay, tmp_path: Path) -> None:
    posts = write(
        tmp_path / "p.jsonl", '{"id": 1, "text": "first post"}\n{"id": 2, "text": "second post"}\n'
    )
    run(kb, posts, source_id="forum")
    write(posts, '{"id": 1, "text": "first post"}\n')
    report = run(kb, posts, source_id="forum")
    assert report.files[0].status == "updated" and report.files[0].removed == 1
    assert [
        c.text for h in kb.store.lexical_search("post", 5) for c in kb.store.get([h.chunk_id])
    ] == ["first post"]


def test_the_same_file_by_another_spelling_is_the_same_document(
    kb: Assay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = write(tmp_path / "docs" / "a.md", "Charge between 0 and 45 degrees.\n")
    run(kb, doc, source_id="manual")
    monkeypatch.chdir(tmp_path)
    again = run(kb, Path("docs/../docs/a.md"), source_id="manual")
    assert again.count("unchanged") == 1 and kb.store.stats().documents == 1


def test_a_named_pipe_is_refused_instead_of_blocking(kb: Assay, tmp_path: Path) -> None:
    pipe = tmp_path / "notes.md"
    os.mkfifo(pipe)
    report = run(kb, pipe, source_id="manual")
    assert [f.status for f in report.files] == ["failed"]
    assert "is not a regular file" in (report.files[0].error or "")


def test_a_file_over_the_size_limit_fails_unread(kb: Assay, tmp_path: Path) -> None:
    big = write(tmp_path / "big.txt", "Charge between 0 and 45 degrees.\n" * 2000)
    report = run(kb, big, source_id="manual", max_file_bytes=10_000)
    error = report.files[0].error or ""
    assert report.files[0].status == "failed" and "over the limit of" in error
    assert "ingest_max_file_mb" in error and kb.store.stats().documents == 0


def test_a_file_over_the_time_limit_fails_and_writes_nothing(
    kb: Assay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = iter(range(0, 10_000, 10))  # every look at the clock is 10 s later
    monkeypatch.setattr(deadline.time, "monotonic", lambda: next(clock))
    doc = write(tmp_path / "a.md", "Charge between 0 and 45 degrees.\n")
    report = run(kb, doc, source_id="manual", max_file_seconds=15)
    error = report.files[0].error or ""
    assert report.files[0].status == "failed" and "took more than 15 s" in error
    assert "ingest_max_file_seconds" in error and kb.store.stats().documents == 0


class CountingHashingEmbedder(HashingEmbedder):
    """A hashing embedder with a tokenizer count that tallies its calls."""

    calls = 0

    def count_tokens(self, text: str) -> int:
        self.calls += 1
        return len(text.split()) * 3  # a tokenizer that splits every word in three


def test_chunking_stops_at_the_time_limit_not_after_it(
    kb: Assay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: the limit was checked only once chunking had finished, so a text a
    tokenizer is slow on ran for minutes under a limit of seconds."""
    clock = iter(range(0, 10_000, 10))  # every look at the clock is 10 s later
    monkeypatch.setattr(deadline.time, "monotonic", lambda: next(clock))
    text = " ".join(f"Sentence {i} says something about charging." for i in range(3000))
    doc = write(tmp_path / "long.txt", text)
    embedder = CountingHashingEmbedder()
    report = ingest(
        [doc], store=kb.store, embedder=embedder, registry=kb.sources,
        options=IngestOptions(source_id="manual", max_file_seconds=15),
    )  # fmt: skip
    error = report.files[0].error or ""
    assert report.files[0].status == "failed" and "stopped while chunking" in error
    assert embedder.calls <= 2  # the whole text takes hundreds of counts
    assert kb.store.stats().documents == 0


def test_the_engine_takes_its_limits_from_settings(db_path: Path, tmp_path: Path) -> None:
    engine = Assay(db_path, settings=load_settings(db=db_path, ingest_max_file_mb=0.001))
    engine.sources.add("manual", "official")
    big = write(tmp_path / "big.txt", "Charge between 0 and 45 degrees.\n" * 100)
    report = engine.ingest([big], options=IngestOptions(source_id="manual"))
    assert "over the limit of 1,048" in (report.files[0].error or "")


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, recording how many texts each call embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        return super().embed(texts)


def test_records_and_small_files_are_embedded_together_and_written_apart(
    kb: Assay, tmp_path: Path
) -> None:
    """One embedding call for many records and files; still one outcome per file, in
    order, and a bad file in the middle fails alone."""
    lines = "".join(f'{{"id": "r{i}", "text": "Record {i} about charging."}}\n' for i in range(30))
    records = write(tmp_path / "a" / "1-records.jsonl", lines)
    bad = write(tmp_path / "a" / "2-bad.jsonl", '{"id": "x", "text": ')
    notes = [write(tmp_path / "a" / f"3-note{i}.md", f"Note {i} on storage.\n") for i in range(3)]
    embedder = CountingEmbedder()
    report = ingest(
        [tmp_path / "a"], store=kb.store, embedder=embedder, registry=kb.sources,
        options=IngestOptions(source_id="manual"),
    )  # fmt: skip
    assert [f.status for f in report.files] == ["added", "failed", "added", "added", "added"]
    assert report.files[0].path.endswith(records.name) and bad.name in report.files[1].path
    assert embedder.calls == [30, 3]  # the records together; the notes after the bad file
    assert report.chunks == 33 == kb.store.stats().chunks
    assert [f.chunks for f in report.files] == [30, 0, 1, 1, 1]
    assert all(n.name in f.path for n, f in zip(notes, report.files[2:], strict=True))


def test_ingesting_a_file_again_keeps_the_source_it_was_first_given(
    kb: Assay, tmp_path: Path
) -> None:
    """`assay ingest kb/ --source manual`, then `assay ingest kb/`: every file used to fail
    with "source=None is not named"; the knowledge base now remembers each file's source."""
    doc = write(tmp_path / "kb" / "a.md", "# Charging\n\nCharge between 10 and 35 degrees.\n")
    records = write(tmp_path / "kb" / "faq.jsonl", '{"id": "q1", "text": "Keep it dry."}\n')
    assert run(kb, tmp_path / "kb", source_id="manual").count("added") == 2
    write(doc, "# Charging\n\nCharge between 0 and 45 degrees.\n")
    with records.open("a", encoding="utf-8") as handle:  # a new record of a known file
        handle.write('{"id": "q2", "text": "Wipe it with a damp cloth."}\n')
    again = run(kb, tmp_path / "kb")
    assert sorted(f.status for f in again.files) == ["added", "updated"]  # q2; a.md
    stored = kb.store.documents_in(file_uri(doc))
    assert [d.source_id for d in stored] == ["manual"]
    assert [d.source_id for d in kb.store.documents_in(file_uri(records))] == ["manual"] * 2
    new = write(tmp_path / "kb" / "new.md", "A file never ingested before.\n")
    [failed] = [f for f in run(kb, tmp_path / "kb").files if f.status == "failed"]
    assert failed.path == str(new) and "pass --source ID" in (failed.error or "")
    assert ": source is not named: the file is new to the knowledge base" in (failed.error or "")


def test_a_file_cannot_claim_more_trust_than_the_source_it_was_first_ingested_under(
    kb: Assay, tmp_path: Path
) -> None:
    doc = write(tmp_path / "post.md", "Nobody checks the hotel limit.\n")
    assert run(kb, doc, source_id="forum").count("added") == 1
    write(doc, "---\nsource_id: manual\n---\nNobody checks the hotel limit.\n")
    [failed] = run(kb, doc).files
    assert failed.status == "failed" and "'forum'" in (failed.error or "")


def test_a_file_without_a_run_source_names_none(kb: Assay, tmp_path: Path) -> None:
    """Issue 45: without --source, front matter picked any registered source; trust
    never comes from the document."""
    doc = write(tmp_path / "post.md", "---\nsource_id: manual\n---\nNobody checks.\n")
    [failed] = run(kb, doc).files
    assert failed.status == "failed" and "named by the file alone" in (failed.error or "")
    assert "pass --source manual" in (failed.error or "") and kb.store.stats().documents == 0


@pytest.mark.parametrize(
    ("ceiling", "named", "why"),
    [
        (  # same reliability, another jurisdiction: escapes the jurisdiction penalty
            {"kind": "official", "jurisdiction": "FR", "owner": "Ministry"},
            {"kind": "official", "jurisdiction": "US", "owner": "Ministry"},
            "would escape the jurisdiction penalty",
        ),
        (  # no jurisdiction at all escapes it too
            {"kind": "official", "jurisdiction": "FR", "owner": "Ministry"},
            {"kind": "official", "owner": "Ministry"},
            "scoped to no jurisdiction",
        ),
        (  # less reliable, but a kind the policies do not penalise
            {"kind": "customer", "reliability": 0.55, "owner": "Shop"},
            {"kind": "internal_wiki", "reliability": 0.55, "owner": "Shop"},
            "scores higher under policy",
        ),
        (  # a second owner would read as an independent confirmation
            {"kind": "internal_wiki", "owner": "Support"},
            {"kind": "internal_wiki", "reliability": 0.5, "owner": "Sales"},
            "would count as an independent confirmation",
        ),
    ],
)
def test_a_file_may_name_no_source_that_gains_it_trust_in_any_respect(
    db_path: Path, tmp_path: Path, ceiling: dict, named: dict, why: str
) -> None:
    """Issue 45: the ceiling compared registry reliability only."""
    with Assay(db_path) as engine:
        engine.sources.add("ceiling", **ceiling)
        engine.sources.add("named", **named)
        doc = write(tmp_path / "a.md", "---\nsource_id: named\n---\nThe rule applies.\n")
        [outcome] = engine.ingest([doc], options=IngestOptions(source_id="ceiling")).files
        assert outcome.status == "failed" and why in (outcome.error or ""), outcome.error


def test_a_file_may_name_a_source_that_gains_it_nothing(db_path: Path, tmp_path: Path) -> None:
    with Assay(db_path) as engine:
        engine.sources.add("regs", "official", jurisdiction="FR", owner="Ministry")
        engine.sources.add("regs-draft", "official", jurisdiction="fr", owner="Ministry",
                           reliability=0.8)  # fmt: skip
        doc = write(tmp_path / "a.md", "---\nsource_id: regs-draft\n---\nThe draft rule.\n")
        [outcome] = engine.ingest([doc], options=IngestOptions(source_id="regs")).files
        assert outcome.status == "added", outcome.error
        assert [d.source_id for d in engine.store.documents_in(file_uri(doc))] == ["regs-draft"]


def shared_stream_pdf(path: Path, pages: int = 10, ops: int = 400_000) -> Path:
    """A small PDF whose pages all draw one flate stream of ``ops`` text operators (about
    27 bytes each decompressed): pypdf parses the stream again for every page."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    stream = DecodedStreamObject()
    stream.set_data(b"BT /F1 12 Tf 72 720 Td (xxxxxxxxxx) Tj ET\n" * ops)
    content = writer._add_object(stream.flate_encode())
    font = DictionaryObject(
        {NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
         NameObject("/BaseFont"): NameObject("/Helvetica")}
    )  # fmt: skip
    fonts = DictionaryObject({NameObject("/F1"): writer._add_object(font)})
    for page in writer.pages:
        page[NameObject("/Contents")] = content
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
    writer.write(path)
    return path


# hypothesis, once imported, runs a callback on every garbage collection; an alarm that
# lands in it is reported (and swallowed) there, and the next one interrupts the parser
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_pdf_that_keeps_its_parser_busy_stops_at_the_time_limit(
    kb: Assay, tmp_path: Path
) -> None:
    """Issue 45: a small PDF whose pages share one huge compressed stream ran 43 s under
    a 5 s limit, checked only between steps; the limit is now a hard one while reading."""
    bomb = shared_stream_pdf(tmp_path / "bomb.pdf")
    assert bomb.stat().st_size < 200_000
    started = time.monotonic()
    [outcome] = run(kb, bomb, source_id="manual", max_file_seconds=1).files
    elapsed = time.monotonic() - started
    assert outcome.status == "failed" and "took more than 1 s (stopped while reading)" in (
        outcome.error or ""
    )
    assert elapsed < 4.0  # parsing it through takes about 10 s a page
    assert kb.store.stats().documents == 0


def test_an_alarm_that_lands_in_a_finalizer_is_not_reported_as_unraisable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The repeating alarm can land in a ``__del__``, where Python can only report it;
    reported, it printed noise, and pytest's collector failed the PDF-bomb test in CI.
    Another finalizer's error still reaches the hook that was there before."""
    seen: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_value))

    class Finalized:
        def __init__(self, error: BaseException) -> None:
            self.error = error

        def __del__(self) -> None:
            raise self.error

    def work() -> str:
        Finalized(deadline._Expired())
        Finalized(ValueError("not the alarm"))
        return "done"

    guard = deadline.FileDeadline(tmp_path / "a.pdf", seconds=60)
    assert guard.run("reading", work) == "done"
    assert [type(e) for e in seen] == [ValueError]
    Finalized(deadline._Expired())  # outside a guarded run, the hook is the old one again
    assert [type(e) for e in seen] == [ValueError, deadline._Expired]


def test_the_same_text_from_a_second_path_is_left_out_not_stored_twice(
    kb: Assay, tmp_path: Path
) -> None:
    """Issue 43 (second pass): a file ingested from the command line and uploaded too
    became two passages with one text; the gap signal fell to 0 and a right answer was
    demoted to a hedge. A source holds a text once; another source may say it too."""
    text = "# Shipping\n\nOrders ship within 2 business days.\n"
    first = write(tmp_path / "a" / "faq.md", text)
    run(kb, first, source_id="manual")
    second = write(tmp_path / "b" / "faq.md", text)
    again = run(kb, second, first, source_id="manual")
    assert [f.status for f in again.files] == ["duplicate", "unchanged"]
    [note] = again.files[0].duplicates
    assert note == f"{file_uri(second)} holds the same text as {file_uri(first)} (manual)"
    assert kb.store.stats().documents == 1
    assert run(kb, second, source_id="forum").count("added") == 1  # another source's word
    both = write(tmp_path / "c" / "records.jsonl", '{"id": "r1", "text": "Same."}\n' * 1)
    with both.open("a") as out:
        out.write('{"id": "r2", "text": "Same."}\n')
    report = run(kb, both, source_id="manual")
    assert report.count("added") == 1 and len(report.files[0].duplicates) == 1


def test_the_same_text_of_two_sources_in_one_file_is_kept_for_each(
    kb: Assay, tmp_path: Path
) -> None:
    """A record that names another source under the run's ceiling says the text in that
    source's word: not a copy of the first record, which is another source's."""
    records = write(
        tmp_path / "posts.jsonl",
        '{"id": "r1", "text": "Same."}\n{"id": "r2", "text": "Same.", "source_id": "forum"}\n',
    )
    report = run(kb, records, source_id="manual")
    assert report.count("added") == 1 and report.files[0].duplicates == ()
    assert {d.source_id for d in kb.store.documents_in(file_uri(records))} == {"manual", "forum"}
