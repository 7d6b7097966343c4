"""Load on the collection service (issue 44): 200 simulated annotators at once against `affectlab annotate serve`
(uvicorn in its own process, on this machine) over HTTP, each a thread with its own connection.

The annotators arrive within the first `--arrivals` seconds (3; 0: all in the same instant); each asks for a page,
reads it for 1-3 s (people take 30 s or more: this is a crowd ten times faster
than a real one) and submits it, for `--pages` pages. The project is the `goemotions` preset (pages of 10 texts, 3
answers per text, 2 more where no label has two votes) over 6,000 texts. Reported: p50/p95/p99 of next-page and
submit, requests a second, and the checks: every acknowledged page is in the project file, no text over its
overlap, no annotator with a text twice.

    python benchmarks/collection/collection_load.py [--annotators 200] [--pages 5] \
        [--out benchmarks/results/collection_load.json]

Prints the JSON; ``--out`` also writes it (recorded runs: ``benchmarks/results/collection_load_*.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

from affectlab.annotation.protocol import preset_text
from affectlab.collection.creation import create_project
from affectlab.collection.crowd import CrowdMember, work
from affectlab.collection.log import EventLog, Item
from affectlab.collection.project import Project

sys.path.insert(0, str(Path(__file__).parents[2] / "tests"))
from serving import serve_project

LABELS = ("joy", "sadness", "anger", "fear", "surprise", "disgust", "neutral")


def arrive(delay: float, client: httpx.Client, member: CrowdMember, pages: int) -> None:
    """``member`` arrives after ``delay`` seconds and works ``pages`` pages, reading each for its seconds."""
    time.sleep(delay)
    work(client, member, "emotions", pages, advance=time.sleep)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotators", type=int, default=200)
    parser.add_argument("--pages", type=int, default=5)
    parser.add_argument("--port", type=int, default=8791)
    parser.add_argument(
        "--arrivals", type=float, default=3.0, help="Annotators arrive over this many seconds (0: at once)."
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    path = folder / "p.sqlite"
    project, _ = create_project(
        str(path), preset_text("goemotions"), [Item(str(i), f"text {i}") for i in range(6000)], {}
    )
    tokens = {f"a{i}": project.invite(f"a{i}") for i in range(args.annotators)}
    project.log.close()
    server = serve_project(path, args.port)
    rng = random.Random(0)
    members = [CrowdMember(name, token, lambda text, context: {rng.choice(LABELS[:6]): 1})
               for name, token in tokens.items()]  # fmt: skip
    try:
        started = time.perf_counter()
        threads = []
        for member in members:
            client = httpx.Client(base_url=f"http://127.0.0.1:{args.port}", timeout=60)
            member.seconds = lambda r=random.Random(member.name): r.uniform(1, 3)  # reading a page, then submitting
            arrival = random.Random(f"arrival {member.name}").uniform(0, args.arrivals)
            threads.append(threading.Thread(target=arrive, args=(arrival, client, member, args.pages)))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait()
    final = Project(EventLog.open(path))
    answered = [n for n in final.state.answered.values()]
    pairs = [(a.annotator, a.item) for a in final.state.answers]
    result = {
        "annotators": args.annotators, "pages_each": args.pages, "arrivals_within_s": args.arrivals,
        "seconds": round(seconds, 1),
        "requests_per_second": round(sum(len(m.latencies) for m in members) / seconds, 1),
        "pages_acknowledged": sum(m.pages for m in members),
        "pages_in_file": sum(p.submitted_at is not None for p in final.state.pages.values()),
        "most_answers_to_a_text": max(answered), "repeated_annotator_text": len(pairs) - len(set(pairs)),
        "machine": f"{platform.machine()}, {len(os.sched_getaffinity(0))} cores", "date": time.strftime("%Y-%m-%d"),
    }  # fmt: skip
    for kind in ("next", "submit"):
        ms = np.array([lat for m in members for k, lat in m.latencies if k == kind]) * 1000
        result[kind] = {
            q: round(float(np.percentile(ms, p)), 1) for q, p in (("p50_ms", 50), ("p95_ms", 95), ("p99_ms", 99))
        }
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
