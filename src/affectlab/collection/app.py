"""The collection service (``affectlab annotate serve``): FastAPI over one :class:`~.project.Project`.

Every request but ``/healthz`` (``GET`` and ``HEAD``) and the two pages carries a token, ``Authorization: Bearer
TOKEN``: the owner's (printed once by ``annotate create``) or an annotator's invite (``annotate invite``; stored
hashed, expiring, revocable). An annotator reaches only ``/api/me``, ``/api/protocol``, their stages' training and
exam, their own pages; the owner only ``/api/owner/...``. An annotator is never sent an item's id, whether it is a
control task, a control or exam answer, or another annotator's answer; a page's items are known by their position.

Limits: a body of at most ``MAX_BODY`` bytes (413), ``RATE`` requests a second with bursts of ``BURST`` (429) per
verified token (the owner, each annotator) and, for requests whose token is missing or unknown, per client address;
the limiter's table holds at most ``MAX_LIMITED`` keys (the longest idle forgotten first), and a token longer than
``MAX_TOKEN_CHARS`` is refused before it is looked up, so no client grows the server's memory. Every error is
``{"error": one line}`` with its 4xx status, and one an annotator can meet also ``"message": {"key", "params"}``
(the key of the page's message catalogue, ``pages/messages.json``, which shows it in the reader's language); the
server keeps serving.

Endpoints (annotator): ``GET /api/me``, ``GET /api/protocol``, ``GET /api/stages/{stage}/training``,
``GET|POST /api/stages/{stage}/exam``, ``POST /api/stages/{stage}/next`` (the page, or ``{"page": null}`` when
no item is left), ``POST /api/pages/{page}/submit``. Owner: ``GET /api/owner/progress``, ``GET
/api/owner/annotators``, ``POST /api/owner/annotators`` (an invite), ``POST /api/owner/token`` (a new owner token, the
old one refused from then on), ``DELETE /api/owner/annotators/{name}``
(revoke), ``POST /api/owner/stages/{stage}/open``, ``GET /api/owner/stages/{stage}/agreement`` and
``/aggregation``. Pages: ``/`` (annotators) and ``/owner``.
"""

# No `from __future__ import annotations`: FastAPI reads the dependencies of the routes defined inside
# create_app from their annotations, which must be objects, not strings naming local functions.
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt
from starlette.exceptions import HTTPException

from affectlab.annotation.protocol import MAX_PAGE_SIZE
from affectlab.collection import schemas
from affectlab.collection.project import CollectionError, Project
from affectlab.collection.state import AnnotatorState
from affectlab.errors import AffectlabError
from affectlab.web import add_security, add_static_files, error_response

MAX_BODY = 64_000
RATE, BURST = 20.0, 40.0
MAX_LIMITED = 10_000
"""The most keys (tokens and client addresses) the rate limiter remembers."""
MAX_TOKEN_CHARS = 200
"""The longest token looked up (the tokens given out are 43 characters)."""
MAX_ANSWERS = MAX_PAGE_SIZE


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AnswerIn(_Body):
    """One item's answer: its position on the page, the chosen labels with their intensity (1 without a scale),
    the none choice, the other choice, a skip, a flag."""

    position: StrictInt
    labels: dict[str, StrictInt | None] = Field(default={}, max_length=50)
    none: StrictBool = False
    other: StrictBool = False
    skip: StrictBool = False
    flag: str | None = Field(default=None, max_length=500)


class AnswersIn(_Body):
    """A page's or an exam's answers, one per position."""

    answers: list[AnswerIn] = Field(max_length=MAX_ANSWERS)


class InviteIn(_Body):
    """An annotator to invite and how long the invite lasts (``14d``, ``12h``)."""

    name: str = Field(min_length=1, max_length=100)
    expires: str = Field(default="14d", max_length=20)


