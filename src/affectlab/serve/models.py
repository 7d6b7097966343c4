"""The service's response models (pydantic, for FastAPI's validation and OpenAPI), derived from the records'
declarations (:mod:`affectlab.detectors.results`): a key written always is required, one written "null if None"
required and nullable, one left out "unless None" or "unless empty" optional (the endpoints leave out the keys a
result leaves out: ``response_model_exclude_unset``). The service's own bodies (around the results, ``/v1/models``,
``/healthz``) are declared here, as records of the same kind."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from affectlab.detectors.results import (
    DETECTION,
    INT,
    OPEN_DETECTION,
    STR,
    Key,
    Keyed,
    ListOf,
    Record,
    Shape,
    Value,
)

DETECT_RESPONSE = Record("DetectResponse", (
    Key("model", STR, "The model that answered"),
    Key("taxonomy", STR, "The taxonomy asked for"),
    Key("results", ListOf(DETECTION), "One result per text, in order"),
))  # fmt: skip
OPEN_RESPONSE = Record("OpenResponse", (Key("results", ListOf(OPEN_DETECTION), "One result per text, in order"),))
MODELS_RESPONSE = Record("ModelsResponse", (
    Key("model", STR, "The model served"),
    Key("taxonomies", ListOf(STR), "The taxonomies /v1/detect answers"),
    Key("open_languages", ListOf(STR), "The languages /v1/open answers"),
    Key("limits", Record("Limits", (
        Key("max_batch", INT, "Texts one request may hold"),
        Key("max_chars", INT, "Characters one text may hold"),
        Key("concurrency", INT, "Detections run at once"),
    )), "The service's limits"),
))  # fmt: skip
HEALTH_RESPONSE = Record("HealthResponse", (
    Key("status", STR, 'Always "ok"'),
    Key("version", STR, "The affectlab version serving"),
))  # fmt: skip

_SCALARS: dict[str, type] = {"int": int, "float": float, "str": str, "bool": bool}


@cache
def response_model(record: Record) -> type[BaseModel]:
    """``record`` as a pydantic model (one class per record, so that a record nested in several is one OpenAPI
    schema); a key it does not declare is refused."""
    fields: dict[str, Any] = {key.name: _field(key) for key in record.keys}
    return create_model(record.name, __config__=ConfigDict(extra="forbid"), **fields)


def _field(key: Key) -> tuple[Any, Any]:
    annotation = _annotation(key.shape)
    if key.written == "always":
        return annotation, Field(description=key.doc)
    if key.written == "null if None":
        return annotation | None, Field(description=key.doc)
    return annotation, Field(default=None, description=key.doc, json_schema_extra=_left_out)


def _left_out(schema: dict[str, Any]) -> None:
    """An optional key is left out, never null: its schema says no default (pydantic's would be null)."""
    schema.pop("default", None)


def _annotation(shape: Shape) -> Any:
    if isinstance(shape, Value):
        return _SCALARS[shape.kind]
    if isinstance(shape, ListOf):
        return list[_annotation(shape.item)]  # type: ignore[misc]
    if isinstance(shape, Keyed):
        return dict[str, _annotation(shape.value)]  # type: ignore[misc]
    return response_model(shape)
