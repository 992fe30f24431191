"""``assay serve`` as a user runs it, for the tests that need its own process: started on
a free port, waited for until ready, stopped at the end; and one request to it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ASSAY = str(Path(sys.executable).with_name("assay"))


def request(url: str, token: str | None, body: dict[str, Any] | None = None) -> Any:
    """POST ``body`` (GET without one) with ``token``; the reply's text."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=30) as r:
        return r.read().decode()


@contextmanager
def serving(db: Path | str, workers: int = 2) -> Iterator[str]:
    """``assay serve --db DB --workers N`` on a free port; its base URL once ready."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    server = subprocess.Popen(
        [ASSAY, "serve", "--db", str(db), "--port", str(port), "--workers", str(workers),
         "--log-level", "warning", "--monitor-every", "0"],
        env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                assert json.loads(request(base + "/readyz", None))["status"] == "ready"
                break
            except (OSError, urllib.error.URLError):
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.25)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)
