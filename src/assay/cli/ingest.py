"""``assay ingest``: read files into the knowledge base."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from assay.access import parse_labels
from assay.cli.common import db_option, emit_json, json_option
from assay.engine import Assay
from assay.ingest.loaders import iter_files
from assay.ingest.pipeline import FileOutcome, IngestOptions
from assay.types import parse_date


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--source",
    "source_id",
    help="Registered source the files belong to, and the most trusted one a file or record "
    "may name in its own source_id; without --source, a file ingested before keeps its "
    "source.",
)
@click.option("--published", help="Publication date for files that state none (YYYY-MM-DD).")
@click.option("--verified", help="Last-verified date for files that state none (YYYY-MM-DD).")
@click.option(
    "--file-dates",
    is_flag=True,
    help="Use file modification times as publication "
    "dates where neither the file nor --published gives one.",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(16, 256),
    default=180,
    show_default=True,
    help="Token budget of a chunk.",
)
@click.option(
    "--overlap",
    type=click.IntRange(0, 120),
    default=30,
    show_default=True,
    help="Tokens repeated from the previous chunk of a section.",
)
@click.option(
    "--access",
    "access",
    multiple=True,
    metavar="LABEL",
    help="Access label of documents whose file states none (repeatable, or separated by "
    "commas): only keys granted one of a document's labels read it. Without --access a "
    "document keeps the labels it was stored with; a new one is readable by every key.",
)
@db_option
@json_option
def ingest_command(
    paths: tuple[Path, ...],
    source_id: str | None,
    published: str | None,
    verified: str | None,
    file_dates: bool,
    max_tokens: int,
    overlap: int,
    access: tuple[str, ...],
    db: Path | None,
    as_json: bool,
) -> None:
    """Ingest PATHS (.txt .md .html .pdf .jsonl files, folders recursively).

    Exits 1 when any file failed; the others are ingested all the same.
    """
    options = IngestOptions(
        source_id=source_id,
        published=parse_date("--published", published),
        verified=parse_date("--verified", verified),
        file_dates=file_dates,
        max_tokens=max_tokens,
        overlap_tokens=overlap,
        access=parse_labels(",".join(access)) if access else None,
    )
    files = iter_files(paths)
    sizes = {str(f): _size(f) for f in files}
    total = sum(sizes.values())
    with Assay(db) as engine:
        _ = engine.embedder  # loaded before the clock starts: it is not a file's time
        with click.progressbar(
            length=len(files),
            label="ingesting",
            file=sys.stderr,
            hidden=as_json or len(files) < 5,
            show_pos=True,
            show_eta=False,  # click's estimate counts files, not their sizes
            item_show_func=lambda text: text,
        ) as bar:
            pace = Pace(total)

            def report(outcome: FileOutcome) -> None:
                left = pace.after(sizes.get(outcome.path, 0), time.monotonic())
                bar.update(1, left)
                if outcome.status == "failed" and not as_json:
                    click.echo(f"\nfailed: {outcome.path}\n  {outcome.error}", err=True)

            result = engine.ingest(files, options=options, on_file=report)
    if as_json:
        emit_json(result.as_dict())
    else:
        for f in result.files:
            if f.status != "failed":
                click.echo(f"{f.status:>9}  {f.path}  ({_counts(f)})")
                for note in f.duplicates:
                    click.echo(f"           left out: {note}")
        click.echo(result.summary())
    if result.count("failed"):
        sys.exit(1)


def _counts(outcome: FileOutcome) -> str:
    """``1 document, 3 chunks`` (``nothing written`` for a file left as it was)."""
    documents = f"{outcome.documents} document{'' if outcome.documents == 1 else 's'}"
    if outcome.status in ("unchanged", "duplicate"):
        return f"{documents}, nothing written"
    removed = f", {outcome.removed} removed" if outcome.removed else ""
    return f"{documents}, {outcome.chunks} chunk{'' if outcome.chunks == 1 else 's'}{removed}"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # reported as the file's failure by ingest itself
        return 0


class Pace:
    """The time an ingest run has left, from the pace since its first file ended: that
    file also paid for loading the embedder, and an estimate from it said minutes for
    a run of two seconds."""

    def __init__(self, total_bytes: int) -> None:
        self.total, self.done = total_bytes, 0
        self.start: float | None = None
        self.first_bytes = 0

    def after(self, size: int, now: float) -> str | None:
        """The estimate once a file of ``size`` bytes is done at ``now`` (monotonic)."""
        self.done += size
        if self.start is None:
            self.start, self.first_bytes = now, self.done
            return None
        return time_left(
            now - self.start, self.done - self.first_bytes, self.total - self.first_bytes
        )


def time_left(elapsed: float, done_bytes: int, total_bytes: int) -> str | None:
    """The time the rest should take at the pace so far, by bytes (files differ in size
    by orders of magnitude); ``None`` until there is a pace to go by."""
    if done_bytes <= 0 or elapsed < 1.0 or total_bytes <= done_bytes:
        return None
    seconds = int(elapsed * (total_bytes - done_bytes) / done_bytes)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    shown = f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {seconds:02d} s"
    return f"about {shown} left"
