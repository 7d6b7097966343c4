"""The REST service (``affectlab serve``): FastAPI under uvicorn.

* ``POST /v1/detect`` ``{"texts": [...]}`` or ``{"text": "..."}``, with optional ``taxonomy`` (ekman, goemotions,
  emocontext), ``context`` (earlier dialogue turns), ``top_k``, ``lang``, ``intensity``, ``sentences`` (each
  text's sentences scored alone: the arc the web page draws) and ``explain`` (true, or a list of labels to explain
  beside the given ones: each label's words and their weights, which the web page tints): labels and per-label
  scores per text (on the decision's scale, as ``affectlab.detect`` gives them; a long text is read sentence by
  sentence).
* ``POST /v1/open`` ``{"texts": [...]}`` / ``{"text": ...}`` with optional ``lang``, ``k`` and ``states`` (candidate
  states added to the lexicon; ``states_only`` ranks them alone): open-ended affective states (MASIVE) for each
  ``<extra_id_N>`` mask.
* ``GET /v1/models``, ``GET /healthz`` (``HEAD`` too), the OpenAPI docs at ``/docs``, and a web page at ``/``.

Models are loaded once, at start-up, and shared by every request. Detection runs in worker threads, so CPU-bound
work never blocks the event loop, and at most ``concurrency`` detections run at once (default 1): the encoder
already uses every core for one batch, so more at once adds no throughput, only memory (ONNX Runtime's buffers for
each batch in flight: 32 clients took the server from 0.3 to 2 GB). A detection waits for its turn on the event loop
(an ``anyio`` capacity limiter of ``concurrency`` tokens), holding no thread, and ``/healthz``, ``/v1/models`` and
``/`` are answered on the event loop itself: they answer at once however many detections are queued (with plain
``def`` endpoints, the queued detections held every worker thread and ``/healthz`` waited 50 s behind 100 of them).
A ``/v1/open`` request with its own ``states`` (up to ``MAX_STATES``, embedded once and kept; 2,000 new ones take
seconds) runs in a lane of its own, one at a time, so it never holds the detection slot the other requests share.

Limits: at most ``max_batch`` texts per request and ``max_chars`` characters per text (413 with a JSON body beyond
them); bad JSON, wrong types (``"2"`` or ``true`` for a number too), strings that are not Unicode text (a lone
surrogate such as ``"\\ud800"``), an empty batch and input the detector refuses (an empty text, an unknown taxonomy)
give 422; a body that cannot be parsed at all (not UTF-8, nested too deep) gives 400. Every error body, 404 and 405
included, is ``{"error": message}`` (the OpenAPI schema documents 400, 413 and 422), and the server keeps serving.
Every answer's body has a model in the OpenAPI schema, derived from the records' one declaration
(:mod:`affectlab.serve.models`).
"""

from __future__ import annotations

from importlib import resources
from typing import Annotated, Any

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException

from affectlab.detectors.base import Detector
from affectlab.detectors.resolve import ModelRef, resolve_detector
from affectlab.errors import AffectlabError, InputError
from affectlab.langid import check_lang
from affectlab.loaded_once import LoadedOnce
from affectlab.openstates.languages import OPEN_LANGS
from affectlab.serve.models import DETECT_RESPONSE, HEALTH_RESPONSE, MODELS_RESPONSE, OPEN_RESPONSE, response_model
from affectlab.versions import __version__
from affectlab.web import add_security, add_static_files

MAX_BATCH = 64
MAX_CHARS = 10_000


def max_body_bytes(max_batch: int, max_chars: int) -> int:
    """The largest body read before it is parsed: every text and as many context turns at their longest, each
    character at its longest JSON escape (12 bytes: an astral character as two \\u escapes), and 1 MiB for the
    rest. Past it a request is a 413 without being read; under it the limits on texts and characters still hold."""
    return 2 * max_batch * max_chars * 12 + 2**20
MAX_STATES = 2_000
"""Candidate states one ``/v1/open`` request may add (each new list is embedded once, then kept)."""
CONCURRENCY = 1


