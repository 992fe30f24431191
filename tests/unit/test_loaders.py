"""Loaders: real files of every supported format, well-formed and malformed, on disk."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pypdf
import pytest

from assay.documents import Block
from assay.errors import InvalidInputError
from assay.ingest.loaders import SUPPORTED_SUFFIXES, iter_files, load_file


def minimal_pdf(pages: list[list[str]], *, title: str | None = None) -> bytes:
    """A PDF written by hand: catalog, page tree, a page and a content stream per page,
    one Type1 Helvetica font, an optional /Info title, and an xref with exact offsets."""
    count = len(pages)
    font = 3 + 2 * count
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
    ]
    for i, lines in enumerate(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R"
            f" /Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        stream = "".join(
            f"BT /F1 12 Tf 72 {720 - 40 * j} Td ({line}) Tj ET\n" for j, line in enumerate(lines)
        ).encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    info = ""
    if title is not None:
        objects.append(f"<< /Title ({title}) >>".encode())
        info = f" /Info {len(objects)} 0 R"
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{info} >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def paragraphs(blocks: tuple[Block, ...]) -> list[str]:
    return [b.text for b in blocks if b.kind == "paragraph"]


# --- plain text ---------------------------------------------------------------------------


def test_txt_paragraphs_split_on_blank_lines_with_their_starting_line(tmp_path: Path) -> None:
    path = write(tmp_path / "notes.txt", "First line\n  wrapped   here.\n\n\n\nSecond.\n")
    [doc] = load_file(path)
    assert doc.uri == str(path.resolve()) and doc.title is None
    assert doc.blocks == (
        Block("paragraph", "First line wrapped here.", line=1),
        Block("paragraph", "Second.", line=6),
    )


def test_suffix_is_matched_case_insensitively(tmp_path: Path) -> None:
    [doc] = load_file(write(tmp_path / "README.TXT", "Hello."))
    assert doc.text == "Hello."


# --- markdown -----------------------------------------------------------------------------

GUIDE = """\
---
title: "Charging guide"
published: 2024-05-01
last_verified: '2025-01-02'
source_id: acme-kb
source: https://kb.example.com/charging
owner: Support
tags:
  - battery
  - charging
---
# Charging

Charge the pack
between 0 and 45 °C.

## Limits

- never below 0 °C
- never above 45 °C

```sh
charge --limit 45

charge --status
```

# Storage

Store at 50 % charge.
"""


def test_markdown_front_matter_headings_and_paragraphs(tmp_path: Path) -> None:
    [doc] = load_file(write(tmp_path / "guide.md", GUIDE))
    assert doc.title == "Charging guide"
    assert (doc.published, doc.verified) == (date(2024, 5, 1), date(2025, 1, 2))
    assert doc.source_id == "acme-kb"
    assert doc.metadata == {
        "source": "https://kb.example.com/charging",
        "owner": "Support",
        "tags": ["battery", "charging"],
    }
    assert [(b.kind, b.text, b.headings, b.line) for b in doc.blocks] == [
        ("heading", "Charging", (), 12),
        ("paragraph", "Charge the pack between 0 and 45 °C.", ("Charging",), 14),
        ("heading", "Limits", ("Charging",), 17),
        ("paragraph", "- never below 0 °C\n- never above 45 °C", ("Charging", "Limits"), 19),
        (
            "paragraph",
            "```sh\ncharge --limit 45\n\ncharge --status\n```",
            ("Charging", "Limits"),
            22,
        ),
        ("heading", "Storage", (), 28),
        ("paragraph", "Store at 50 % charge.", ("Storage",), 30),
    ]


def test_markdown_front_matter_source_is_metadata_not_the_source_id(tmp_path: Path) -> None:
    path = write(tmp_path / "cited.md", "---\nsource: Smith 2021, p. 4\n---\n\nText.\n")
    [doc] = load_file(path)
    assert doc.source_id is None
    assert doc.metadata == {"source": "Smith 2021, p. 4"}


def test_markdown_title_falls_back_to_the_first_level_one_heading(tmp_path: Path) -> None:
    [doc] = load_file(write(tmp_path / "a.markdown", "Intro.\n\n## Minor\n\nx\n\n# Major\n\ny\n"))
    assert doc.title == "Major"
    assert doc.blocks[0] == Block("paragraph", "Intro.", (), line=1)


def test_markdown_bad_front_matter_date_names_file_and_key(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.md", "---\ndate: 2024-13-45\n---\n\nText.\n")
    with pytest.raises(InvalidInputError, match=r"bad\.md front matter date='2024-13-45'.*ISO"):
        load_file(path)


def test_markdown_unclosed_front_matter_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="never closes it; add a --- line"):
        load_file(write(tmp_path / "open.md", "---\ntitle: x\n\nText.\n"))


def test_markdown_with_only_headings_has_no_text(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="has no text besides headings"):
        load_file(write(tmp_path / "toc.md", "# One\n\n## Two\n"))


# --- HTML ---------------------------------------------------------------------------------

PAGE = """<!doctype html>
<html><head><title>Battery &amp; Charging</title>
<meta name="published" content="2024-02-03">
<meta property="article:published_time" content="2020-01-01T10:00:00Z">
<meta name="last_verified" content="2025-03-04T23:30:00-02:00">
<style>p { color: red }</style><script>var hidden = 1;</script></head>
<body><header>Site banner</header><nav><a href="/">Home</a></nav>
<h1>Charging</h1><p>Keep it &lt;45&nbsp;&deg;C&gt;,<br>always.</p>
<h2>Limits</h2><ul><li>No <b>fast</b> charge</li><li>No frost</li></ul>
<pre>charge --limit 45
  --verbose</pre>
