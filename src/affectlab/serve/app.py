"""The REST service (``affectlab serve``): FastAPI under uvicorn.

* ``POST /v1/detect`` ``{"texts": [...]}`` or ``{"text": "..."}``, with optional ``taxonomy`` (ekman, goemotions,
  emocontext), ``context`` (earlier dialogue turns) and ``top_k``: labels and per-label scores per text (on the
  decision's scale, as ``affectlab.detect`` gives them).
* ``POST /v1/open`` ``{"texts": [...]}`` / ``{"text": ...}`` with optional ``lang`` and ``k``: open-ended
  affective states (MASIVE) for each ``<extra_id_N>`` mask.
* ``GET /v1/models``, ``GET /healthz``, the OpenAPI docs at ``/docs``, and a web page at ``/``.

Models are loaded once, at start-up, and shared by every request. Detection runs in FastAPI's worker threads
(the endpoints are plain functions), so CPU-bound work never blocks the event loop. Limits: at most
``max_batch`` texts per request and ``max_chars`` characters per text (413 with a JSON body beyond them); bad
JSON, wrong types, an empty batch and input the detector refuses (an empty text, an unknown taxonomy) give 422;
every error body is ``{"error": message}`` and the server keeps serving.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from affectlab.errors import AffectlabError
from affectlab.versions import __version__

MAX_BATCH = 64
MAX_CHARS = 10_000


class DetectRequest(BaseModel):
    """``texts`` or ``text``; the rest optional."""

    model_config = ConfigDict(extra="forbid")
    texts: list[str] | None = None
    text: str | None = None
    taxonomy: str = "ekman"
    context: list[str] = Field(default_factory=list)
    top_k: int | None = Field(default=None, ge=1)


class OpenRequest(BaseModel):
    """``texts`` or ``text``, optional ``lang`` (en, es; default: detected) and ``k`` terms per mask."""

    model_config = ConfigDict(extra="forbid")
    texts: list[str] | None = None
    text: str | None = None
    lang: str | None = None
    k: int = Field(default=5, ge=1, le=10)


class LimitError(Exception):
    """A request over the service's limits (413)."""


def _texts(request: DetectRequest | OpenRequest, max_batch: int, max_chars: int) -> list[str]:
    if (request.texts is None) == (request.text is None):
        raise AffectlabError('give either "texts" (a list) or "text" (one string)')
    texts = request.texts if request.texts is not None else [request.text or ""]
    if not texts:
        raise AffectlabError('"texts" is empty')
    if len(texts) > max_batch:
        raise LimitError(f"{len(texts)} texts in one request; the limit is {max_batch}")
    for number, text in enumerate(texts, start=1):
        if len(text) > max_chars:
            raise LimitError(f"text {number} has {len(text):,} characters; the limit is {max_chars:,}")
    return texts


def create_app(
    model: str = "default", max_batch: int = MAX_BATCH, max_chars: int = MAX_CHARS, preload: bool = True
) -> FastAPI:
    """The service for the detector ``model`` (``default`` or a saved model directory)."""
    from affectlab.detectors.default import TAXONOMIES
    from affectlab.detectors.detect import detect, get_detector
    from affectlab.openstates.detect import detect_open

    taxonomies = TAXONOMIES if model == "default" else ("(the saved model's labels)",)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> Any:
        if preload:  # load once, before the first request (the heads are cached per process)
            for taxonomy in TAXONOMIES if model == "default" else ("ekman",):
                get_detector(model, taxonomy)
        yield

    app = FastAPI(title="affectlab", version=__version__, lifespan=lifespan,
                  description="Emotion and affect detection in English, Ukrainian and Spanish.")  # fmt: skip

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        return JSONResponse({"error": f"{where or 'body'}: {first.get('msg', 'invalid request')}"}, status_code=422)

    @app.exception_handler(LimitError)
    async def too_large(_request: Request, exc: LimitError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=413)

    @app.exception_handler(AffectlabError)
    async def refused(_request: Request, exc: AffectlabError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=422)

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"model": model, "taxonomies": list(taxonomies), "open_languages": ["en", "es"],
                "limits": {"max_batch": max_batch, "max_chars": max_chars}}  # fmt: skip

    @app.post("/v1/detect")
    def detect_endpoint(request: DetectRequest) -> dict[str, Any]:
        texts = _texts(request, max_batch, max_chars)
        results = detect(texts, taxonomy=request.taxonomy, context=request.context, top_k=request.top_k, model=model)
        return {"model": model, "taxonomy": request.taxonomy, "results": [r.to_dict() for r in results]}

    @app.post("/v1/open")
    def open_endpoint(request: OpenRequest) -> dict[str, Any]:
        texts = _texts(request, max_batch, max_chars)
        results = detect_open(texts, lang=request.lang, k=request.k)
        return {"results": [r.to_dict() for r in results]}

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return resources.files("affectlab.serve").joinpath("page.html").read_text(encoding="utf-8")

    return app
