"""The command line starts fast: heavy modules load only for the commands that use them."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path

from assay.cli.main import COMMANDS, cli

#: the plots, the HTTP service, the models, numpy (the knowledge base, the calibration
#: maps), the question path, the monitor's reports and checks (a score reads only whether
#: its policy is tightened) and the audit replay
HEAVY = (
    "matplotlib", "fastapi", "numpy", "uvicorn", "onnxruntime", "tokenizers",
    "assay.models.relevance", "assay.models.support", "assay.models.reader",
    "assay.answer.extractive", "assay.answer.correctness", "assay.flow.respond",
    "assay.server", "assay.monitor.service", "assay.audit.replay",
)  # fmt: skip


def _loaded_after(code: str, cwd: Path) -> set[str]:
    """The heavy modules in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True
    )
    modules = json.loads(done.stdout.strip().splitlines()[-1])
    return {m for m in modules if m in HEAVY or m.startswith(tuple(f"{h}." for h in HEAVY))}


def test_help_lists_every_command_from_its_own_summary() -> None:
    """The table ``--help`` reads must say what each command's own help says."""
    for name, (module, attribute, summary) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attribute)
        assert command.name == name
        first = inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\n", " ")
        assert first == summary, name
    assert sorted(COMMANDS) == cli.list_commands(None)  # type: ignore[arg-type]


def test_help_and_score_load_no_models_server_or_plots(tmp_path: Path) -> None:
    candidates = tmp_path / "one.jsonl"
    candidates.write_text(
        json.dumps({"id": "a", "text": "Charge between 0 and 45 C.", "similarity": 0.8,
                    "source_kind": "official", "published": "2026-01-01"}) + "\n"
    )  # fmt: skip
    run = "from assay.cli.main import cli\ntry:\n    cli({args!r})\nexcept SystemExit:\n    pass"
    assert _loaded_after(run.format(args=["--help"]), tmp_path) == set()
    score = ["score", "--query", "charging?", "--candidates", str(candidates), "--json"]
    score += ["--policy", "informational", "--db", str(tmp_path / "s.db")]
    _loaded_after(run.format(args=score), tmp_path)  # creates the database (migrations use numpy)
    assert _loaded_after(run.format(args=score), tmp_path) == set()


def test_no_help_text_shows_requirement_codes_or_raw_markup() -> None:
    """--help is read by users: no internal requirement ids ("(E11, R6)") and no
    reStructuredText markup (``-o -``)."""
    import re

    from click.testing import CliRunner

    runner = CliRunner()
    codes = re.compile(r"\b[ERJBG]\d{1,2}\b")
    seen: list[str] = []

    def walk(command: object, path: list[str]) -> None:
        text = runner.invoke(cli, [*path, "--help"]).output
        seen.extend(f"{' '.join(path)}: {line.strip()}" for line in text.splitlines()
                    if codes.search(line) or "``" in line)  # fmt: skip
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    for name, (module, attribute, _) in COMMANDS.items():
        walk(getattr(importlib.import_module(module), attribute), [name])
    walk(cli, [])
    assert not seen
