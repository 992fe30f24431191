"""Entry point of the ``assay`` command."""

from __future__ import annotations

import os
import sys

import click

from assay import __version__
from assay.cli.ask import ask
from assay.cli.audit import audit
from assay.cli.calibrate import calibrate
from assay.cli.common import AssayGroup
from assay.cli.db import db
from assay.cli.evaluate import evaluate
from assay.cli.ingest import ingest_command
from assay.cli.keys import keys
from assay.cli.models import models
from assay.cli.monitor import monitor
from assay.cli.policies import policies
from assay.cli.review import review
from assay.cli.score import score
from assay.cli.serve import serve
from assay.cli.sources import sources


@click.group(cls=AssayGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="assay")
def cli() -> None:
    """assay: score, gate, corroborate and audit the evidence behind RAG answers."""


cli.add_command(sources)
cli.add_command(policies)
cli.add_command(score)
cli.add_command(audit)
cli.add_command(ingest_command)
cli.add_command(ask)
cli.add_command(models)
cli.add_command(evaluate)
cli.add_command(calibrate)
cli.add_command(review)
cli.add_command(monitor)
cli.add_command(keys)
cli.add_command(serve)
cli.add_command(db)


def main() -> None:
    """Console-script entry point."""
    try:
        cli()
    except BrokenPipeError:  # `assay audit export | head`: the reader left, stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
