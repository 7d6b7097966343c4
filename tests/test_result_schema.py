"""Each result is declared once (``affectlab.detectors.results``) and the rest derives from it: a result's
``to_dict`` is, byte for byte, the JSON the service answers, and a valid instance of the service's response model;
the Arrow type of its Parquet column holds it; every operation's answer has a model in the OpenAPI schema."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

import pyarrow as pa
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient

from affectlab.detectors import create_detector
from affectlab.detectors.detect import detect
from affectlab.detectors.results import (
    DETECTION,
    OPEN_DETECTION,
    SENTENCE,
    Detection,
    Sentence,
    arrow_type,
    sentences_type,
)
from affectlab.openstates.detect import detect_open
from affectlab.serve.app import create_app
from affectlab.serve.models import response_model
from tiny_models import TOY_SPACE, TOY_TEXTS, TOY_Y

HATE = "I hate you so much, you ruined everything."
MIXED = (
    "I was so happy to see you today, it made my whole week. " * 3
    + "Але потім я дуже засмутилася, бо ти пішов так рано. " * 3
    + "Y luego tuve miedo de que no volvieras nunca más. " * 3
    + "Das war schrecklich und ich war wütend. " * 10
)
"""Over 1,000 characters in four languages: read sentence by sentence, with ``languages`` and ``notes``."""
CASES = {
    "no option": (["Я так чекала на цей день!", "hello"], {}),
    "unsupported language": (["Sono così felice oggi, è una giornata meravigliosa!"], {}),
    "intensity": (["Ich habe solche Angst vor der Prüfung"], {"intensity": True}),
    "sentences": (["Short one. Another one, and I am furious!"], {"sentences": True}),
    "explain": ([HATE], {"explain": True}),
    "explain a label beside": ([HATE], {"explain": ["joy"]}),
    "long, several languages": ([MIXED], {}),
    "long, sentences and intensity": ([MIXED], {"sentences": True, "intensity": True}),
    "every option": (["So glad. Then so scared!", HATE], {"intensity": True, "sentences": True, "explain": True}),
}
EKMAN = ("anger", "disgust", "fear", "joy", "sadness", "surprise", "none")


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(max_chars=2_000)) as served:
        yield served


def without_nulls(value):
    """A JSON value with null members left out (Arrow has a null where the JSON leaves a key out)."""
    if isinstance(value, dict):
        return {key: without_nulls(member) for key, member in value.items() if member is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_a_results_json_is_the_services_answer_its_model_and_its_arrow_type(client, case):
    texts, options = CASES[case]
    rows = [result.to_dict() for result in detect(texts, **options)]

    answer = client.post("/v1/detect", json={"texts": texts, **options})

    assert answer.content == JSONResponse({"model": "default", "taxonomy": "ekman", "results": rows}).body
    model = response_model(DETECTION)
    assert [model.model_validate(row).model_dump(mode="json", exclude_unset=True) for row in rows] == rows
    asked = {"trained languages", *(option for option, value in options.items() if value)}
    arrow = pa.array(rows, type=arrow_type(DETECTION, EKMAN, EKMAN[:-1], asked)).to_pylist()
    for row in arrow:
        row["languages"] = row["languages"] and dict(row["languages"])  # an Arrow map reads back as pairs
    assert without_nulls(arrow) == without_nulls(rows)


def test_supported_is_null_not_left_out_for_a_model_that_does_not_say():
    model = create_detector("keywords", min_count=1).fit(TOY_TEXTS, TOY_Y, TOY_SPACE)
    rows = [result.to_dict() for result in detect(TOY_TEXTS[:2], model=model)]

    with TestClient(create_app(model)) as served:
        answer = served.post("/v1/detect", json={"texts": TOY_TEXTS[:2]})

    assert rows[0]["supported"] is None
    assert answer.content == JSONResponse({"model": model.name, "taxonomy": "ekman", "results": rows}).body


def test_an_open_results_json_is_the_services_answer_and_its_model(client):
    body = {"texts": ["I feel <extra_id_0> and then <extra_id_1>.", "Me siento <extra_id_0>"], "lang": "es", "k": 3}
    rows = [result.to_dict() for result in detect_open(body["texts"], lang="es", k=3)]

    answer = client.post("/v1/open", json=body)

    assert "masks" in rows[0] and "masks" not in rows[1] and rows[0]["notes"]
    assert answer.content == JSONResponse({"results": rows}).body
    model = response_model(OPEN_DETECTION)
    assert [model.model_validate(row).model_dump(mode="json", exclude_unset=True) for row in rows] == rows


@pytest.mark.parametrize(("record", "declared"), [(Detection, DETECTION), (Sentence, SENTENCE)])
def test_every_field_of_a_result_is_declared_once(record, declared):
    names = [key.name for key in declared.keys]
    assert sorted(names) == sorted(field.name for field in dataclasses.fields(record))


def test_the_parquet_sentences_type_is_the_one_written_before_the_declaration():
    span = "list<item: struct<start: int64, end: int64, text: string, weight: double>>"
    assert str(sentences_type(("joy", "none"), [(0, "joy")], True, True, True)) == (
        "list<item: struct<start: int64, end: int64, text: string, labels: list<item: string>, scores: struct<joy: "
        "double, none: double>, lang: string, supported: bool, intensities: struct<joy: int64>, explanation: "
        f"struct<joy: {span}, none: {span}>>>"
    )
    assert str(sentences_type(("joy", "none"), [(0, "joy")], False)).endswith("lang: string>>")


def test_every_answer_has_a_model_in_the_openapi_schema():
    schema = create_app(preload=False).openapi()
    components = schema["components"]["schemas"]

    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            [(media_type, content)] = operation["responses"]["200"]["content"].items()
            if media_type == "text/html":
                assert content["schema"] == {"type": "string"}, (method, path)
                continue
            body = components[content["schema"]["$ref"].removeprefix("#/components/schemas/")]
            assert body["properties"] and body["additionalProperties"] is False, (method, path)
    assert set(schema["paths"]) == {"/", "/healthz", "/v1/models", "/v1/detect", "/v1/open"}
    assert components["Detection"]["required"] == ["text", "labels", "scores", "lang", "supported"]
    assert {"type": "null"} in components["Detection"]["properties"]["supported"]["anyOf"]
    assert components["Sentence"]["properties"]["supported"] == {
        "type": "boolean", "title": "Supported",
        "description": "Whether the model was trained on its language (for a model that says)",
    }  # fmt: skip