def _unicode(value: str) -> str:
    """JSON can carry a lone surrogate (``"\\ud800"``), which no UTF-8 text holds and the encoders cannot read."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"not Unicode text (a lone surrogate at character {exc.start + 1})") from None
    return value


def _integer(value: Any) -> Any:
    """JSON Schema's integer (2.0 too), not a string or a boolean, which pydantic's lax mode takes ("2", true)."""
    if isinstance(value, str | bool):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


def _states(value: list[str]) -> list[str]:
    """The candidate states as ``affectlab.detect_open`` and ``--states FILE`` check them (one function)."""
    from affectlab.openstates.lexicon import check_states

    try:
        return check_states(value)
    except InputError as exc:
        raise ValueError(str(exc)) from None


Text = Annotated[str, AfterValidator(_unicode)]
States = Annotated[list[Text], Field(min_length=1, max_length=MAX_STATES), AfterValidator(_states)]
Lang = Annotated[str, AfterValidator(check_lang)]
"""A language tag, checked as ``affectlab.detect`` checks it, before the request waits for its turn."""


class DetectRequest(BaseModel):
    """``texts`` or ``text``; the rest optional."""

    model_config = ConfigDict(extra="forbid")
    texts: list[Text] | None = None
    text: Text | None = None
    taxonomy: Text = "ekman"
    context: list[Text] = Field(default_factory=list)
    top_k: Annotated[int | None, BeforeValidator(_integer)] = Field(default=None, ge=1)
    lang: Lang | None = None
    intensity: bool = False
    sentences: bool = False
    explain: StrictBool | list[Text] = False


class OpenRequest(BaseModel):
    """``texts`` or ``text``, optional ``lang`` (en, es; default: detected), ``k`` terms per mask, and ``states``:
    candidate states added to the default lexicon (``states_only``: ranked alone)."""

    model_config = ConfigDict(extra="forbid")
    texts: list[Text] | None = None
    text: Text | None = None
    lang: Lang | None = None
    k: Annotated[int, BeforeValidator(_integer)] = Field(default=5, ge=1, le=10)
    states: States | None = None
    states_only: StrictBool = False

    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`affectlab.openstates.detect.detect_open` that the request gives."""
        return {"lang": self.lang, "k": self.k, "states": self.states, "states_only": self.states_only}


class ErrorBody(BaseModel):
    """What every error answers."""

    error: str


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The body cannot be parsed (not UTF-8, nested too deep)"},
    413: {"model": ErrorBody, "description": "Over the limits: too many texts, or a text too long"},
    422: {"model": ErrorBody, "description": "Invalid request, or input the detector refuses"},
}


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


class ServedModels:
    """What the service serves, each resolved once and held: the default's head per taxonomy (or the one detector
    of a saved folder or object, whatever the request's taxonomy) and the open-state predictor."""

    def __init__(self, model: ModelRef) -> None:
        from affectlab.detectors.default import TAXONOMIES

        self._model = model
        self._default = isinstance(model, str) and model == "default"
        self.taxonomies = TAXONOMIES if self._default else ("(the saved model's labels)",)
        self.name = "default" if self._default else (model.name if isinstance(model, Detector) else str(model))
        # held by this app, not the process: each resolved once, requests asking at once share that one resolve
        self._detectors = LoadedOnce(self._resolve_detector)
        self._open = LoadedOnce(_resolve_open_predictor)

    def load_all(self) -> None:
        """Resolve everything served now."""
        for taxonomy in self.taxonomies if self._default else ("",):
            self.detector(taxonomy)
        self.open_predictor()

    def detector(self, taxonomy: str) -> Detector:
        """The detector that answers ``taxonomy`` (an unknown one is the resolver's one-line error)."""
        return self._detectors(taxonomy if self._default else "")

    def open_predictor(self) -> Any:
        """The embedded open-state predictor behind ``/v1/open``."""
        return self._open()

    def _resolve_detector(self, key: str) -> Detector:
        # a saved folder or object has one detector whatever the taxonomy (key ""): the resolver ignores it then
        return resolve_detector(self._model, key or "ekman")


def _resolve_open_predictor() -> Any:
    from affectlab.openstates.predictors import resolve_predictor

    return resolve_predictor("default")


