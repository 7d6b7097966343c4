"""``affectlab annotate simulate``: a crowd of simulated annotators (:mod:`affectlab.annotation.simulation`'s
behaviours) works through a project's service, on a simulated clock, answering from known labels: to check a
protocol's rules before anyone is invited, or to walk from a pool to a trained detector without people.

Each member is invited, reads the stage's training and passes its exam with the protocol's own answers (the
simulation knows them; a person learns them), then answers pages from the truth by its behaviour (intensity 2 for
every label it gives, on a scale) until its ``pages`` are done, no text is left for it, or the rules stop it. The
clock starts at the real time and moves by each page's simulated seconds (diligent 35-120 s, fast clicker 4-14 s,
others 20-120 s, and 1-10 s between pages), the members taking a page each in turn; a member paused for a break
goes back to work after it. Everything is logged in the project like real work, so run it on a project made for
trying (or a copy).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from affectlab.annotation.protocol import Protocol, Stage
from affectlab.annotation.simulation import BEHAVIOURS, SimulatedAnnotator
from affectlab.collection.crowd import CrowdMember, work
from affectlab.collection.project import Project
from affectlab.errors import InputError

SECONDS = {"diligent": (35.0, 120.0), "fast-clicker": (4.0, 14.0)}
OTHER_SECONDS = (20.0, 120.0)


class SimulatedClock:
    """A clock that starts at ``start`` and moves only when told."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock on by ``seconds``."""
        self.now += seconds


def parse_crowd(text: str) -> dict[str, int]:
    """``diligent=6,fast-clicker=2`` as ``{behaviour: count}`` (one-line :class:`InputError` otherwise)."""
    crowd: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, count = part.partition("=")
        if name not in BEHAVIOURS or name == "copier" or not count.isdigit() or int(count) < 1:
            kinds = ", ".join(b for b in BEHAVIOURS if b != "copier")
            raise InputError(f"--crowd wants KIND=COUNT pairs like diligent=6,fast-clicker=2 (kinds: {kinds}), "
                             f"not {part!r}")  # fmt: skip
        crowd[name] = crowd.get(name, 0) + int(count)
    if not crowd:
        raise InputError("--crowd names no annotator")
    return crowd


