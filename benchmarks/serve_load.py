"""Load test of ``affectlab serve`` on loopback: 32 concurrent clients for 30 s, each posting one real text per
request to ``/v1/detect`` (the default ekman head) and waiting for the answer before sending the next. Reports
requests/s, latency percentiles and errors. The server runs as its own process (``affectlab serve``); the clients
are asyncio tasks in this one, so both share the machine's cores.

    pip install -e ".[serve,bench]"
    python benchmarks/serve_load.py --data-dir ../shared/data [--clients 32] [--seconds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import httpx
import numpy as np

from affectlab.datasets import resolve_dataset


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def client(url: str, texts: list[str], until: float, extra: dict, out: list, errors: list, seed: int) -> None:
    """Post one random text at a time until ``until``; latencies of answered requests to ``out``, failures to
    ``errors``."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(timeout=60) as session:
        while time.perf_counter() < until:
            body = {"text": rng.choice(texts), **extra}
            started = time.perf_counter()
            try:
                ok = (await session.post(f"{url}/v1/detect", json=body)).status_code == 200
            except httpx.HTTPError:
                ok = False
            (out if ok else errors).append(time.perf_counter() - started)


async def load(url: str, texts: list[str], clients: int, seconds: float, body: dict) -> tuple[list, list, float]:
    latencies: list[float] = []
    errors: list[float] = []
    started = time.perf_counter()
    until = started + seconds
    await asyncio.gather(*(client(url, texts, until, body, latencies, errors, seed) for seed in range(clients)))
    return latencies, errors, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    texts = []
    for name in ("emobench-ua", "goemotions", "semeval2025-esp"):
        texts += [t for t in resolve_dataset(name, args.data_dir)[1]["test"]["text"][:500] if len(t) <= 500]
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "affectlab", "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
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
        asyncio.run(load(url, texts, 4, 3, {}))  # warm up
        latencies, errors, elapsed = asyncio.run(load(url, texts, args.clients, args.seconds, {}))
    finally:
        server.terminate()
        server.wait(timeout=30)
    ms = np.array(latencies) * 1000
    result = {
        "clients": args.clients,
        "seconds": round(elapsed, 1),
        "requests": len(latencies),
        "errors": len(errors),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "latency_ms": {f"p{q}": round(float(np.percentile(ms, q)), 1) for q in (50, 95, 99)},
        "texts_per_request": 1,
        "model": "default (ekman head)",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": date.today().isoformat(),
    }
    out = Path(__file__).parent / "results" / "serve_load.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
