"""Schema fuzzing of the REST service, shared by ``tests/test_serve_fuzz.py`` (a few examples per operation, in CI)
and ``benchmarks/robustness/serve_fuzz.py`` (thousands): the app under test, its OpenAPI schema loaded in-process
through ASGI (no socket), the checks every response must pass, and hand-built request bodies with what their answer must
be: well-formed ones, which schema-valid generation rarely gives (it cannot know that exactly one of ``text`` and
``texts`` is wanted), and awkward ones (lone surrogates, odd sentinels), which it never gives.

Checks enabled, and why:

* ``not_a_server_error``: no request, however malformed, gets a 5xx.
* ``status_code_conformance``: every status is documented (200, and 400/413/422 on the POST operations).
* ``content_type_conformance``: the Content-Type is the documented one (JSON; HTML for ``GET /``).
* ``response_schema_conformance``: bodies match their documented schema (errors: ``{"error": message}``).
* ``negative_data_rejection``: a schema-invalid request (wrong types, extra fields, ``k`` out of range) gets a 4xx.
* ``unsupported_method``: a method the schema does not list gets 405.
* :func:`error_body_is_json` (ours): every 4xx has a JSON body ``{"error": message}``, including 404 and 405.

Left out: ``positive_data_acceptance`` (the schema cannot say "exactly one of text and texts", "not blank", which
taxonomies exist, or the size limits, so schema-valid requests get a documented 422 or 413 by design);
``max_response_time`` (timing, flaky on a shared CI machine); ``missing_required_header``, ``ignored_auth``,
``use_after_free``, ``ensure_resource_availability`` (no auth, no created resources or links).
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from hypothesis import strategies as st
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from affectlab.text import text_problem

LIMITS = {"max_batch": 8, "max_chars": 500}
"""The limits of the app under test: small, so that fuzzed batches stay cheap and often cross them (413)."""


def error_body_is_json(ctx: Any, response: Any, case: Any) -> None:
    """Every 4xx answers ``{"error": message}`` as JSON."""
    if not 400 <= response.status_code < 500:
        return
    content_type = (response.headers.get("content-type") or [""])[0]
    assert content_type.startswith("application/json"), f"{response.status_code} with Content-Type {content_type!r}"
    try:
        body = json.loads(response.content)
    except ValueError:
        raise AssertionError(f"{response.status_code} with a non-JSON body {response.content[:200]!r}") from None
    assert isinstance(body, dict) and isinstance(body.get("error"), str), f"{response.status_code} body {body!r}"


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
    unsupported_method,
    error_body_is_json,
]


def load_schema() -> Any:
    """The service (the default model, as ``tests/test_serve.py`` serves it) and its schema from ``/openapi.json``,
    called in-process through ASGI; loading it runs the app's start-up (the heads are loaded once, about 1 s)."""
    from affectlab.serve.app import create_app

    return schemathesis.openapi.from_asgi("/openapi.json", create_app(**LIMITS))


TEXT = st.text(min_size=1, max_size=LIMITS["max_chars"]).filter(lambda text: not text_problem(text))
"""Any Unicode text within the limit that is not blank (whitespace, zero-width and control characters alone are
refused like an empty text); Hypothesis leaves out lone surrogates."""
MASKED = st.lists(
    st.text(max_size=80).filter(lambda part: not part.strip() or not text_problem(part)), min_size=1, max_size=4
).map(lambda parts: " ".join(f"{part} <extra_id_{i}>" for i, part in enumerate(parts)))
"""A text with one to four sentinels, numbered in order, for the open states. A part between sentinels is blank or
readable: one of only control or zero-width characters is refused (422) where the open states read the words
around a mask, and that refusal numbers the text wrongly (a known bug, in the session note of issue 44)."""
AWKWARD = st.lists(
    st.text(st.characters() | st.characters(categories=["Cs"]), max_size=40)
    | st.sampled_from(["<extra_id_0>", "<extra_id_1>", "<extra_id_00>", "<extra_id_\u0660>", "<extra_id_100>"]),
    min_size=1,
    max_size=8,
).map(" ".join)
"""Texts the service may refuse (422) but must not fail on: lone surrogates, sentinels out of order or written
with a leading zero or a non-ASCII digit, blank texts."""


def bodies(text: st.SearchStrategy[str], masked: st.SearchStrategy[str]) -> dict[str, st.SearchStrategy[dict]]:
    """Per POST path, request bodies with one text or a batch (within the limits) drawn from ``text`` (and
    ``masked`` for the open states), and any of the other fields."""
    batch = st.lists(text, min_size=1, max_size=LIMITS["max_batch"])
    detect = st.one_of(st.builds(lambda t: {"text": t}, text), st.builds(lambda ts: {"texts": ts}, batch))
    open_batch = st.lists(text | masked, min_size=1, max_size=LIMITS["max_batch"])
    open_ = st.one_of(st.builds(lambda t: {"text": t}, text | masked), st.builds(lambda ts: {"texts": ts}, open_batch))
    top_k = st.none() | st.integers(min_value=1, max_value=2**63)
    options = st.one_of(  # context only where the head reads it: the ekman and goemotions heads refuse it (422)
        st.fixed_dictionaries({}, optional={"taxonomy": st.sampled_from(["ekman", "goemotions"]), "top_k": top_k}),
        st.fixed_dictionaries(
            {"taxonomy": st.just("emocontext")}, optional={"context": st.lists(text, max_size=3), "top_k": top_k}
        ),
    )
    return {
        "/v1/detect": st.builds(dict.__or__, detect, options),
        "/v1/open": st.builds(
            dict.__or__,
            open_,
            st.fixed_dictionaries(
                {"lang": st.sampled_from(["en", "es"])}, optional={"k": st.integers(min_value=1, max_value=10)}
            ),
        ),
    }


BODIES = {"well-formed": bodies(TEXT, MASKED), "awkward": bodies(AWKWARD, AWKWARD)}
"""Per kind and POST path: bodies the service must answer with 200 (``lang`` is given, since a detected language
other than English or Spanish is a documented 422), and bodies it must answer with 200 or 422."""


def check_answer(kind: str, body: dict[str, Any], response: Any) -> None:
    """A well-formed request is answered 200 with one result per text; an awkward one that, or a 422."""
    if kind == "awkward" and response.status_code == 422:
        return
    assert response.status_code == 200, f"{response.status_code}: {response.content[:300]!r}"
    texts = body["texts"] if "texts" in body else [body["text"]]
    texts = json.loads(json.dumps(texts))  # as the server reads them: two surrogates may make one pair
    results = json.loads(response.content)["results"]
    assert [result["text"] for result in results] == texts, "the texts answered are not the texts sent"
