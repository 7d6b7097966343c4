"""Simulated annotators that work through the running service over HTTP, as people would: for tests, benchmarks and
a user's check of their rules before real people are invited (issue 44).

A :class:`CrowdMember` holds an invite token, a way to answer a text (:data:`Answerer`: the answer's labels, or
None to skip), how many seconds a page takes it and how long it rests after one. :func:`work` runs one member
until the service has no page left for it, stops it (ban, pause, retraining) or ``max_pages`` are done.
``advance``, when given, moves the server's fake clock by the member's seconds before each submission and by its
rest after (the service must run on that clock: :class:`~affectlab.collection.project.Project` takes one), so
rules on time can be simulated in seconds.

The client is anything with httpx's ``request(method, url, headers=..., json=...)`` (``httpx.Client`` with a
``base_url``, or FastAPI's ``TestClient``; typed ``Any``, since their signatures differ in the rest). Members
know what an annotator knows, the page's texts, never item ids.
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Answerer = Callable[[str, Sequence[str]], Mapping[str, int] | None]
"""A text and its context -> the chosen labels with their values ({}: the none choice), or None: skip."""


@dataclass
class CrowdMember:
    """One simulated annotator: its name, token, answers and seconds per page; after :func:`work`, what happened."""

    name: str
    token: str
    answer: Answerer
    seconds: Callable[[], float] = lambda: 30.0
    rest: Callable[[], float] = lambda: 0.0
    pages: int = 0
    status: str = "active"
    latencies: list[tuple[str, float]] = field(default_factory=list)
    """(request kind: ``next``, ``submit`` or ``me``; seconds) of every request made."""


def _call(client: Any, member: CrowdMember, kind: str, method: str, path: str, body: Any = None) -> Any:
    """One request, timed; a 429 (too many requests) waits ``Retry-After`` seconds and asks again, as a polite
    client does."""
    while True:
        started = time.perf_counter()
        response = client.request(method, path, headers={"Authorization": f"Bearer {member.token}"}, json=body)
        member.latencies.append((kind, time.perf_counter() - started))
        if response.status_code != 429:
            return response
        time.sleep(float(response.headers.get("retry-after", "1")))


def work(
    client: Any, member: CrowdMember, stage: str, max_pages: int = 10**9,
    advance: Callable[[float], None] | None = None, has_none: bool = True, other: str | None = None,
) -> CrowdMember:  # fmt: skip
    """Run ``member`` on ``stage`` until no page is left for it, it is stopped, or ``max_pages`` are done; ``other``:
    the protocol's other choice, which the member's answers name like a label (sent as the choice when alone)."""
    while member.pages < max_pages:
        response = _call(client, member, "next", "POST", f"/api/stages/{stage}/next")
        if response.status_code == 403:
            member.status = str(_call(client, member, "me", "GET", "/api/me").json()["status"])
            return member
        page = response.json()
        if page.get("page") is None:
            return member
        answers = [_answer(member, item, has_none, other) for item in page["items"]]
        if advance is not None:
            advance(member.seconds())
        result = _call(client, member, "submit", "POST", f"/api/pages/{page['page']}/submit", {"answers": answers})
        if result.status_code != 200:
            raise RuntimeError(f"{member.name}: the service refused a page: {result.json().get('error')}")
        member.pages += 1
        member.status = str(result.json()["status"])
        if advance is not None:
            advance(member.rest())
        if member.status != "active":
            return member
    return member


def _answer(member: CrowdMember, item: Mapping[str, Any], has_none: bool, other: str | None) -> dict[str, Any]:
    labels = member.answer(item["text"], item.get("context") or [])
    if labels is None:
        return {"position": item["position"], "skip": True}
    chosen = {label: int(value) for label, value in labels.items() if value > 0}
    if other is not None and other in chosen:
        del chosen[other]
        if not chosen:  # the other choice is exclusive: a member naming it beside a label gives the label
            return {"position": item["position"], "other": True}
    if not chosen and not has_none:
        return {"position": item["position"], "skip": True}
    return {"position": item["position"], "labels": chosen, "none": not chosen}


def replayed(ratings: Iterable[tuple[str, Mapping[str, float]]]) -> Answerer:
    """An answerer that gives, for each text, the ratings a real annotator gave it (``(text, {label: value})`` in
    the source's order; a text given twice gets its ratings in that order) and skips a text it never rated."""
    queues: defaultdict[str, deque[Mapping[str, float]]] = defaultdict(deque)
    for text, values in ratings:
        queues[text].append(values)

    def answer(text: str, context: Sequence[str]) -> Mapping[str, int] | None:
        queue = queues.get(text)
        if not queue:
            return None
        return {label: int(value) for label, value in queue.popleft().items()}

    return answer


def replay_protocol_text(name: str, labels: Sequence[str], levels: int, per_item: int, page_size: int = 10) -> str:
    """A protocol (YAML) to replay a released crowd: one stage asking about ``labels``, intensities 1..``levels``
    (none when ``levels`` is 1: presence), a none choice, ``per_item`` answers per text, skips allowed (a member
    skips the texts its real annotator never rated), Dawid-Skene; no training, exam, controls or rules."""
    import yaml

    english = {"en": ""}
    protocol: dict[str, Any] = {
        "format": "affectlab-annotation-protocol", "version": 1, "name": name, "languages": ["any"],
        "interface_languages": ["en"],
        "labels": [{"name": label, "text": {"en": label}} for label in labels],
        "none_choice": {"name": "none", "text": {"en": "none of these"}},
        "page_size": page_size, "overlap": {"per_item": per_item},
        "stages": [{"name": "all", "labels": list(labels), "instructions": english}],
        "aggregation": {"method": "dawid-skene"},
    }  # fmt: skip
    if levels > 1:
        protocol["intensity"] = {"levels": {"en": [str(level) for level in range(1, levels + 1)]}}
    return str(yaml.safe_dump(protocol, allow_unicode=True, sort_keys=False))


def replay_members(annotations: Any, invite: Callable[[str], str]) -> list[CrowdMember]:
    """One member per annotator of released ``annotations`` (:class:`~affectlab.annotation.readers.Annotations`
    with texts), each invited with ``invite(name) -> token`` and answering the ratings its annotator gave."""
    members = []
    for annotator, rows in annotations.frame.groupby("annotator", sort=False):
        ratings = [(annotations.texts[item], dict(zip(group["label"], group["value"], strict=True)))
                   for item, group in rows.groupby("item", sort=False)]  # fmt: skip
        members.append(CrowdMember(str(annotator), invite(str(annotator)), replayed(ratings)))
    return members