def _answer_errors(app: FastAPI) -> None:
    """Every refusal as ``{"error": "<one line>"}``: 422 for a bad request or input, 413 past a limit, and the
    status of 404, 405 and 400 (a body that cannot be parsed)."""

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        message = str(first.get("msg", "invalid request")).removeprefix("Value error, ")  # a check of ours
        return JSONResponse({"error": f"{where or 'body'}: {message}"}, status_code=422)

    @app.exception_handler(LimitError)
    async def too_large(_request: Request, exc: LimitError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=413)

    @app.exception_handler(AffectlabError)
    async def refused(_request: Request, exc: AffectlabError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=422)

    @app.exception_handler(HTTPException)  # 404, 405, and 400 for a body that cannot be parsed
    async def http_error(_request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)


def create_app(
    model: ModelRef = "default",
    max_batch: int = MAX_BATCH,
    max_chars: int = MAX_CHARS,
    preload: bool = True,
    concurrency: int = CONCURRENCY,
) -> FastAPI:
    """The service for ``model`` (``default``, a saved model's folder or a detector object), running at most
    ``concurrency`` detections at once. What it serves is resolved once, here (``preload``; else at the first
    request that needs it) and held by the app: no request loads a model."""
    from affectlab.detectors.detect import detect
    from affectlab.openstates.detect import detect_open

    served = ServedModels(model)
    if preload:  # before the server starts: a bad model is one error line, not a failed start
        served.load_all()
    turns = anyio.CapacityLimiter(concurrency)  # a request waiting for its turn waits on the loop, not in a thread
    # a /v1/open request that brings its own states may embed up to MAX_STATES of them first (seconds): it runs in
    # a lane of its own, so it never holds the detection slot that every other request waits for
    state_turns = anyio.CapacityLimiter(1)
    page_html = resources.files("affectlab.serve").joinpath("page.html").read_text(encoding="utf-8")

    # JSONResponse writes the JSON (json.dumps, as affectlab does everywhere): pydantic's own, FastAPI's default
    # with a response model, writes some floats otherwise (2.9e-05 as 0.000029)
    app = FastAPI(title="affectlab", version=__version__, default_response_class=JSONResponse,
                  description="Emotion and affect detection in 28 languages (SemEval-2025 Task 11).")  # fmt: skip

    _answer_errors(app)
    add_security(app, max_body_bytes(max_batch, max_chars))
    add_static_files(app, "affectlab.serve", "", ("page.js", "page.css"))

    @app.head("/healthz", include_in_schema=False)
    @app.get("/healthz", response_model=response_model(HEALTH_RESPONSE))
    async def healthz() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @app.get("/v1/models", response_model=response_model(MODELS_RESPONSE))
    async def models() -> dict[str, Any]:
        return {"model": served.name, "taxonomies": list(served.taxonomies), "open_languages": list(OPEN_LANGS),
                "limits": {"max_batch": max_batch, "max_chars": max_chars, "concurrency": concurrency}}  # fmt: skip

    # exclude_unset: a result's optional keys are left out where its to_dict leaves them out, and a null it
    # writes (a Detection's "supported") stays
    @app.post("/v1/detect", responses=ERRORS, response_model=response_model(DETECT_RESPONSE),
              response_model_exclude_unset=True)  # fmt: skip
    async def detect_endpoint(request: DetectRequest) -> dict[str, Any]:
        texts = _texts(request, max_batch, max_chars)

        def work() -> dict[str, Any]:
            results = detect(
                texts, taxonomy=request.taxonomy, context=request.context, top_k=request.top_k,
                model=served.detector(request.taxonomy), lang=request.lang, intensity=request.intensity,
                sentences=request.sentences, explain=request.explain,
            )  # fmt: skip
            return {"model": served.name, "taxonomy": request.taxonomy, "results": [r.to_dict() for r in results]}

        return await anyio.to_thread.run_sync(work, limiter=turns)

    @app.post("/v1/open", responses=ERRORS, response_model=response_model(OPEN_RESPONSE),
              response_model_exclude_unset=True)  # fmt: skip
    async def open_endpoint(request: OpenRequest) -> dict[str, Any]:
        texts = _texts(request, max_batch, max_chars)

        def work() -> dict[str, Any]:
            results = detect_open(texts, model=served.open_predictor(), **request.options())
            return {"results": [r.to_dict() for r in results]}

        return await anyio.to_thread.run_sync(work, limiter=state_turns if request.states else turns)

    @app.get("/", response_class=HTMLResponse)
    async def page() -> str:
        return page_html

    return app
