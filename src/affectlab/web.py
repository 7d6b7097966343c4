"""The web contract both services keep (the detection service, :mod:`affectlab.serve`, and the collection service,
:mod:`affectlab.collection.app`): one error shape, ``{"error": "<one line>"}`` with its status; the same security
headers on every answer; a body limit before anything is parsed; and the pages' scripts and styles served as files,
so the Content-Security-Policy allows nothing inline. FastAPI and Starlette are imported where used: the core
imports without the ``serve`` extra."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'",
}
"""Sent with every answer: no sniffing, no framing, no referrer (a token must never travel in one), nothing cached
(answers are a user's own), scripts and styles only as the service's own files (none inline)."""
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".json": "application/json"}


def error_response(
    status: int, message: str, headers: Mapping[str, str] | None = None, key: str | None = None,
    params: Mapping[str, str] | None = None,
) -> Any:  # fmt: skip
    """The one error shape: ``{"error": message}`` with ``status`` (a 429 says when to come back); with ``key``,
    also ``"message": {"key", "params"}``, which a page shows from its own catalogue in the reader's language."""
    from fastapi.responses import JSONResponse

    extra = {"Retry-After": "1", **(headers or {})} if status == 429 else dict(headers or {})
    body: dict[str, Any] = {"error": message}
    if key is not None:
        body["message"] = {"key": key, "params": dict(params or {})}
    return JSONResponse(body, status_code=status, headers=extra or None)


def add_security(app: Any, max_body: int) -> None:
    """On every request of ``app``: a body over ``max_body`` bytes refused with 413 before it is parsed, and
    :data:`SECURITY_HEADERS` on every answer."""
    from fastapi import Request

    @app.middleware("http")
    async def secured(request: Request, call_next: Any) -> Any:
        response = await _within_limit(request, call_next, max_body)
        response.headers.update(SECURITY_HEADERS)
        return response


async def _within_limit(request: Any, call_next: Any, max_body: int) -> Any:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > max_body):
        return error_response(413, f"a request body holds at most {max_body:,} bytes")
    unsized = length is None and request.method in ("POST", "PUT", "PATCH", "DELETE")
    if unsized and len(await request.body()) > max_body:
        return error_response(413, f"a request body holds at most {max_body:,} bytes")
    return await call_next(request)


def add_static_files(app: Any, package: str, folder: str, names: tuple[str, ...]) -> None:
    """Serve the files ``names`` of ``package``'s ``folder`` ("": the package's own) under ``/static/NAME``, and
    nothing else (any other name is a 404 in the error shape)."""
    from fastapi.responses import Response

    @app.get("/static/{name}", include_in_schema=False)
    def static_file(name: str) -> Any:
        if name not in names:
            return error_response(404, f"no file {name!r}")
        root = resources.files(package)
        text = (root.joinpath(folder) if folder else root).joinpath(name).read_text("utf-8")
        return Response(text, media_type=MEDIA_TYPES[name[name.rfind("."):]])
