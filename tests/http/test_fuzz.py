"""B4 fuzzing: every /v1 operation of the OpenAPI document with generated bodies,
parameters and headers; none may answer 5xx, and every refusal names what was wrong.

A brief run (a few examples an operation) is part of the default suite; ``make
test-long`` sets ``ASSAY_FUZZ_EXAMPLES`` for the long one (>= 10,000 requests).
"""

from __future__ import annotations

import itertools
import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from tests.e2e.conftest import demo_db  # noqa: F401  (the module-scoped fixture)
from tests.http.conftest import Service

EXAMPLES = int(os.environ.get("ASSAY_FUZZ_EXAMPLES", "4"))


@pytest.fixture(scope="module")
def api_schema(service: Service) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", service.client.app)


def test_b4_no_generated_request_gets_a_server_error(api_schema: Any, service: Service) -> None:
    """Every operation, generated with an admin's key so that every route runs its own
    validation: no 5xx, and every JSON refusal carries a message. Valid inputs (positive)
    and inputs that break the schema on purpose (negative) alike."""
    headers = service.headers("admin")
    counts: dict[str, int] = {}
    operations = [result.ok() for result in api_schema.get_all_operations()]
    for operation, mode in itertools.product(operations, GenerationMode):
        label = operation.label
        inputs = list(operation.iter_parameters()) or operation.get_request_payload_content_types()
        if mode is GenerationMode.NEGATIVE and not inputs:
            continue  # nothing to break on purpose

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=EXAMPLES <= 10,  # the brief run is the same every time
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        def call(case: Any) -> None:
            response = case.call(headers=headers)
            counts[label] = counts.get(label, 0) + 1  # noqa: B023  (called at once, below)
            assert response.status_code < 500, (label, response.text[:500])  # noqa: B023
            if response.status_code >= 400 and "json" in response.headers.get("content-type", ""):
                assert response.json()["error"]["message"]

        call()
    assert len(counts) == len(operations)
    print(f"\nfuzz: {sum(counts.values())} requests over {len(counts)} operations")
