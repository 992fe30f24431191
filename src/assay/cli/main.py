"""Entry point of the ``assay`` command.

Each command's module is imported only when that command runs (or shows its own
help): ``assay --help`` loads none of them, and ``assay score`` never loads the models,
the answerer or the HTTP service.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from assay.cli.common import AssayGroup
from assay.version import __version__

#: command -> (module, attribute, the first paragraph of its help, shown by --help);
#: a test checks each summary against the command's own help
COMMANDS: dict[str, tuple[str, str, str]] = {
    "sources": ("assay.cli.sources", "sources", "Register, review and inspect evidence sources."),
    "policies": (
        "assay.cli.policies",
        "policies",
        "List and show confidence policies (built-in and from ASSAY_POLICY_DIRS).",
    ),
    "score": (
        "assay.cli.score",
        "score",
        "Score retrieved candidates, keep weak evidence out, and log the event.",
    ),
    "audit": ("assay.cli.audit", "audit", "Inspect the tamper-evident log of retrieval events."),
    "ingest": (
        "assay.cli.ingest",
        "ingest_command",
        "Ingest PATHS (.txt .md .html .pdf .jsonl files, folders recursively).",
    ),
    "documents": (
        "assay.cli.documents",
        "documents",
        "List, show and relabel the documents of the knowledge base.",
    ),
    "ask": (
        "assay.cli.ask",
        "ask",
        "Ask the knowledge base QUESTION: an answer with checked citations, or why not.",
    ),
    "models": (
        "assay.cli.models",
        "models",
        "The relevance and support models: list them, score pairs.",
    ),
    "evaluate": (
        "assay.cli.evaluate",
        "evaluate",
        "Rate an answer against its contexts: prints one strict JSON assessment.",
    ),
    "calibrate": (
        "assay.cli.calibrate",
        "calibrate",
        "Fit score maps and thresholds on labeled data, and thresholds with a risk guarantee.",
    ),
    "review": (
        "assay.cli.review",
        "review",
        "List, read and resolve answers queued for human review.",
    ),
    "monitor": (
        "assay.cli.monitor",
        "monitor",
        "Watch score distributions and decisions over time; alert on drift.",
    ),
    "keys": (
        "assay.cli.keys",
        "keys",
        "Create, list and revoke API keys (roles: reader, curator, auditor, admin).",
    ),
    "serve": (
        "assay.cli.serve",
        "serve",
        "Serve the API (/v1, OpenAPI at /docs), /metrics and the dashboard (/dashboard).",
    ),
    "db": ("assay.cli.db", "db", "Manage the database: an SQLite file or a PostgreSQL server."),
}


class LazyGroup(AssayGroup):
    """The top-level group: commands from :data:`COMMANDS`, imported on use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute, _ = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from the summaries: no command is imported."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [
            (name, click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit))
            for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="assay")
def cli() -> None:
    """assay: score, gate, corroborate and audit the evidence behind RAG answers."""


def main() -> None:
    """Console-script entry point."""
    try:
        cli()
    except BrokenPipeError:  # `assay audit export | head`: the reader left, stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