def simulate(
    project: Project, truth: Mapping[str, frozenset[str]], crowd: Mapping[str, int], stage: str, pages: int = 40,
    seed: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """Run ``crowd`` (behaviour -> count) on ``stage`` of ``project``, answering from ``truth`` (item id -> its
    labels); per behaviour, how many members were stopped (banned or sent back to training) and the pages done."""
    from fastapi.testclient import TestClient

    from affectlab.collection.app import create_app

    spec = project.stage(stage)
    if not project.view(lambda view: stage in view.state.stage_items):
        raise InputError(f"stage {stage!r} is not open yet (annotate open-stage)")
    _check_answerable(project, truth, crowd, stage)
    clock = SimulatedClock(project.clock())
    simulated = Project(project.log, clock)  # the same log on the simulated clock, given at construction
    client = TestClient(create_app(simulated, rate=1e9, burst=1e9))
    rng = random.Random(seed)
    by_text = {item.text: item.id for item in simulated.items.values()}
    order = [(behaviour, number) for behaviour, count in crowd.items() for number in range(1, count + 1)]
    rng.shuffle(order)  # the kinds mixed, as in a real crowd
    members = []
    try:
        for behaviour, number in order:
            name = f"simulated-{behaviour}-{number}-{rng.randrange(10**6)}"
            member = _member(simulated, name, SimulatedAnnotator(name, behaviour), truth, by_text, spec, rng)
            _pass_training(client, simulated, member.token, stage)
            members.append((behaviour, member))
        _in_turns(simulated, client, [member for _, member in members], stage, pages, clock)
    finally:
        project.catch_up()  # what the crowd did, in the caller's project too
    outcome: dict[str, Counter[str]] = {}
    for behaviour, member in members:
        tally = outcome.setdefault(behaviour, Counter())
        tally["members"] += 1
        tally["pages"] += member.pages
        tally["stopped"] += member.status in ("banned", "retrain")
    return {behaviour: dict(tally) for behaviour, tally in outcome.items()}


def _in_turns(
    project: Project, client: Any, members: list[CrowdMember], stage: str, pages: int, clock: SimulatedClock
) -> None:
    """The members work a page each in turn, as a crowd works side by side (one after the other, the first
    members would take every text before the last began), until each has its ``pages``, has no page left or is
    stopped; a member paused for a break waits for its end."""
    has_none = project.protocol.none_choice is not None
    other = project.protocol.other_choice.name if project.protocol.other_choice else None
    working = list(members)
    while working:
        for member in list(working):
            done = member.pages
            work(client, member, stage, max_pages=done + 1, advance=clock.advance, has_none=has_none, other=other)
            if member.status == "paused":
                until = project.view(lambda view: view.state.annotators[member.name].paused_until)  # noqa: B023
                clock.now = max(clock.now, until or clock.now)
                member.status = "active"
            elif member.status != "active" or member.pages == done or member.pages >= pages:
                working.remove(member)


def _check_answerable(
    project: Project, truth: Mapping[str, frozenset[str]], crowd: Mapping[str, int], stage: str
) -> None:
    """Refuse, in one line, a crowd that would have to skip where the protocol has no skip: a stage item the truth
    does not cover, or a skipper."""
    if project.protocol.skip:
        return
    items = project.view(lambda view: list(view.state.stage_items[stage]))
    uncovered = [item for item in items if item not in truth]
    if uncovered:
        count = f"{len(uncovered)} item{'s' if len(uncovered) > 1 else ''}"
        raise InputError(f"--truth has no labels for {count} of stage {stage!r} (the first: {uncovered[0]!r}), and "
                         "the protocol has no skip")  # fmt: skip
    if crowd.get("skipper"):
        raise InputError("a skipper skips pages, and the protocol has no skip")


def _member(
    project: Project, name: str, annotator: SimulatedAnnotator, truth: Mapping[str, frozenset[str]],
    by_text: Mapping[str, str], stage: Stage, rng: random.Random,
) -> CrowdMember:  # fmt: skip
    controls = {item for item, _ in project.gold}
    value = 2 if project.protocol.intensity is not None else 1  # the middle of a scale of 3
    labels = project.protocol.rated_labels(stage)

    def answer(text: str, context: Any) -> dict[str, int] | None:
        item = by_text.get(text)
        known = truth.get(item or "")
        if item in controls:
            known = frozenset(label for (it, label), value in project.gold.items() if it == item and value > 0)
        if known is None:
            return None  # a text the truth does not cover: skipped
        given = annotator.answer(stage_truth(project.protocol, stage, known), labels, rng, control=item in controls)
        return None if given is None else {label: value for label in given}

    low, high = SECONDS.get(annotator.behaviour, OTHER_SECONDS)
    return CrowdMember(name, project.invite(name), answer, lambda: rng.uniform(low, high), lambda: rng.uniform(1, 10))


def stage_truth(protocol: Protocol, stage: Stage, known: frozenset[str]) -> frozenset[str]:
    """What a right answer in ``stage`` names for an item whose labels are ``known``: its labels among the stage's,
    and the other choice where the protocol has one and the item holds a label the stage does not ask about."""
    asked = known & set(stage.labels)
    other = protocol.other_choice
    return asked | ({other.name} if other is not None and known - set(stage.labels) else set())


def _pass_training(client: Any, project: Project, token: str, stage: str) -> None:
    spec = project.stages[stage]
    headers = {"Authorization": f"Bearer {token}"}
    if spec.training is not None:
        client.get(f"/api/stages/{stage}/training", headers=headers)
    if spec.exam is not None:
        has_none = project.protocol.none_choice is not None
        answers = [
            {"position": i, "labels": {label: example.intensities.get(label, 1) for label in example.labels},
             "none": has_none and not example.labels, "skip": not example.labels and not has_none}
            for i, example in enumerate(spec.exam.examples)
        ]  # fmt: skip
        client.post(f"/api/stages/{stage}/exam", headers=headers, json={"answers": answers})
