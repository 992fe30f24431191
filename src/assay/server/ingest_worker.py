"""Uploads are ingested in a worker process of their own, off the request path.

Reading, chunking and embedding a large file is CPU work: run on the server's thread
pool it held the interpreter lock and the cores, and ``/v1/score`` fell from ~200 to
6 requests a second while one 220 KB file was ingested. Here one worker process, at a
lower scheduling priority (``nice`` +10, so the server's threads come first), does
all ingestion; uploads queue for it one file at a time, and the request that sent a
file waits for its report without occupying a server thread. The worker opens its own
:class:`~assay.engine.Assay` on the same database (SQLite's WAL lets the server read
while it writes) and loads the embedder on its first file.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from assay.engine import Assay
from assay.ingest.pipeline import FileOutcome, IngestOptions, IngestReport
from assay.settings import Settings

_ENGINE: Assay | None = None  # the worker process's engine, opened by _start


class IngestWorker:
    """The server's one ingestion process, started on the first upload."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._executor: ProcessPoolExecutor | None = None

    async def ingest(self, path: Path, options: IngestOptions) -> dict[str, Any]:
        """Ingest one staged file in the worker; its report (``IngestReport.as_dict``)."""
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),  # no copy of server threads
                initializer=_start,
                initargs=(self.settings,),
            )
        loop = asyncio.get_running_loop()
        try:
            report: dict[str, Any] = await loop.run_in_executor(
                self._executor, _ingest, path, options
            )
        except BrokenProcessPool:  # killed (out of memory, say): the next file gets a new one
            self._executor = None
            name = options.uri or path.name
            error = f"{name}: the ingestion process stopped before finishing; nothing was stored"
            return IngestReport([FileOutcome(str(path), "failed", error=error)]).as_dict()
        return report

    def close(self) -> None:
        """Stop the worker (at server shutdown); a file in progress finishes first."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


def _start(settings: Settings) -> None:
    """In the worker: yield the CPU to the server, and open the engine."""
    global _ENGINE
    os.nice(10)
    _ENGINE = Assay(settings=settings, create=False)


def _ingest(path: Path, options: IngestOptions) -> dict[str, Any]:
    assert _ENGINE is not None, "the worker was not started by IngestWorker"
    return _ENGINE.ingest([path], options=options).as_dict()
