"""A real OpenAI-compatible chat-completions server on loopback for tests: a threaded stdlib HTTP server on
127.0.0.1 (a free port) whose POSTs go to a test's ``respond(handler, body)``."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Respond = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]


def completion(model: str, content: str) -> dict[str, Any]:
    """A chat-completion response body whose one choice says ``content``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def send_json(
    handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    """Answer with ``payload`` as JSON, HTTP ``status`` and extra ``headers``."""
    data = json.dumps(payload, ensure_ascii=False).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


@contextmanager
def serve(respond: Respond) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Run the server; yields its base URL (``http://127.0.0.1:PORT/v1``) and the list of requests it received
    (each body with its ``path`` and ``authorization`` header added)."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append({"path": self.path, "authorization": self.headers.get("Authorization"), **body})
            respond(self, body)

        def log_message(self, *args: Any) -> None:  # keep pytest's output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", received
    finally:
        server.shutdown()
        server.server_close()
