"""Read HTML files: headings and paragraphs from the page body, title and dates from its head.

HTML pages carry a lot that is not their content (scripts, styles, navigation,
headers and footers), and their structure is in tags rather than lines, so their
reader is a small :class:`~html.parser.HTMLParser` kept apart from the line-based
readers. Only the standard library is used; dates come from ``<meta>`` tags.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from assay.documents import Block, LoadedDocument
from assay.ingest.textutil import Outline, make_document, pick_date, read_text, shown

_SKIPPED = frozenset(
    {"script", "style", "nav", "header", "footer", "noscript", "template", "svg", "head"}
)
_BLOCK_TAGS = frozenset(
    {"p", "li", "td", "th", "pre", "blockquote", "div", "section", "article", "main", "aside"}
    | {"ul", "ol", "dl", "dt", "dd", "table", "tr", "figure", "figcaption", "form", "hr", "body"}
)
_HEADING_TAGS = {f"h{n}": n for n in range(1, 7)}
_PUBLISHED_META = ("published", "date", "article:published_time")
_VERIFIED_META = ("verified", "last_verified")


class _HTMLReader(HTMLParser):
    """Collect heading and paragraph blocks, the <title> and the <meta> tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.outline, self.blocks = Outline(), list[Block]()
        self.meta: dict[str, str] = {}
        self.title: list[str] = []
        self.in_title = False
        self.buffer: list[str] = []
        self.skip = self.pre = 0
        self.level: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "meta":
            attr = dict(attrs)
            name, content = attr.get("name") or attr.get("property"), attr.get("content")
            if name and content:
                self.meta.setdefault(name.lower(), content)
        elif tag == "title":
            self.in_title = True
        elif tag in _SKIPPED:
            self.skip += 1
        elif tag == "body":
            self.skip = 0  # a <head> left open ends where the body begins
        if self.skip or tag in _SKIPPED or (self.level and tag not in _HEADING_TAGS):
            return  # skipped content, or a block inside a heading (kept as heading text)
        if tag == "br":
            self.buffer.append("\n")
        elif tag in _HEADING_TAGS or tag in _BLOCK_TAGS:
            self.flush()
            self.level = _HEADING_TAGS.get(tag)
            if tag == "pre":
                self.pre += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif tag in _SKIPPED:
            self.skip = max(0, self.skip - 1)
        elif tag in _HEADING_TAGS or (tag in _BLOCK_TAGS and not self.level):
            if not self.skip:
                self.flush()
            if tag == "pre" and self.pre:
                self.pre -= 1

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title.append(data)
        elif not self.skip:
            self.buffer.append(data)

    def flush(self) -> None:
        raw = "".join(self.buffer)
        keep_lines = self.pre and self.level is None  # <pre> text keeps its layout
        text = raw.strip("\n").rstrip() if keep_lines else " ".join(raw.split())
        level, self.level, self.buffer = self.level, None, []
        if not text.strip():
            return
        if level is not None:
            self.blocks.append(self.outline.heading(level, text))
        else:
            self.blocks.append(Block("paragraph", text, self.outline.path))


def load_html(path: Path) -> list[LoadedDocument]:
    """Read a ``.html`` or ``.htm`` file into one document."""
    reader = _HTMLReader()
    reader.feed(read_text(path))
    reader.close()
    reader.flush()
    meta = dict(reader.meta)  # pick_date removes what it takes
    return [
        make_document(
            path,
            reader.blocks,
            title=" ".join("".join(reader.title).split()) or reader.outline.first_h1,
            published=pick_date(f"{shown(path)} meta ", meta, *_PUBLISHED_META),
            verified=pick_date(f"{shown(path)} meta ", meta, *_VERIFIED_META),
        )
    ]
