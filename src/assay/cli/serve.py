"""``assay serve``: the HTTP API, metrics and dashboard under uvicorn (B4)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from assay.cli.common import db_option
from assay.settings import MIB, ServeSettings, load_settings

#: the variables that size numpy's BLAS thread pool (OpenBLAS; MKL in some builds)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def blas_threads_per_worker(workers: int, cores: int | None = None) -> int:
    """The BLAS threads each of ``workers`` processes gets: the cores shared out, at
    least one. Left alone, numpy's OpenBLAS starts a thread per core in every worker,
    and workers sharing the cores then wait on each other's threads: on 2 cores, two
    workers answered 1.1-1.3x the questions of one; with one BLAS thread each, 2.3x."""
    if cores is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return max(1, (cores or os.cpu_count() or 1) // workers)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Worker processes (each loads the models once; about one per core).",
)
@click.option(
    "--max-body-mb", type=click.FloatRange(0.01, 1024), default=2.0, show_default=True,
    help="Largest JSON request body.",
)  # fmt: skip
@click.option(
    "--max-upload-mb", type=click.FloatRange(0.01, 4096), default=64.0, show_default=True,
    help="Largest upload to /v1/ingest.",
)  # fmt: skip
@click.option(
    "--monitor-every", type=click.FloatRange(0), default=60.0, show_default=True,
    help="Seconds between drift checks (0: never; `assay monitor check` runs one).",
)  # fmt: skip
@click.option(
    "--session-hours", type=click.FloatRange(0.01, 24 * 90), default=8.0, show_default=True,
    help="How long a dashboard login lasts.",
)  # fmt: skip
@click.option(
    "--secure-cookies", is_flag=True,
    help="Mark the dashboard's session cookie Secure even on plain http (behind a TLS proxy).",
)  # fmt: skip
@click.option(
    "--rate-limit", type=click.IntRange(0, 1_000_000), default=0, show_default=True,
    help="Requests a minute each API key may make, per worker process (0: no limit); "
    "past it, 429 with Retry-After.",
)  # fmt: skip
@click.option(
    "--root-path", default="",
    help="The path prefix a reverse proxy serves the app under, e.g. /assay.",
)  # fmt: skip
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    default="info",
    show_default=True,
)
@db_option
def serve(
    host: str,
    port: int,
    workers: int,
    max_body_mb: float,
    max_upload_mb: float,
    monitor_every: float,
    session_hours: float,
    secure_cookies: bool,
    rate_limit: int,
    root_path: str,
    log_level: str,
    db: Path | None,
) -> None:
    """Serve the API (/v1, OpenAPI at /docs), /metrics and the dashboard (/dashboard).

    Every route but /healthz and /readyz needs an API key: create the first one with
    `assay keys create NAME --role admin`.
    """
    import uvicorn

    from assay.engine import Assay

    settings = load_settings(db=db)  # a bad setting fails here, before any worker starts
    with Assay(settings=settings) as engine:  # as does a sealed audit log without its key
        engine.audit.require_key_if_sealed()
        if settings.audit_checkpoint_file is not None:  # or one cut since the last stop
            engine.audit.check_anchor(settings.audit_checkpoint_file)
    options = ServeSettings(
        max_body_bytes=int(max_body_mb * MIB),
        max_upload_bytes=int(max_upload_mb * MIB),
        monitor_every=monitor_every,
        session_hours=session_hours,
        secure_cookies=secure_cookies,
        rate_limit=rate_limit,
    )
    # uvicorn starts each worker from an import string: the environment carries the rest
    os.environ["ASSAY_DB"] = settings.database_url or str(settings.db_file)
    os.environ.update(options.to_environment())
    with tempfile.TemporaryDirectory(prefix="assay-metrics-") as metrics_dir:
        if workers > 1:  # each worker writes its samples here; /metrics merges them
            os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
            threads = str(blas_threads_per_worker(workers))
            for name in BLAS_THREADS:  # a value the user set stands
                os.environ.setdefault(name, threads)
        uvicorn.run(
            "assay.server.app:app_from_environment",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level=log_level,
            root_path=root_path,
            access_log=log_level == "debug",
        )
