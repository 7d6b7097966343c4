"""Schema-based fuzzing of the collection API (issue 44): schemathesis sends requests generated from the service's
own ``/openapi.json``, as the owner and as an annotator who passed the exam; no request may get a 5xx, every 4xx is
a JSON ``{"error": ...}`` line, and a schema-invalid request is refused with a 4xx."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("schemathesis")

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import negative_data_rejection, not_a_server_error, unsupported_method

from affectlab.annotation.protocol import preset_text
from affectlab.collection.app import create_app
from affectlab.collection.creation import create_project
from affectlab.collection.log import Item
from serve_fuzzing import error_body_is_json


def invalid_data_refused(ctx: Any, response: Any, case: Any) -> None:
    """schemathesis' ``negative_data_rejection``, with 413 counted as a refusal: a schema-invalid body that is also
    over the body limit (a list of answers above ``maxItems`` can be) is refused for its size first."""
    if response.status_code != 413:
        negative_data_rejection(ctx, response, case)


CHECKS = [not_a_server_error, invalid_data_refused, unsupported_method, error_body_is_json]
QUICK = settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
STAGE = "fear-surprise-disgust"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    items = [Item(str(i), f"text {i}") for i in range(50)] + [Item("c", "a control")]
    project, owner = create_project(str(folder / "p.sqlite"), preset_text("emobench-ua"), items,
                                    {("c", "fear"): 1.0})  # fmt: skip
    annotator = project.annotator_for(token := project.invite("a"))
    project.training(annotator, STAGE)
    exam = project.stages[STAGE].exam
    answers = [{"position": i, "labels": {label: 2 for label in ex.labels}, "none": not ex.labels}
               for i, ex in enumerate(exam.examples)]  # fmt: skip
    project.take_exam(annotator, STAGE, answers)
    schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(project, rate=1e6, burst=1e6))
    return schema, {"owner": owner, "annotator": token}


schema = schemathesis.pytest.from_fixture("schema_only")


@pytest.fixture(scope="module")
def schema_only(served):
    return served[0]


@pytest.mark.slow
@schema.parametrize()
@QUICK
def test_no_request_is_a_server_error_and_every_refusal_is_one_json_line(case, served):
    for token in (served[1]["owner"], served[1]["annotator"], None):  # each case as each role, and as nobody
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        case.call_and_validate(headers=headers, checks=CHECKS)
