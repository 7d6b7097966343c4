"""EmoBench-UA's quality rules (section 3.3.4) on simulated crowds working through the service (issue 44).

A project with the `emobench-ua` preset's first stage (or `emobench-ua-plus`'s: the same with issue 53's copying
rule; training and exam passed by every member first), 5,000 synthetic texts with known labels and 300 control
tasks. Members of five kinds answer over HTTP (FastAPI's in-process client) on a fake server clock that each page
advances by the member's own time:

* diligent: 35-120 s a page, 1-10 s between pages and a 40-minute break every 20 pages; each label right with
  probability 0.9 when present and 0.97 when absent on ordinary texts, 0.95 and 0.99 on control tasks (chosen to be
  clear cases);
* fast clicker: 4-14 s a page, labels at random;
* skipper: diligent, but skips a whole page 80 % of the time;
* control failer: diligent on ordinary texts, at random on control tasks;
* copier (as `affectlab.annotation.simulation` defines it): 20-45 s a page, gives the answer of the one diligent
  member it copies (drawn from those who started before it) when that member answered the text, else at random;
* colluder (not one of the simulator's kinds; reported apart): like a copier, but copies whichever diligent member
  answered the text first, so it almost always has a good answer to give.

Reported: the share of each bad kind stopped (banned or sent back to training) within its first 10 pages, and the
share of diligent members ever stopped within their 60 pages (a break is not a stop); copiers and colluders together
(issue 53's line).

    python benchmarks/collection/rules_simulation.py [--seeds 3] [--first-seed 0] [--preset emobench-ua]
        [--out benchmarks/results/rules_simulation.json]

Prints the summary; ``--out`` also writes it (recorded: ``benchmarks/results/rules_simulation_*.json``).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path

from fastapi.testclient import TestClient

from affectlab.annotation.protocol import preset_text
from affectlab.collection.app import create_app
from affectlab.collection.creation import create_project
from affectlab.collection.crowd import CrowdMember, work
from affectlab.collection.log import Item

LABELS = ("fear", "surprise", "disgust")
STAGE = "fear-surprise-disgust"
KINDS = {"diligent": 60, "fast-clicker": 20, "skipper": 20, "control-failer": 20, "copier": 20, "colluder": 20}
BAD = ("fast-clicker", "skipper", "control-failer", "copier")
"""The bad kinds of the simulator (:data:`affectlab.annotation.simulation.BEHAVIOURS`), which the acceptance is on."""
BAD_WITHIN, DILIGENT_PAGES = 10, 60


class FakeClock:
    """The server's clock, moved by the members' simulated seconds."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def truths(rng: random.Random, n: int, prefix: str) -> dict[str, frozenset[str]]:
    """Texts with their true labels: about 60 % hold one label, 10 % two, the rest none."""
    found = {}
    for i in range(n):
        draw = rng.random()
        k = 2 if draw < 0.1 else 1 if draw < 0.7 else 0
        found[f"{prefix} text number {i}"] = frozenset(rng.sample(LABELS, k))
    return found


def noisy(truth: frozenset[str], rng: random.Random, sensitivity: float, specificity: float) -> dict[str, int]:
    return {
        label: 2 for label in LABELS if (rng.random() < sensitivity if label in truth else rng.random() >= specificity)
    }


def member_for(kind: str, name: str, token: str, rng: random.Random, truth: dict, controls: set, shared: dict):
    """``shared``: text -> the first diligent answer, and member name -> that member's answers (text -> answer)."""
    """A crowd member of ``kind`` (see the module docstring)."""
    pages = {"count": 0}
    diligent = [key for key in shared if key.startswith("diligent-")]
    source = rng.choice(diligent) if diligent else None

    def answer(text: str, context) -> dict[str, int] | None:
        control = text in controls
        if kind == "fast-clicker" or (kind == "control-failer" and control):
            return {label: 1 for label in LABELS if rng.random() < 0.5}
        if kind in ("copier", "colluder"):
            found = shared.get(text) if kind == "colluder" else shared.get(source, {}).get(text)
            # an empty answer ("no emotion") is copied too (until issue 53 it read as nothing to copy: random)
            return found if found is not None else {label: 1 for label in LABELS if rng.random() < 0.5}
        given = noisy(truth[text], rng, 0.95 if control else 0.9, 0.99 if control else 0.97)
        if kind == "diligent":
            shared.setdefault(text, given)
            shared.setdefault(name, {})[text] = given
        return given

    def seconds() -> float:
        pages["count"] += 1
        if kind == "fast-clicker":
            return rng.uniform(4, 14)
        if kind in ("copier", "colluder"):
            return rng.uniform(20, 45)
        return rng.uniform(35, 120)

    def rest() -> float:
        return 40 * 60 if kind != "fast-clicker" and pages["count"] % 20 == 0 else rng.uniform(1, 10)

    if kind == "skipper":
        inner = answer
        skipping = {"page": -1, "skip": False}

        def answer(text: str, context) -> dict[str, int] | None:
            if skipping["page"] != pages["count"]:
                skipping.update(page=pages["count"], skip=rng.random() < 0.8)
            return None if skipping["skip"] else inner(text, context)

    return CrowdMember(name, token, answer, seconds, rest)


