"""``/healthz`` latency while ``affectlab serve`` is loaded with detections (issue 30): the server runs as its own
process on loopback (``--concurrency 1``, its default, unless ``--concurrency``); ``--detections`` requests (default
200) of ``--texts-per-request`` texts each (default 3, drawn with seed 0 from the uk, en and es test texts of
``benchmarks/speed/serve_load.py``) are posted at once, and while they are in flight a ``GET /healthz`` and a ``HEAD
/healthz`` are started every ``--probe-every`` seconds (default 0.25, each on its own connection, none waiting for
the one before). Reports the median, 95th percentile and maximum latency and the statuses of each method's probes,
the detections in flight (sent, not yet answered) when each probe started, and the detections' statuses and wall
time; JSON to benchmarks/results/serve_health_under_load.json (``--out``).

``--python`` runs the server with another interpreter, i.e. another checkout's code (the clients stay in this
one), to measure the code before a change:

    pip install -e ".[serve,bench]"
    python benchmarks/speed/serve_health_under_load.py --data-dir ../shared/data
    python benchmarks/speed/serve_health_under_load.py --data-dir ../shared/data --python ../venv-before/bin/python \\
        --out benchmarks/results/serve_health_under_load_before.json
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from serve_load import RESULTS, load_texts, machine, serving

PERCENTILES = (("median", 50), ("p95", 95), ("max", 100))


def affectlab_source(python: str) -> str:
    """Where ``python`` imports affectlab from (which checkout the server runs)."""
    command = [python, "-c", "import affectlab; print(affectlab.__file__)"]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def request_bodies(texts: list[str], detections: int, per_request: int) -> list[dict[str, Any]]:
    """``detections`` bodies of ``per_request`` texts each, drawn from ``texts`` (seed 0)."""
    rng = random.Random(0)
    return [{"texts": rng.sample(texts, per_request)} for _ in range(detections)]


async def under_load(url: str, bodies: list[dict[str, Any]], probe_every: float) -> dict[str, Any]:
    """Post every body at once; start a GET and a HEAD ``/healthz`` every ``probe_every`` seconds until all are
    answered. Each probe: method, status (or the exception's name), latency and detections in flight at its start."""
    in_flight = [0]
    statuses: list[str] = []
    probes: list[dict[str, Any]] = []
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)  # one connection per request
    async with (
        httpx.AsyncClient(timeout=300, limits=limits) as detecting,
        httpx.AsyncClient(timeout=300, limits=limits) as probing,
    ):

        async def detect(body: dict[str, Any]) -> None:
            in_flight[0] += 1
            try:
                statuses.append(str((await detecting.post(f"{url}/v1/detect", json=body)).status_code))
            except httpx.HTTPError as exc:
                statuses.append(type(exc).__name__)
            finally:
                in_flight[0] -= 1

        async def probe(method: str) -> None:
            started, flying = time.perf_counter(), in_flight[0]
            try:
                status = str((await probing.request(method, f"{url}/healthz")).status_code)
            except httpx.HTTPError as exc:
                status = type(exc).__name__
            probes.append({"method": method, "status": status, "ms": (time.perf_counter() - started) * 1000,
                           "in_flight": flying})  # fmt: skip

        started = time.perf_counter()
        loading = [asyncio.create_task(detect(body)) for body in bodies]
        probing_tasks = []
        await asyncio.sleep(probe_every)  # the detections connect and reach the server first
        while in_flight[0]:
            probing_tasks += [asyncio.create_task(probe("GET")), asyncio.create_task(probe("HEAD"))]
            await asyncio.sleep(probe_every)
        await asyncio.gather(*loading, *probing_tasks)
    return {"seconds": time.perf_counter() - started, "statuses": statuses, "probes": probes}


def probe_summary(probes: list[dict[str, Any]], method: str, at_least: int = 0) -> dict[str, Any]:
    """Latency (median, p95, max) and statuses of one method's probes (those started with ``at_least`` detections in
    flight), and the detections in flight at their start."""
    mine = [p for p in probes if p["method"] == method and p["in_flight"] >= at_least]
    ms = np.array([p["ms"] for p in mine])
    flying = np.array([p["in_flight"] for p in mine])
    return {
        "probes": len(mine),
        "statuses": dict(collections.Counter(p["status"] for p in mine).most_common()),
        **{f"{name}_ms": round(float(np.percentile(ms, q)), 1) if len(ms) else None for name, q in PERCENTILES},
        "in_flight_at_start": {"max": int(flying.max()), "median": float(np.median(flying)), "min": int(flying.min())}
        if len(flying)
        else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--python", default=sys.executable, help="The interpreter that runs the server.")
    parser.add_argument("--detections", type=int, default=200)
    parser.add_argument("--texts-per-request", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--probe-every", type=float, default=0.25)
    parser.add_argument("--out", default=str(RESULTS / "serve_health_under_load.json"))
    args = parser.parse_args()
    bodies = request_bodies(load_texts(args.data_dir), args.detections, args.texts_per_request)
    with serving(args.python, "--concurrency", str(args.concurrency)) as (url, _server):
        httpx.post(f"{url}/v1/detect", json=bodies[0], timeout=120)  # warm up: the first batch's buffers
        run = asyncio.run(under_load(url, bodies, args.probe_every))
    result = {
        "server": {"python": args.python, "affectlab": affectlab_source(args.python), "concurrency": args.concurrency},
        "detections": {
            "requests": args.detections,
            "texts_per_request": args.texts_per_request,
            "statuses": dict(collections.Counter(run["statuses"]).most_common()),
            "seconds": round(run["seconds"], 1),
        },
        "probe_every_s": args.probe_every,
        "healthz": {method: probe_summary(run["probes"], method) for method in ("GET", "HEAD")},
        "healthz_with_190_or_more_in_flight": {
            method: probe_summary(run["probes"], method, at_least=190) for method in ("GET", "HEAD")
        },
        "model": "default (ekman head)",
        "machine": machine(),
        "date": date.today().isoformat(),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
