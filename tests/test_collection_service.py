"""The collection service's authorization matrix: every endpoint refused to whoever may not use it, and nothing an
annotator receives names an item, a control task or a known answer (issue 44)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from affectlab.annotation.protocol import preset_text
from affectlab.collection.app import RateLimiter, create_app
from affectlab.collection.creation import create_project
from affectlab.collection.log import EventLog, Item
from affectlab.collection.project import Project

STAGE, LATER = "fear-surprise-disgust", "anger-joy-sadness"
ANNOTATOR_ROUTES = [
    ("GET", "/api/me"), ("GET", "/api/protocol"), ("GET", f"/api/stages/{STAGE}/training"),
    ("GET", f"/api/stages/{STAGE}/exam"), ("POST", f"/api/stages/{STAGE}/next"),
]  # fmt: skip
OWNER_ROUTES = [
    ("GET", "/api/owner/progress"), ("GET", "/api/owner/annotators"), ("POST", "/api/owner/annotators"),
    ("DELETE", "/api/owner/annotators/a"), ("POST", f"/api/owner/stages/{LATER}/open"),
    ("GET", f"/api/owner/stages/{STAGE}/agreement"), ("GET", f"/api/owner/stages/{STAGE}/aggregation"),
    ("POST", "/api/owner/token"),
]  # fmt: skip


@pytest.fixture
def service(tmp_path):
    items = [Item(f"secret-id-{i}", f"text {i}") for i in range(20)] + [Item("control-x", "a plain sentence")]
    gold = {("control-x", "fear"): 1.0, ("control-x", "surprise"): 0.0}
    project, owner = create_project(str(tmp_path / "p.sqlite"), preset_text("emobench-ua"), items, gold)
    client = TestClient(create_app(project, rate=1000, burst=1000))
    tokens = {name: project.invite(name) for name in ("a", "b")}
    return client, project, owner, tokens


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def call(client, method, path, token=None, body=None):
    return client.request(method, path, headers=auth(token) if token else {}, json=body)


def pass_exam(client, project, token):
    call(client, "GET", f"/api/stages/{STAGE}/training", token)
    exam = project.stages[STAGE].exam
    answers = [{"position": i, "labels": {label: 2 for label in ex.labels}, "none": not ex.labels}
               for i, ex in enumerate(exam.examples)]  # fmt: skip
    assert call(client, "POST", f"/api/stages/{STAGE}/exam", token, {"answers": answers}).json()["passed"]


@pytest.mark.slow
@pytest.mark.parametrize(("method", "path"), ANNOTATOR_ROUTES + OWNER_ROUTES)
def test_no_token_and_a_wrong_token_are_refused(service, method, path):
    client, *_ = service
    assert call(client, method, path).status_code == 401
    assert call(client, method, path, "not-a-token").status_code == 401
    refused = call(client, method, path).json()
    assert set(refused) == {"error", "message"} and refused["message"] == {"key": "no_token", "params": {}}


@pytest.mark.parametrize(("method", "path"), OWNER_ROUTES)
def test_an_annotator_cannot_reach_the_owners_endpoints(service, method, path):
    client, _, _, tokens = service
    assert call(client, method, path, tokens["a"], {"name": "x"}).status_code == 403


@pytest.mark.parametrize(("method", "path"), ANNOTATOR_ROUTES)
def test_the_owners_token_is_not_an_annotators(service, method, path):
    client, _, owner, _ = service
    assert call(client, method, path, owner).status_code == 403


def test_annotator_b_cannot_answer_annotator_as_page_and_a_revoked_token_stops(service):
    client, project, owner, tokens = service
    pass_exam(client, project, tokens["a"])
    page = call(client, "POST", f"/api/stages/{STAGE}/next", tokens["a"]).json()
    answers = {"answers": [{"position": i, "labels": {"fear": 1}} for i in range(len(page["items"]))]}
    assert call(client, "POST", f"/api/pages/{page['page']}/submit", tokens["b"], answers).status_code == 404
    assert call(client, "DELETE", "/api/owner/annotators/a", owner).status_code == 200
    assert call(client, "POST", f"/api/pages/{page['page']}/submit", tokens["a"], answers).status_code == 401


def test_work_before_the_exam_and_in_a_closed_stage_is_refused(service):
    client, project, _, tokens = service
    assert call(client, "POST", f"/api/stages/{STAGE}/next", tokens["a"]).status_code == 403
    assert call(client, "GET", f"/api/stages/{STAGE}/exam", tokens["a"]).status_code == 403  # training first
    pass_exam(client, project, tokens["a"])
    assert call(client, "POST", f"/api/stages/{LATER}/next", tokens["a"]).status_code == 403
    assert call(client, "POST", "/api/stages/nope/next", tokens["a"]).status_code == 404


def test_nothing_an_annotator_receives_names_an_item_a_control_or_a_known_answer(service):
    client, project, _, tokens = service
    seen = [call(client, "GET", "/api/protocol", tokens["a"]).json()]
    call(client, "GET", f"/api/stages/{STAGE}/training", tokens["a"])
    seen.append(call(client, "GET", f"/api/stages/{STAGE}/exam", tokens["a"]).json())
    pass_exam(client, project, tokens["a"])
    for _ in range(3):  # the third page, answered at once, is the fast-pages rule's ban
        page = call(client, "POST", f"/api/stages/{STAGE}/next", tokens["a"]).json()
        seen.append(page)
        answers = {"answers": [{"position": i, "labels": {"fear": 1}} for i in range(len(page["items"]))]}
        seen.append(call(client, "POST", f"/api/pages/{page['page']}/submit", tokens["a"], answers).json())
    text = json.dumps(seen) + client.get("/").text
    assert (
        "secret-id" not in text
        and "control-x" not in text
        and "control" not in json.dumps(seen[2:]).replace("control_accuracy", "")
    )
    exam_items = seen[1]["items"]
    assert all(set(item) == {"position", "text"} for item in exam_items)


@pytest.mark.parametrize(
    ("body", "status"),
    [({"answers": "x"}, 422), ({"answers": [{"position": "0"}]}, 422), ({"extra": 1}, 422), (None, 422)],
)
def test_bad_bodies_get_one_line_4xx(service, body, status):
    client, project, _, tokens = service
    pass_exam(client, project, tokens["a"])
    page = call(client, "POST", f"/api/stages/{STAGE}/next", tokens["a"]).json()
    response = call(client, "POST", f"/api/pages/{page['page']}/submit", tokens["a"], body)
    assert response.status_code == status and "\n" not in response.json()["error"]


def test_a_body_too_large_and_too_many_requests_are_refused(tmp_path):
    project, owner = create_project(str(tmp_path / "p.sqlite"), preset_text("goemotions"), [Item("1", "t")], {})
    client = TestClient(create_app(project, rate=0.001, burst=3))
    big = client.post("/api/owner/annotators", headers=auth(owner), content=b"x" * 70_000)
    assert big.status_code == 413
    statuses = [client.get("/api/owner/progress", headers=auth(owner)).status_code for _ in range(5)]
    assert statuses[:3] == [200] * 3 and statuses[-1] == 429


def test_every_answer_carries_the_security_headers(service):
    client, *_ = service
    for response in (client.get("/"), client.get("/owner"), client.get("/api/me"), client.get("/healthz")):
        assert response.headers["x-frame-options"] == "DENY" and response.headers["referrer-policy"] == "no-referrer"
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_the_pages_scripts_and_styles_are_files_under_a_csp_without_unsafe_inline(service):
    import re

    client, *_ = service
    for page, name in (("/", "annotate"), ("/owner", "owner")):
        response = client.get(page)
        assert "unsafe-inline" not in response.headers["content-security-policy"]
        assert "script-src 'self'" in response.headers["content-security-policy"]
        assert not re.search(r"<script>|<style>|\sstyle=|\son[a-z]+=", response.text)  # nothing inline
        assert f'src="/static/{name}.js"' in response.text and f'href="/static/{name}.css"' in response.text
        script, style = client.get(f"/static/{name}.js"), client.get(f"/static/{name}.css")
        assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
        assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
    assert client.get("/static/app.py").status_code == 404
    assert client.get("/static/..%2Fapp.py").status_code == 404


def test_health_answers_head_as_well_as_get(service):
    client, *_ = service
    assert client.head("/healthz").status_code == 200 and client.get("/healthz").json() == {"status": "ok"}


def test_unknown_tokens_share_their_addresss_limit_and_never_grow_the_limiters_table(tmp_path):
    project, owner = create_project(str(tmp_path / "p.sqlite"), preset_text("goemotions"), [Item("1", "t")], {})
    client = TestClient(create_app(project, rate=0.001, burst=3))
    statuses = [client.get("/api/owner/progress", headers=auth(f"random-{i}")).status_code for i in range(6)]
    assert statuses[:3] == [401] * 3 and statuses[3:] == [429] * 3
    assert client.get("/api/owner/progress", headers=auth("x" * 5000)).status_code == 429
    assert client.get("/api/owner/progress", headers=auth(owner)).status_code == 200  # its own bucket
    limiter = RateLimiter(rate=1, burst=2, max_keys=100)
    assert all(limiter.allow(f"key {i}") for i in range(10_000)) and len(limiter) == 100
    assert limiter.allow("key 9999") and not limiter.allow("key 9999")


def test_a_rotated_owner_token_replaces_the_old_one_at_once(service):
    client, project, owner, tokens = service
    new = call(client, "POST", "/api/owner/token", owner).json()["owner_token"]
    assert new != owner and call(client, "GET", "/api/owner/progress", owner).status_code == 401
    assert call(client, "GET", "/api/owner/progress", new).status_code == 200
    assert call(client, "GET", "/api/owner/progress", tokens["a"]).status_code == 403  # annotators unchanged
    reopened = Project(EventLog.open(project.log.path))
    assert reopened.is_owner(new) and not reopened.is_owner(owner)  # the rotation is in the log


def test_every_route_declares_its_answer_in_the_openapi_document(service):
    client, *_ = service
    document = client.get("/openapi.json").json()
    routes = [(path, method, spec) for path, methods in document["paths"].items() for method, spec in methods.items()]
    assert len(routes) >= 16
    for path, method, spec in routes:
        schema = spec["responses"]["200"]["content"]["application/json"]["schema"]
        assert "$ref" in schema, (method, path)  # a named model, not "any JSON"


def catalogue() -> dict[str, dict[str, str]]:
    from importlib.resources import files

    return json.loads(files("affectlab.collection").joinpath("pages", "messages.json").read_text("utf-8"))


def test_every_refusal_an_annotator_can_meet_is_in_every_language_of_the_pages_catalogue():
    import re
    from importlib.resources import files

    messages = catalogue()
    assert set(messages["uk"]) == set(messages["en"]) == set(messages["es"])
    code = "".join(files("affectlab.collection").joinpath(name).read_text("utf-8")
                   for name in ("access.py", "app.py", "project.py"))  # fmt: skip
    raised = set(re.findall(r'"(error_\w+)"', code))
    assert {"error_banned", "error_token", "error_expired"} <= raised
    for key in raised | {f"{key}_until" for key in ("error_banned", "error_paused")}:
        assert key in messages["en"], key
        assert re.findall(r"\{\w+\}", messages["uk"][key]) == re.findall(r"\{\w+\}", messages["en"][key])


def test_a_refusal_names_its_message_and_values_for_the_page(service):
    client, project, _, tokens = service
    before_exam = call(client, "POST", f"/api/stages/{STAGE}/next", tokens["a"]).json()
    assert before_exam["message"]["key"] == "error_exam_first"
    from affectlab.collection.events import Banned

    project.append_events([("a", Banned("by-hand", project.clock() + 86400))])
    refused = call(client, "POST", f"/api/stages/{STAGE}/next", tokens["a"]).json()
    message = refused["message"]
    assert message["key"] == "error_banned_until" and message["params"]["time"] in refused["error"]


def test_a_protocols_own_messages_reach_the_page_and_an_unknown_one_is_refused_in_one_line(tmp_path):
    from affectlab.errors import InputError

    text = preset_text("emobench-ua") + "messages:\n  uk: {title: Розмітка}\n"
    project, _ = create_project(str(tmp_path / "p.sqlite"), text, [Item("1", "text")], {})
    token = project.invite("a")
    assert call(TestClient(create_app(project)), "GET", "/api/protocol", token).json()["messages"] == {
        "uk": {"title": "Розмітка"}
    }
    with pytest.raises(InputError, match=r"messages\.uk: no page message 'titel'") as refused:
        create_project(str(tmp_path / "q.sqlite"), text.replace("title:", "titel:"), [Item("1", "text")], {})
    assert "\n" not in str(refused.value)