<noscript>Enable JS</noscript><footer>Copyright</footer></body></html>
"""


def test_html_blocks_title_dates_and_skipped_chrome(tmp_path: Path) -> None:
    [doc] = load_file(write(tmp_path / "page.htm", PAGE))
    assert doc.title == "Battery & Charging"
    assert doc.published == date(2024, 2, 3)
    assert doc.verified == date(2025, 3, 5)  # a datetime with a zone counts in UTC
    assert [(b.kind, b.text, b.headings) for b in doc.blocks] == [
        ("heading", "Charging", ()),
        ("paragraph", "Keep it <45 °C>, always.", ("Charging",)),
        ("heading", "Limits", ("Charging",)),
        ("paragraph", "No fast charge", ("Charging", "Limits")),
        ("paragraph", "No frost", ("Charging", "Limits")),
        ("paragraph", "charge --limit 45\n  --verbose", ("Charging", "Limits")),
    ]
    for chrome in ("banner", "Home", "hidden", "Enable", "Copyright", "color"):
        assert chrome not in doc.text


def test_html_title_falls_back_to_first_h1_and_bad_meta_date_is_named(tmp_path: Path) -> None:
    [doc] = load_file(write(tmp_path / "a.html", "<h2>Sub</h2><p>x</p><h1>Top</h1><p>y</p>"))
    assert doc.title == "Top"
    bad = write(tmp_path / "b.html", '<meta name="date" content="soon"><p>x</p>')
    with pytest.raises(InvalidInputError, match=r"b\.html meta date='soon' is not a date"):
        load_file(bad)


# --- PDF ----------------------------------------------------------------------------------


def test_hand_written_pdf_is_readable_by_pypdf() -> None:
    reader = pypdf.PdfReader(io.BytesIO(minimal_pdf([["Hello charging limits"]])), strict=True)
    assert reader.pages[0].extract_text() == "Hello charging limits"


def test_pdf_pages_become_paragraphs_with_their_page(tmp_path: Path) -> None:
    path = tmp_path / "manual.pdf"
    path.write_bytes(
        minimal_pdf([["Hello charging limits"], ["Second page.", "Same block."]], title="Manual")
    )
    [doc] = load_file(path)
    assert doc.title == "Manual" and doc.uri == str(path.resolve())
    assert doc.blocks == (
        Block("paragraph", "Hello charging limits", page=1),
        Block("paragraph", "Second page. Same block.", page=2),
    )


def test_corrupt_pdf_is_refused_with_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(InvalidInputError, match=r"broken\.pdf' is not a readable PDF .*re-export"):
        load_file(path)


def test_pdf_without_text_layer_asks_for_ocr(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(minimal_pdf([[], []]))
    with pytest.raises(InvalidInputError, match=r"has no text layer \(a scanned.*OCR"):
        load_file(path)


def test_encrypted_pdf_is_refused_unless_its_user_password_is_empty(tmp_path: Path) -> None:
    source = pypdf.PdfReader(io.BytesIO(minimal_pdf([["Secret text"]])))
    for name, password in (("locked.pdf", "secret"), ("open.pdf", "")):
        writer = pypdf.PdfWriter(clone_from=source)
        writer.encrypt(password, owner_password="owner", algorithm="RC4-128")
        writer.write(tmp_path / name)
    with pytest.raises(InvalidInputError, match=r"locked\.pdf' is an encrypted PDF; decrypt"):
        load_file(tmp_path / "locked.pdf")
    assert load_file(tmp_path / "open.pdf")[0].text == "Secret text"


# --- JSON Lines ---------------------------------------------------------------------------


def test_jsonl_records_become_documents(tmp_path: Path) -> None:
    records = [
        {
            "id": "faq-1",
            "text": "Para one.\n\nPara two.",
            "title": "FAQ",
            "published": "2024-01-02",
            "verified": "2024-06-01",
            "source_id": "kb",
            "metadata": {"lang": "en"},
            "team": "ops",
        },
        {"text": "No id here."},
    ]
    path = write(tmp_path / "kb.jsonl", "\n".join(json.dumps(r) for r in records) + "\n\n")
    first, second = load_file(path)
    assert first.uri == f"{path.resolve()}#faq-1" and second.uri == f"{path.resolve()}#line2"
    assert (first.title, first.source_id) == ("FAQ", "kb")
    assert (first.published, first.verified) == (date(2024, 1, 2), date(2024, 6, 1))
    assert first.metadata == {"lang": "en", "team": "ops"}
    assert paragraphs(first.blocks) == ["Para one.", "Para two."]
    assert second.title is None and second.metadata == {}


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"text": "ok"}', '{"text": "broken"'], r"kb\.jsonl line 2: record=.* is not valid JSON"),
        (['{"text": "ok"}', "", '{"title": "x"}'], r"kb\.jsonl line 3: text=None is missing"),
        (['{"text": "   "}'], r"kb\.jsonl line 1: text='   ' is missing or empty"),
        (['["text"]'], r"line 1: record=\['text'\] is not an object"),
        (['{"id": "a", "text": "x"}', '{"id": "a", "text": "y"}'], r"line 2: id='a' is dupl"),
        (['{"text": "x", "published": "May"}'], r"line 1: published='May' is not a date"),
        (['{"text": "x", "metadata": [1]}'], r"line 1: metadata=\[1\] is invalid"),
        (['{"text": "x", "title": 3}'], r"line 1: title=3 is invalid"),
    ],
)
def test_jsonl_errors_name_the_file_and_line(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    path = write(tmp_path / "kb.jsonl", "\n".join(lines) + "\n")
    with pytest.raises(InvalidInputError, match=message):
        load_file(path)


# --- any format ---------------------------------------------------------------------------

TEXT_SUFFIXES = [".txt", ".md", ".html", ".jsonl"]


@pytest.mark.parametrize("suffix", TEXT_SUFFIXES)
def test_invalid_utf8_is_refused_with_the_fix(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"latin1{suffix}"
    path.write_bytes('{"text": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(InvalidInputError, match=r"latin1\.\w+' is not UTF-8 .*convert it to UTF-8"):
        load_file(path)


@pytest.mark.parametrize("suffix", [*TEXT_SUFFIXES, ".markdown", ".htm"])
@pytest.mark.parametrize("content", ["", " \n\n\t\n"])
def test_empty_file_has_no_text(tmp_path: Path, suffix: str, content: str) -> None:
    path = write(tmp_path / f"empty{suffix}", content)
    with pytest.raises(InvalidInputError, match=r"empty\.\w+' has no text"):
        load_file(path)


def test_empty_pdf_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.pdf").write_bytes(b"")
    with pytest.raises(InvalidInputError, match=r"empty\.pdf' is not a readable PDF"):
        load_file(tmp_path / "empty.pdf")


def test_unsupported_or_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(
        InvalidInputError, match=r"has an unsupported file type; give a file .*\.md"
    ):
        load_file(write(tmp_path / "data.csv", "a,b"))
    with pytest.raises(InvalidInputError, match="cannot be read"):
        load_file(tmp_path / "gone.txt")


# --- iter_files ---------------------------------------------------------------------------


def test_iter_files_walks_folders_sorted_skipping_hidden_and_unsupported(tmp_path: Path) -> None:
    for name in ["b.md", "a.txt", "sub/z.pdf", "sub/c.HTML", "x.csv", ".hidden.md", ".git/d.md"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    extra = tmp_path / "sub" / "c.HTML"
    assert iter_files([tmp_path, extra]) == [
        tmp_path / "a.txt",
        tmp_path / "b.md",
        tmp_path / "sub" / "c.HTML",
        tmp_path / "sub" / "z.pdf",
    ]
    assert set(SUPPORTED_SUFFIXES) >= {".txt", ".md", ".markdown", ".html", ".htm", ".pdf"}


def test_iter_files_refuses_missing_paths_and_named_unsupported_files(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"path='.*nope' does not exist"):
        iter_files([tmp_path / "nope"])
    write(tmp_path / "x.csv", "a")
    with pytest.raises(InvalidInputError, match=r"x\.csv' has an unsupported file type"):
        iter_files([tmp_path / "x.csv"])


def test_iter_files_refuses_an_unreadable_folder_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ok/a.md", "locked/b.md"):
        (tmp_path / name).parent.mkdir()
        write(tmp_path / name, "x")
    real_iterdir = Path.iterdir

    def iterdir(self: Path) -> Iterator[Path]:
        if self.name == "locked":  # chmod cannot lock root out, so pretend
            raise PermissionError(13, "Permission denied", str(self))
        return real_iterdir(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    assert iter_files([tmp_path / "ok"]) == [tmp_path / "ok" / "a.md"]
    message = (
        r"folder='.*locked' cannot be read \(Permission denied\); check its permissions or leave"
    )
    with pytest.raises(InvalidInputError, match=message):
        iter_files([tmp_path])


def test_symlinked_folders_are_not_followed_but_symlinked_files_are_read(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    (kb / "sub").mkdir(parents=True)
    write(kb / "sub" / "a.md", "A.")
    (kb / "self").symlink_to(kb, target_is_directory=True)  # a loop back to the folder itself
    (kb / "sub" / "up").symlink_to(kb, target_is_directory=True)
    outside = write(tmp_path / "outside.txt", "Outside.")
    (kb / "link.txt").symlink_to(outside)
    assert iter_files([kb]) == [kb / "link.txt", kb / "sub" / "a.md"]
    assert iter_files([kb / "self"]) == [kb / "self" / "link.txt", kb / "self" / "sub" / "a.md"]
    [doc] = load_file(kb / "link.txt")
    assert doc.text == "Outside." and doc.uri == str(outside.resolve())


# --- uris ---------------------------------------------------------------------------------


def test_uri_is_the_resolved_path_however_the_file_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    write(kb / "a.md", "# A\n\nText.\n")
    write(kb / "r.jsonl", '{"id": "x", "text": "Record."}\n{"text": "No id."}\n')
    (tmp_path / "link").symlink_to(kb, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    spellings = [Path("kb"), Path("./kb"), kb, Path("link"), tmp_path / "link" / ".." / "kb"]
    for name, expected in (
        ("a.md", [str((kb / "a.md").resolve())]),
        ("r.jsonl", [f"{(kb / 'r.jsonl').resolve()}#x", f"{(kb / 'r.jsonl').resolve()}#line2"]),
    ):
        for folder in spellings:
            assert [doc.uri for doc in load_file(folder / name)] == expected, folder
    # each file once, as first reached, however often and however it is named
    assert iter_files([Path("kb"), kb, Path("link"), Path("./kb/a.md")]) == [
        Path("kb/a.md"),
        Path("kb/r.jsonl"),
    ]


@pytest.mark.parametrize("suffix", [".txt", ".md", ".jsonl"])
def test_an_undecodable_file_name_gives_a_uri_that_encodes(tmp_path: Path, suffix: str) -> None:
    name = os.fsdecode(b"bad\xff" + suffix.encode())  # what open(b"bad\xff.txt", "wb") makes
    content = b'{"id": "1", "text": "Hello."}' if suffix == ".jsonl" else b"Hello."
    (tmp_path / name).write_bytes(content)
    [path] = iter_files([tmp_path])
    [doc] = load_file(path)
    record = "#1" if suffix == ".jsonl" else ""
    assert doc.uri == f"{tmp_path.resolve()}/bad\\xff{suffix}{record}"
    assert doc.uri.encode("utf-8").endswith(b"/bad\\xff" + suffix.encode() + record.encode())


@pytest.mark.parametrize("suffix", [".txt", ".md", ".jsonl"])
def test_a_utf8_byte_order_mark_is_dropped(tmp_path: Path, suffix: str) -> None:
    text = {
        ".txt": "Hello.\n",
        ".md": "---\ntitle: Guide\nsource_id: kb\n---\n\nHello.\n",
        ".jsonl": '{"id": "1", "text": "Hello.", "title": "Guide", "source_id": "kb"}\n',
    }[suffix]
    path = tmp_path / f"bom{suffix}"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    [doc] = load_file(path)
    assert doc.text == "Hello." and doc.metadata == {}
    if suffix != ".txt":
        assert (doc.title, doc.source_id) == ("Guide", "kb")
