"""Schema-based fuzzing of the REST service: schemathesis generates requests from the app's own ``/openapi.json``
(schema-valid and schema-invalid bodies, other methods, the coverage phase's boundary cases) and sends them to the
app in-process through ASGI; every response must pass ``serve_fuzzing.CHECKS`` (no 5xx; documented status codes,
content types and bodies; 4xx for schema-invalid requests; every 4xx a JSON ``{"error": ...}``). Hand-built bodies
go through the same checks: well-formed requests with any Unicode text must be answered 200, awkward ones (lone
surrogates, odd sentinels) 200 or 422.

A few examples per operation keep this quick in CI; ``benchmarks/robustness/serve_fuzz.py`` runs thousands. The bugs it
found have example-based regression tests in ``tests/test_serve.py``."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
pytest.importorskip("schemathesis")

import schemathesis
from hypothesis import HealthCheck, given, settings

from serve_fuzzing import BODIES, CHECKS, check_answer, load_schema

MAX_EXAMPLES = 15
"""Generated examples per operation (fuzzing phase, after the coverage phase's deterministic cases) and per kind of
hand-built body: about 10 s in all on 2 cores."""
QUICK = settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def served_schema():
    return load_schema()


schema = schemathesis.pytest.from_fixture("served_schema")


@pytest.mark.slow
@schema.parametrize()
@QUICK
def test_every_response_is_documented_and_no_request_is_a_server_error(case):
    case.call_and_validate(checks=CHECKS)


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "path"), [(kind, path) for kind in BODIES for path in BODIES[kind]])
def test_well_formed_requests_are_answered_and_awkward_ones_at_most_refused(served_schema, kind, path):
    operation = served_schema[path]["POST"]

    @QUICK
    @given(body=BODIES[kind][path])
    def answered(body):
        case = operation.Case(body=body, media_type="application/json")
        check_answer(kind, body, case.call_and_validate(checks=CHECKS))

    answered()
