"""Memory of the collection service under requests with random tokens (issue 53): ``affectlab annotate serve`` in
its own process on 127.0.0.1 (a goemotions project of 100 items), then ``--requests`` requests to
``/api/owner/progress``, each with a fresh random bearer token, over one keep-alive connection; the server's
resident memory (VmRSS of /proc/PID/status) after 200 warm-up requests and at the end, and the answers' statuses.

Before issue 53 the rate limiter kept a bucket per raw ``Authorization`` value and never forgot one: 4,000 such
requests took the service from 292 to 528 MB, each with a fresh bucket (none refused). Now an unknown token is
limited by client address and the table holds at most ``MAX_LIMITED`` keys. Pass: end RSS within 20 MiB of the
after-warm-up RSS.

    python benchmarks/collection/collection_token_memory.py [--requests 10000] \
        [--out benchmarks/results/collection_token_memory.json]

Prints the JSON; ``--out`` also writes it (recorded: ``benchmarks/results/collection_token_memory.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

from affectlab.annotation.protocol import preset_text
from affectlab.collection.creation import create_project
from affectlab.collection.log import Item

sys.path.insert(0, str(Path(__file__).parents[1] / "speed"))
sys.path.insert(0, str(Path(__file__).parents[2] / "tests"))
from serve_soak import rss_mib
from serving import serve_project

WARM_UP = 200


def requests_with_random_tokens(client: httpx.Client, n: int) -> Counter[int]:
    """``n`` requests, each with a new random token; how many got each status."""
    statuses: Counter[int] = Counter()
    for _ in range(n):
        token = secrets.token_urlsafe(32)
        statuses[client.get("/api/owner/progress", headers={"Authorization": f"Bearer {token}"}).status_code] += 1
    return statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--port", type=int, default=8793)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    path = Path(tempfile.mkdtemp()) / "p.sqlite"
    items = [Item(str(i), f"text {i}") for i in range(100)]
    project, owner = create_project(str(path), preset_text("goemotions"), items, {})
    project.log.close()
    server = serve_project(path, args.port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{args.port}", timeout=30) as client:
            requests_with_random_tokens(client, WARM_UP)
            warm = rss_mib(server.pid)
            started = time.perf_counter()
            statuses = requests_with_random_tokens(client, args.requests)
            seconds = time.perf_counter() - started
            end = rss_mib(server.pid)
            owner_status = client.get("/api/owner/progress", headers={"Authorization": f"Bearer {owner}"}).status_code
    finally:
        server.terminate()
        server.wait()
    result = {
        "requests": args.requests, "statuses": dict(statuses), "seconds": round(seconds, 1),
        "rss_after_warm_up_mib": warm, "rss_end_mib": end, "growth_mib": round(end - warm, 1),
        "pass": end - warm <= 20, "owner_after": owner_status,
        "machine": f"{platform.machine()}, {len(os.sched_getaffinity(0))} cores", "date": time.strftime("%Y-%m-%d"),
        "command": f"python benchmarks/collection/collection_token_memory.py --requests {args.requests}",
    }  # fmt: skip
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
