"""Walkthrough step: the HTTP service over the demo database.

Creates a reader and an auditor key, starts ``assay serve`` on a free local port, asks
a question over HTTP, shows that the audit row names the key that asked, that a request
without a key is refused, and a few Prometheus metrics; then stops the server.

    python examples/demo/serve.py ASSAY_EXECUTABLE
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any


def main(assay: str) -> None:
    tokens = {
        role: _keys_create(assay, f"demo {role}", role)["token"] for role in ("reader", "auditor")
    }
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [assay, "serve", "--port", str(port), "--log-level", "warning"], env=os.environ
    )
    try:
        _wait_ready(base)
        print(f"assay serve is up on {base} (OpenAPI at {base}/docs, dashboard at {base}/dashboard)")
        question = {"question": "How long does a full charge of the HX-40 take?",
                    "policy": "financial", "as_of": "2026-11-29"}  # fmt: skip
        status, answer = _call(base, "POST", "/v1/ask", tokens["reader"], question)
        print(f"\nPOST /v1/ask -> {status}")
        print(f"  answer: {answer['answer']}")
        confidence = answer["confidence"]
        print(f"  status {answer['status']}, decision {answer['decision']}, "
              f"confidence {confidence['label']} {confidence['score']:.3f}")  # fmt: skip
        status, event = _call(base, "GET", f"/v1/audit/{answer['event_id']}", tokens["auditor"])
        print(f"GET /v1/audit/{answer['event_id'][:12]}... -> {status}: "
              f"kind {event['kind']}, actor (the reader key's id) {event['actor']}")  # fmt: skip
        status, refused = _call(base, "POST", "/v1/ask", None, question)
        print(f"POST /v1/ask without a key -> {status}: {refused['error']['message']}")
        status, wrong = _call(base, "GET", "/v1/audit", tokens["reader"])
        print(f"GET /v1/audit with the reader key -> {status}: {wrong['error']['message']}")
        request = urllib.request.Request(
            base + "/metrics", headers={"Authorization": f"Bearer {tokens['auditor']}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            lines = [
                line
                for line in response.read().decode().splitlines()
                if line.startswith(("assay_decisions_total", "assay_confidence_count"))
            ]
        print("GET /metrics ->\n  " + "\n  ".join(lines))
    finally:
        server.terminate()
        server.wait(timeout=30)


def _keys_create(assay: str, name: str, role: str) -> dict[str, Any]:
    done = subprocess.run(
        [assay, "keys", "create", name, "--role", role, "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    created: dict[str, Any] = json.loads(done.stdout)
    print(f"assay keys create {name!r} --role {role} -> key {created['id']}")
    return created


def _wait_ready(base: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise SystemExit("assay serve did not become ready within 120 s")


def _call(
    base: str, method: str, path: str, token: str | None, body: dict[str, Any] | None = None
) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "assay")
