"""``kill -9`` of the collection service mid-run, and a restart: nothing acknowledged is lost, the restarted service
has the state the file holds, and the crowd finishes with no text over its overlap (issue 44)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time

import httpx
import pytest

from affectlab.annotation.protocol import preset_text
from affectlab.collection.creation import create_project
from affectlab.collection.crowd import CrowdMember, work
from affectlab.collection.log import EventLog, Item
from affectlab.collection.project import Project
from affectlab.collection.reports import progress
from serving import serve_project


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(client, member, acknowledged: list, lock: threading.Lock) -> None:
    """Run ``member``, recording every page the service acknowledged; stop quietly when the service dies."""
    original = client.request

    def request(method, url, **kwargs):
        response = original(method, url, **kwargs)
        if url.endswith("/submit") and response.status_code == 200:
            with lock:
                acknowledged.append(url.split("/")[3])
        return response

    client.request = request
    with contextlib.suppress(httpx.TransportError):
        work(client, member, "emotions")


@pytest.mark.slow
def test_kill_9_mid_run_loses_nothing_acknowledged_and_the_restart_finishes_the_crowd(tmp_path):
    items = [Item(str(i), f"text {i}") for i in range(400)]
    path = tmp_path / "p.sqlite"
    project, owner = create_project(str(path), preset_text("goemotions"), items, {})
    tokens = {f"a{i}": project.invite(f"a{i}") for i in range(4)}
    project.log.close()
    port = free_port()
    acknowledged: list[str] = []
    lock = threading.Lock()

    def crowd():
        members = [CrowdMember(name, token, lambda text, context: {"joy": 1}) for name, token in tokens.items()]
        threads = [threading.Thread(target=run, args=(httpx.Client(base_url=f"http://127.0.0.1:{port}"), m,
                                                       acknowledged, lock)) for m in members]  # fmt: skip
        for thread in threads:
            thread.start()
        return threads

    server = serve_project(path, port)
    threads = crowd()
    while len(acknowledged) < 20:
        time.sleep(0.01)
    os.kill(server.pid, signal.SIGKILL)
    server.wait()
    for thread in threads:
        thread.join()
    reopened = Project(EventLog.open(path))
    submitted = {page.id for page in reopened.state.pages.values() if page.submitted_at is not None}
    assert set(acknowledged) <= submitted  # every page the service said it took is in the file
    server = serve_project(path, port)
    try:
        before = progress(reopened)
        after = httpx.get(f"http://127.0.0.1:{port}/api/owner/progress", headers={"Authorization": f"Bearer {owner}"})
        assert after.json()["stages"] == before
        for thread in crowd():
            thread.join()
    finally:
        server.kill()
        server.wait()
    final = Project(EventLog.open(path))
    counts = final.state.answered
    assert all(counts[("emotions", item.id)] == 3 for item in items)  # every text done, none over its overlap
    pairs = [(a.annotator, a.item) for a in final.state.answers]
    assert len(pairs) == len(set(pairs)) and set(acknowledged) <= {p.id for p in final.state.pages.values()}
