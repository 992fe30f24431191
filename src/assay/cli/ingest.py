"""``assay ingest``: read files into the knowledge base (E3, E4)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

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
    help="Registered source the files belong to (a file or record naming its own source_id wins).",
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
    )
    files = iter_files(paths)
    with (
        Assay(db) as engine,
        click.progressbar(
            length=len(files),
            label="ingesting",
            file=sys.stderr,
            hidden=as_json or len(files) < 5,
            show_pos=True,
        ) as bar,
    ):

        def report(outcome: FileOutcome) -> None:
            bar.update(1)
            if outcome.status == "failed" and not as_json:
                click.echo(f"\nfailed: {outcome.path}\n  {outcome.error}", err=True)

        result = engine.ingest(files, options=options, on_file=report)
    if as_json:
        emit_json(result.as_dict())
    else:
        for f in result.files:
            if f.status != "failed":
                removed = f", {f.removed} removed" if f.removed else ""
                click.echo(
                    f"{f.status:>9}  {f.path}  ({f.documents} documents, "
                    f"{f.chunks} chunks{removed})"
                )
        click.echo(result.summary())
    if result.count("failed"):
        sys.exit(1)
