"""Soak test of ``affectlab serve`` on loopback: the load test's clients (``benchmarks/speed/serve_load.py``: 32 asyncio
clients, each posting one real text per request to ``/v1/detect``, the default ekman head, and waiting for the
answer) for a bounded ``--duration`` (default 600 s) after a ``--warmup`` (default 30 s, same clients), against
``affectlab serve`` in its own process on 127.0.0.1. Records errors (count and kinds), latency p50/p95/p99 and
requests/s, overall and per interval, and the server process's resident memory (VmRSS of /proc/PID/status) at
start, after the warm-up, every ``--interval`` seconds (default 30) and at the end.

Pass: no request failed, and the end RSS is at most the after-warm-up RSS + 50 MiB (``--rss-bound-mib``); the
script exits 1 otherwise. Results to benchmarks/results/serve_soak.json (``--out``).

    pip install -e ".[serve,bench]"
    python benchmarks/speed/serve_soak.py --data-dir ../shared/data [--duration 600] [--clients 32] [--interval 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from datetime import date
from pathlib import Path
from typing import Any

from serve_load import RESULTS, client, load, load_texts, machine, serving, summary


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (VmRSS of /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)  # kB
    raise RuntimeError(f"no VmRSS for process {pid}")


async def soak(url: str, pid: int, texts: list[str], clients: int, duration: float, interval: float) -> dict[str, Any]:
    """The clients for ``duration`` seconds, with a sample of RSS, requests, errors and latency every
    ``interval`` seconds (latencies of the requests answered in that interval)."""
    latencies: list[float] = []
    errors: list[str] = []
    samples: list[dict[str, Any]] = []
    started = time.perf_counter()
    until = started + duration

    async def sampler() -> None:
        seen_latencies = seen_errors = 0
        last = started
        while (now := time.perf_counter()) < until:
            await asyncio.sleep(min(interval - (now - started) % interval, until - now))
            now = time.perf_counter()
            window = summary(latencies[seen_latencies:], errors[seen_errors:], now - last)
            samples.append({"t_s": round(now - started, 1), "rss_mib": rss_mib(pid), **window})
            seen_latencies, seen_errors, last = len(latencies), len(errors), now

    await asyncio.gather(sampler(), *(client(url, texts, until, {}, latencies, errors, s) for s in range(clients)))
    elapsed = time.perf_counter() - started
    return {"seconds": round(elapsed, 1), **summary(latencies, errors, elapsed), "intervals": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--duration", type=float, default=600, help="seconds of load after the warm-up")
    parser.add_argument("--warmup", type=float, default=30, help="seconds of load before the baseline RSS")
    parser.add_argument("--interval", type=float, default=30, help="seconds between RSS samples")
    parser.add_argument("--rss-bound-mib", type=float, default=50, help="allowed end RSS over the after-warm-up RSS")
    parser.add_argument("--out", default=str(RESULTS / "serve_soak.json"))
    args = parser.parse_args()
    texts = load_texts(args.data_dir)
    with serving() as (url, server):
        rss = {"start": rss_mib(server.pid)}
        asyncio.run(load(url, texts, args.clients, args.warmup, {}))
        rss["after_warmup"] = rss_mib(server.pid)
        run = asyncio.run(soak(url, server.pid, texts, args.clients, args.duration, args.interval))
        rss["end"] = rss_mib(server.pid)
    samples = [rss["after_warmup"]] + [s["rss_mib"] for s in run["intervals"]] + [rss["end"]]
    rss |= {"peak_sampled": max(samples), "growth_after_warmup": round(rss["end"] - rss["after_warmup"], 1)}
    within = rss["end"] <= rss["after_warmup"] + args.rss_bound_mib
    result = {
        "passed": within and run["errors"] == 0,
        "rss_within_bound": within,
        "rss_bound": f"end RSS <= after-warm-up RSS + {args.rss_bound_mib:g} MiB",
        "rss_mib": rss,
        "clients": args.clients,
        "warmup_s": args.warmup,
        "duration_s": args.duration,
        **run,
        "texts_per_request": 1,
        "model": "default (ekman head)",
        "machine": machine(),
        "date": date.today().isoformat(),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "intervals"}, indent=1))
    for s in run["intervals"]:
        ms = s["latency_ms"]
        print(f"{s['t_s']:>7} s  RSS {s['rss_mib']:>7} MiB  {s['requests_per_s']:>6} req/s  p50 {ms['p50']} ms  "
              f"p99 {ms['p99']} ms  errors {s['errors']}")  # fmt: skip
    raise SystemExit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