def simulate(seed: int, control_share: float | None = None, preset: str = "emobench-ua") -> dict:
    rng = random.Random(seed)
    truth = {**truths(rng, 5000, "plain"), **truths(rng, 300, "control")}
    controls = {text for text in truth if text.startswith("control")}
    ids = {text: f"t{i}" for i, text in enumerate(truth)}
    gold = {(ids[text], label): float(label in truth[text]) for text in controls for label in LABELS}
    clock = FakeClock()
    folder = Path(tempfile.mkdtemp())
    text = preset_text(preset)
    if control_share is not None:
        text = text.replace("\n  share: 0.2", f"\n  share: {control_share}")  # controls.share
    project, _ = create_project(str(folder / "p.sqlite"), text,
                                [Item(ids[t], t) for t in truth], gold, seed=seed, clock=clock)  # fmt: skip
    client = TestClient(create_app(project, rate=1e6, burst=1e6))
    shared: dict[str, dict[str, int]] = {}
    order = [kind for kind, n in KINDS.items() for _ in range(n)]
    rng.shuffle(order)
    results: dict[str, list[int | None]] = {kind: [] for kind in KINDS}
    for number, kind in enumerate(order):
        name = f"{kind}-{number}"
        token = project.invite(name)
        pass_exam(client, project, token)
        member = member_for(kind, name, token, rng, truth, controls, shared)
        limit = DILIGENT_PAGES if kind == "diligent" else BAD_WITHIN
        work(client, member, STAGE, max_pages=limit, advance=clock.advance)
        while member.status == "paused":  # a break is not a stop: back to work after it
            clock.advance(30 * 60)
            member.status = "active"
            work(client, member, STAGE, max_pages=limit, advance=clock.advance)
        results[kind].append(member.pages if member.status in ("banned", "retrain") else None)
    return results


def pass_exam(client: TestClient, project, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    client.get(f"/api/stages/{STAGE}/training", headers=headers)
    answers = [{"position": i, "labels": {label: 2 for label in ex.labels}, "none": not ex.labels}
               for i, ex in enumerate(project.stages[STAGE].exam.examples)]  # fmt: skip
    client.post(f"/api/stages/{STAGE}/exam", headers=headers, json={"answers": answers})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0, help="Seeds from this one (held-out seeds: 100).")
    parser.add_argument("--preset", default="emobench-ua", help="emobench-ua (the paper's rules) or emobench-ua-plus.")
    parser.add_argument("--control-share", type=float, default=None, help="Instead of the preset's share.")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    pooled: dict[str, list[int | None]] = {kind: [] for kind in KINDS}
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    for seed in seeds:
        for kind, stops in simulate(seed, args.control_share, args.preset).items():
            pooled[kind] += stops
    summary = {}
    for kind, stops in pooled.items():
        stopped = [s for s in stops if s is not None]
        summary[kind] = {"members": len(stops), "stopped": len(stopped), "share_stopped": len(stopped) / len(stops),
                         "pages_when_stopped": sorted(stopped)}  # fmt: skip
    bad = [s for kind in BAD for s in pooled[kind]]
    stopped_bad = sum(s is not None for s in bad)
    summary["the simulator's bad kinds"] = {"members": len(bad), "share_stopped": stopped_bad / len(bad)}
    copying = pooled["copier"] + pooled["colluder"]
    stopped_copying = sum(s is not None for s in copying)
    summary["copiers and colluders"] = {"members": len(copying), "share_stopped": stopped_copying / len(copying)}
    print(json.dumps(summary, indent=1))
    if args.out:
        args.out.write_text(
            json.dumps(
                {
                    "settings": {
                        "kinds": KINDS,
                        "seeds": seeds,
                        "control_share": args.control_share,
                        "preset": args.preset,
                    },
                    **summary,
                },
                indent=1,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
