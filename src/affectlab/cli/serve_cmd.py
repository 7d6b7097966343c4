"""``affectlab serve``: the REST service and web page under uvicorn."""

from __future__ import annotations

import typer

from affectlab.extras import require


def serve_command(
    model: str = typer.Option("default", "--model", "-m", help="'default' or a saved model directory."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0 for every interface)."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="Port."),
    max_batch: int = typer.Option(64, "--max-batch", min=1, help="Most texts per request (413 beyond)."),
    max_chars: int = typer.Option(10_000, "--max-chars", min=1, help="Most characters per text (413 beyond)."),
    concurrency: int = typer.Option(
        1,
        "--concurrency",
        min=1,
        help="Detections run at once; others wait their turn. One batch already uses every core, so more adds "
        "memory, not speed.",
    ),
) -> None:
    """Serve the REST API and the web page.

    POST /v1/detect, POST /v1/open, GET /v1/models, GET /healthz, the OpenAPI docs at /docs and a web page at /;
    models are loaded once at start-up."""
    uvicorn = require("uvicorn", "serve", "affectlab serve")
    require("fastapi", "serve", "affectlab serve")
    from affectlab.serve.app import create_app

    app = create_app(model, max_batch, max_chars, concurrency=concurrency)
    uvicorn.run(app, host=host, port=port, log_level="info")