class RateLimiter:
    """A token bucket per key: ``rate`` requests a second, bursts of ``burst``; at most ``max_keys`` keys, the one
    used longest ago forgotten first (a key idle for ``burst / rate`` seconds has a full bucket again anyway)."""

    def __init__(self, rate: float = RATE, burst: float = BURST, max_keys: int = MAX_LIMITED) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        """Take one request from ``key``'s bucket (False: none left)."""
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            allowed = tokens >= 1
            self._buckets[key] = (tokens - 1 if allowed else tokens, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
            return allowed

    def __len__(self) -> int:
        return len(self._buckets)


def _error(status: int, message: str, key: str | None = None, params: dict[str, str] | None = None) -> JSONResponse:
    response: JSONResponse = error_response(status, message, key=key, params=params)
    return response


def create_app(project: Project, rate: float = RATE, burst: float = BURST) -> FastAPI:
    """The service over ``project`` (see the module docstring)."""
    app = FastAPI(title="affectlab annotation", version="1", docs_url=None, redoc_url=None)
    limiter = RateLimiter(rate, burst)
    _add_error_handlers(app)
    add_security(app, MAX_BODY)

    async def caller(request: Request) -> Caller:
        """Who sends the request, looked up once, once its sender is within the rate limit (a verified token's
        own, else the client address's)."""
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        value = value.strip()
        found = _caller(project, value) if scheme.lower() == "bearer" and 0 < len(value) <= MAX_TOKEN_CHARS else None
        client = request.client.host if request.client is not None else "unknown"
        if not limiter.allow(found.key if found is not None else f"address {client}"):
            raise CollectionError("too many requests; slow down", 429, "error_rate")
        if scheme.lower() != "bearer" or not value:
            raise CollectionError("a token is needed (Authorization: Bearer TOKEN)", 401, "no_token")
        if found is None:
            raise CollectionError("unknown, revoked or expired token", 401, "error_token")
        return found

    async def annotator(who: Annotated[Caller, Depends(caller)]) -> AnnotatorState:
        if who.annotator is None:
            raise CollectionError("this is the owner's token, not an annotator's", 403, "error_owner_token")
        return who.annotator

    async def owner(who: Annotated[Caller, Depends(caller)]) -> None:
        if not who.owner:
            raise CollectionError("the owner's token is needed", 403)

    _annotator_routes(app, project, annotator)
    _owner_routes(app, project, owner)
    _pages(app)
    return app


@dataclass(frozen=True)
class Caller:
    """A verified token's holder: the owner, or an annotator (with a live invite)."""

    owner: bool
    annotator: AnnotatorState | None

    @property
    def key(self) -> str:
        """The rate limiter's key: ``owner`` or ``annotator NAME``."""
        return "owner" if self.annotator is None else f"annotator {self.annotator.name}"


def _caller(project: Project, token: str) -> Caller | None:
    """Whose ``token`` is (None: nobody's, or a revoked or expired invite's)."""
    if project.is_owner(token):
        return Caller(owner=True, annotator=None)
    found = project.annotator_for(token)
    return None if found is None else Caller(owner=False, annotator=found)


def _annotator_routes(app: FastAPI, project: Project, annotator: Any) -> None:
    Who = Annotated[AnnotatorState, Depends(annotator)]

    @app.get("/api/me", response_model=schemas.Standing)
    async def me(who: Who) -> dict[str, Any]:
        return project.me(who)

    @app.get("/api/protocol", response_model=schemas.PublicProtocol)
    async def protocol(who: Who) -> dict[str, Any]:
        return _public_protocol(project)

    @app.get("/api/stages/{stage}/training", response_model=schemas.Training)
    async def training(stage: str, who: Who) -> dict[str, Any]:
        return {"examples": project.training(who, stage)}

    @app.get("/api/stages/{stage}/exam", response_model=schemas.Exam)
    async def exam(stage: str, who: Who) -> dict[str, Any]:
        return {"items": project.exam(who, stage)}

    @app.post("/api/stages/{stage}/exam", response_model=schemas.ExamResult)
    async def take_exam(stage: str, body: AnswersIn, who: Who) -> dict[str, Any]:
        return project.take_exam(who, stage, [answer.model_dump() for answer in body.answers])

    @app.post("/api/stages/{stage}/next", response_model=schemas.PageOut)
    async def next_page(stage: str, who: Who) -> dict[str, Any]:
        page = project.next_page(who, stage)
        return page if page is not None else {"page": None, "reason": "no item is left for you in this stage"}

    @app.post("/api/pages/{page}/submit", response_model=schemas.Standing)
    async def submit(page: str, body: AnswersIn, who: Who) -> dict[str, Any]:
        return project.submit(who, page, [answer.model_dump() for answer in body.answers])


def _owner_routes(app: FastAPI, project: Project, owner: Any) -> None:
    from affectlab.collection import gates, reports

    Owner = Depends(owner)

    @app.get("/api/owner/progress", dependencies=[Owner], response_model=schemas.Progress)
    async def progress() -> dict[str, Any]:
        return {"stages": reports.progress(project)}

    @app.get("/api/owner/annotators", dependencies=[Owner], response_model=schemas.Annotators)
    async def annotators() -> dict[str, Any]:
        return {"annotators": reports.annotator_records(project)}

    @app.post("/api/owner/annotators", dependencies=[Owner], response_model=schemas.Invitation)
    async def invite(body: InviteIn) -> dict[str, Any]:
        return {"name": body.name.strip(), "token": project.invite(body.name, body.expires)}

    @app.post("/api/owner/token", dependencies=[Owner], response_model=schemas.OwnerToken)
    async def rotate_owner() -> dict[str, Any]:
        return {"owner_token": project.rotate_owner()}

    @app.delete("/api/owner/annotators/{name}", dependencies=[Owner], response_model=schemas.Revocation)
    async def revoke(name: str) -> dict[str, Any]:
        project.revoke(name)
        return {"name": name, "revoked": True}

    @app.post("/api/owner/stages/{stage}/open", dependencies=[Owner], response_model=schemas.StageOpening)
    def open_stage(stage: str) -> dict[str, Any]:
        return gates.open_stage(project, stage)

    @app.get("/api/owner/stages/{stage}/agreement", dependencies=[Owner], response_model=schemas.Agreement)
    def agreement(stage: str) -> dict[str, Any]:
        return reports.live_agreement(project, project.stage(stage).name)

    @app.get("/api/owner/stages/{stage}/aggregation", dependencies=[Owner], response_model=schemas.AggregationPreview)
    def aggregation(stage: str) -> dict[str, Any]:
        return reports.aggregation_preview(project, project.stage(stage).name)


def _public_protocol(project: Project) -> dict[str, Any]:
    """The protocol as annotators may read it: no exam answers, no control share, no rules' thresholds hidden
    (the rules are shown: annotators are told them)."""
    protocol = project.protocol
    return {
        "name": protocol.name, "interface_languages": protocol.interface_languages,
        "labels": [choice.model_dump() for choice in protocol.labels],
        "none_choice": protocol.none_choice.model_dump() if protocol.none_choice else None,
        "other_choice": protocol.other_choice.model_dump() if protocol.other_choice else None,
        "multi_label": protocol.multi_label,
        "intensity": protocol.intensity.model_dump() if protocol.intensity else None,
        "shows_context": protocol.shows_context, "skip": protocol.skip, "flag": protocol.flag,
        "difficult_flag": protocol.difficult_flag, "page_size": protocol.page_size,
        "stages": [{"name": s.name, "labels": s.labels, "instructions": s.instructions} for s in protocol.stages],
        "rules": [rule.model_dump() for rule in protocol.rules],
        "messages": protocol.messages,
    }  # fmt: skip


STATIC_FILES = ("annotate.js", "owner.js", "annotate.css", "owner.css", "messages.json")
"""The pages' scripts, styles and the annotation page's message catalogues (``pages/``: every word it shows, in
en, uk and es), served under ``/static/`` and nothing else."""


def _pages(app: FastAPI) -> None:
    @app.head("/healthz", include_in_schema=False)
    @app.get("/healthz", response_model=schemas.Health)
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def annotate_page() -> str:
        return resources.files("affectlab.collection").joinpath("pages", "annotate.html").read_text("utf-8")

    @app.get("/owner", response_class=HTMLResponse, include_in_schema=False)
    def owner_page() -> str:
        return resources.files("affectlab.collection").joinpath("pages", "owner.html").read_text("utf-8")

    add_static_files(app, "affectlab.collection", "pages", STATIC_FILES)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(CollectionError)
    async def refused(request: Request, exc: CollectionError) -> JSONResponse:
        return _error(exc.status, str(exc), exc.key, exc.params)

    @app.exception_handler(AffectlabError)
    async def bad_input(request: Request, exc: AffectlabError) -> JSONResponse:
        return _error(422, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        error = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        return _error(422, f"{where}: {error.get('msg')}" if where else str(error.get("msg")))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        response = _error(exc.status_code, str(exc.detail))
        response.headers.update(exc.headers or {})  # a 405 keeps its Allow header (RFC 9110)
        return response


