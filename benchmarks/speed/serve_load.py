"""Load test of ``affectlab serve`` on loopback: 32 concurrent clients for 30 s, each posting one real text per
request to ``/v1/detect`` (the default ekman head) and waiting for the answer before sending the next. Reports
requests/s, latency percentiles and errors (count and kinds). The server runs as its own process
(``affectlab serve``); the clients are asyncio tasks in this one, so both share the machine's cores.
``benchmarks/speed/serve_soak.py`` runs the same clients for minutes and watches the server's memory.

    pip install -e ".[serve,bench]"
    python benchmarks/speed/serve_load.py --data-dir ../shared/data [--clients 32] [--seconds 30] [--out FILE]

Writes ``benchmarks/results/serve_load.json`` (or ``--out``) and prints it.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import platform
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from affectlab.datasets import resolve_dataset

RESULTS = Path(__file__).parents[1] / "results"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def load_texts(data_dir: str) -> list[str]:
    """The first 500 test texts of EmoBench-UA, GoEmotions and SemEval-2025 esp, those of at most 500 characters."""
    texts = []
    for name in ("emobench-ua", "goemotions", "semeval2025-esp"):
        texts += [t for t in resolve_dataset(name, data_dir)[1]["test"]["text"][:500] if len(t) <= 500]
    return texts


@contextmanager
def serving(python: str = sys.executable, *options: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """``affectlab serve OPTIONS`` run by ``python`` in its own process on a free loopback port: its URL and
    process, once ``/healthz`` answers; terminated on exit."""
    port = free_port()
    command = [python, "-m", "affectlab", "serve", "--host", "127.0.0.1", "--port", str(port), *options]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 180
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.time() > deadline or server.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.5)
        yield url, server
    finally:
        server.terminate()
        server.wait(timeout=30)


async def client(url: str, texts: list[str], until: float, extra: dict, out: list, errors: list, seed: int) -> None:
    """Post one random text at a time until ``until``; latencies of answered requests to ``out``, the kind of each
    failure (``HTTP <status>`` or the exception's name) to ``errors``."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(timeout=60) as session:
        while time.perf_counter() < until:
            body = {"text": rng.choice(texts), **extra}
            started = time.perf_counter()
            try:
                status = (await session.post(f"{url}/v1/detect", json=body)).status_code
                error = None if status == 200 else f"HTTP {status}"
            except httpx.HTTPError as exc:
                error = type(exc).__name__
            if error is None:
                out.append(time.perf_counter() - started)
            else:
                errors.append(error)


async def load(url: str, texts: list[str], clients: int, seconds: float, body: dict) -> tuple[list, list, float]:
    latencies: list[float] = []
    errors: list[str] = []
    started = time.perf_counter()
    until = started + seconds
    await asyncio.gather(*(client(url, texts, until, body, latencies, errors, seed) for seed in range(clients)))
    return latencies, errors, time.perf_counter() - started


def summary(latencies: list[float], errors: list[str], elapsed: float) -> dict[str, Any]:
    """Requests answered, errors (count and kinds), requests/s and latency percentiles."""
    ms = np.array(latencies) * 1000
    return {
        "requests": len(latencies),
        "errors": len(errors),
        "error_kinds": dict(collections.Counter(errors).most_common()),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "latency_ms": {f"p{q}": round(float(np.percentile(ms, q)), 1) if len(ms) else None for q in (50, 95, 99)},
    }


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--out", default=str(RESULTS / "serve_load.json"))
    args = parser.parse_args()
    texts = load_texts(args.data_dir)
    with serving() as (url, _server):
        asyncio.run(load(url, texts, 4, 3, {}))  # warm up
        latencies, errors, elapsed = asyncio.run(load(url, texts, args.clients, args.seconds, {}))
    result = {
        "clients": args.clients,
        "seconds": round(elapsed, 1),
        **summary(latencies, errors, elapsed),
        "texts_per_request": 1,
        "model": "default (ekman head)",
        "machine": machine(),
        "date": date.today().isoformat(),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
