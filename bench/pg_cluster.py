"""A private PostgreSQL + pgvector cluster for a benchmark run (``scripts/postgres.sh``).

``synchronous_commit=off`` gives it the durability of SQLite's WAL mode with
``synchronous=NORMAL``: a crash may lose the last commits, never corrupts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from assay.store import migrate_database

ROOT = Path(__file__).resolve().parents[1]


class Cluster:
    """Started on creation (in ``folder``, new or empty, else a temporary one); ``stop``
    stops it and removes its folder."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or Path(tempfile.mkdtemp(prefix="assay-pg-bench-"))
        options = "-c synchronous_commit=off -c shared_buffers=1GB -c maintenance_work_mem=1GB"
        env = os.environ | {"ASSAY_PG_SERVER_OPTIONS": options}
        out = subprocess.run(
            ["bash", str(ROOT / "scripts" / "postgres.sh"), "start", str(self.folder)],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        self.url = out.stdout.strip().splitlines()[-1]
        self._n = 0

    def new_database(self) -> str:
        self._n += 1
        url = self.url.rsplit("/", 1)[0] + f"/bench{self._n}"
        subprocess.run(["psql", self.url, "-qc", f"CREATE DATABASE bench{self._n}"], check=True)
        migrate_database(url)
        return url

    def stop(self) -> None:
        subprocess.run(["bash", str(ROOT / "scripts" / "postgres.sh"), "stop", str(self.folder)])
        shutil.rmtree(self.folder, ignore_errors=True)
