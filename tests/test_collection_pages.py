"""The annotation page and the owner's page in a real headless Chromium (issue 44): an annotator goes through the
instructions, the training, a failed then a passed exam and a page (multi-select, intensity, the none choice, skip,
flag) with the keyboard only; the owner's page shows the progress and a ban."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("selenium")

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as seen
from selenium.webdriver.support.ui import WebDriverWait

from affectlab.collection.app import create_app
from affectlab.collection.creation import create_project
from affectlab.collection.log import Item
from serving import CHROMEDRIVER, CHROMIUM, headless_chromium, running

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER), reason="needs Debian's chromium and chromium-driver (.ci/run installs them)"
)
PROTOCOL = """
format: affectlab-annotation-protocol
version: 1
name: page-test
languages: [en]
interface_languages: [en]
labels:
  - {name: fear, text: {en: Fear}}
  - {name: joy, text: {en: Joy}}
none_choice: {name: none, text: {en: No emotion}}
other_choice: {name: other, text: {en: Another emotion}}
intensity: {levels: {en: [low, normal, high]}}
flag: true
page_size: 2
overlap: {per_item: 2}
rules:
  - {name: fast-pages, window: 1, when: {each_page_faster_than: 1s}, then: {ban: permanent}}
stages:
  - name: first
    labels: [fear, joy]
    instructions: {en: "Choose every emotion the text shows, with its intensity."}
    training:
      examples:
        - {text: "I am so scared of the dark.", labels: [fear], intensities: {fear: 2}, explanation: {en: "Fear."}}
    exam:
      pass_accuracy: 1.0
      examples:
        - {text: "The storm terrifies me.", labels: [fear], intensities: {fear: 3}}
        - {text: "The meeting is at ten.", labels: []}
aggregation: {method: majority}
"""


@pytest.fixture(scope="module")
def browser():
    yield from headless_chromium()


def keys(browser, *sequence: str) -> None:
    for key in sequence:
        ActionChains(browser).send_keys(key).perform()


def send(browser) -> None:
    ActionChains(browser).key_down(Keys.CONTROL).send_keys(Keys.ENTER).key_up(Keys.CONTROL).perform()


def wait_for(browser, selector: str):
    return WebDriverWait(browser, 20).until(seen.presence_of_element_located((By.CSS_SELECTOR, selector)))


@pytest.mark.slow
def test_an_annotator_works_with_the_keyboard_and_the_owner_sees_it(browser, tmp_path):
    items = [Item(str(i), f"Text number {i}.") for i in range(4)]
    project, owner = create_project(str(tmp_path / "p.sqlite"), PROTOCOL, items, {})
    token = project.invite("Olena")
    with running(create_app(project)) as url:
        browser.get(f"{url}/#token={token}")
        wait_for(browser, "#stage-first")
        assert "#token" not in browser.current_url  # the token leaves the address bar at once
        keys(browser, Keys.ENTER)  # the focused button: read the training
        wait_for(browser, "#to-exam")
        assert "Choose every emotion" in browser.find_element(By.CSS_SELECTOR, "pre.instructions").text
        keys(browser, Keys.ENTER)
        wait_for(browser, "section.item")
        keys(browser, "0", "j", "0")  # none, none: the first is wrong
        send(browser)
        wait_for(browser, "#to-exam")
        assert "not passed" in browser.find_element(By.ID, "status").text
        keys(browser, Keys.ENTER)
        wait_for(browser, "section.item")
        keys(browser, "1", "e", "j", "0")  # fear, high; none
        send(browser)
        WebDriverWait(browser, 20).until(lambda b: "Text number" in b.find_element(By.ID, "main").text)
        keys(browser, "1")  # fear without an intensity is refused in the page
        send(browser)
        WebDriverWait(browser, 10).until(lambda b: "intensity" in b.find_element(By.ID, "error").text)
        keys(browser, "0")  # none clears fear and blocks the labels
        first = browser.find_elements(By.CSS_SELECTOR, "section.item")[0]
        fear = first.find_element(By.CSS_SELECTOR, "input[data-label=fear]")
        assert not fear.is_selected() and not fear.is_enabled()
        keys(browser, "o")  # the other choice instead: none unchecked, the labels still blocked
        other, none = (first.find_element(By.CSS_SELECTOR, f"input[data-{kind}]") for kind in ("other", "none"))
        assert other.is_selected() and not none.is_selected() and not fear.is_enabled()
        keys(browser, "o", "0")  # back to none
        keys(browser, "0", "2", "w", "f", "j", "s")  # joy normal + flag; skip the second
        time.sleep(1.1)  # this protocol bans a page sent in under a second
        send(browser)
        WebDriverWait(browser, 20).until(lambda b: project.state.answers)
        answers = {a.item: a for a in project.state.answers}
        answered = [a for a in answers.values() if not a.skip]
        assert len(answers) == 2 and answered[0].labels == {"joy": 2} and answered[0].flag == "problem"
        olena = project.state.annotators["Olena"]
        page = project.next_page(olena, "first")  # the next page, sent at once: banned
        project.submit(olena, page["page"], [{"position": i, "labels": {"fear": 1}} for i in range(len(page["items"]))])
        browser.get(f"{url}/owner#token={owner}")
        wait_for(browser, "#annotators tr[data-key=Olena]")
        row = browser.find_element(By.CSS_SELECTOR, "#annotators tr[data-key=Olena]").text
        assert "banned" in row and "fast-pages" in row
        assert "first" in browser.find_element(By.ID, "progress").text
        browser.find_element(By.ID, "rotate").send_keys(Keys.ENTER)  # the owner replaces a leaked token
        browser.switch_to.alert.accept()
        WebDriverWait(browser, 10).until(lambda b: "new owner token" in b.find_element(By.ID, "new-token").text)
        assert not project.is_owner(owner)  # the old one is refused at once
        new = browser.find_element(By.ID, "new-token").text.split(": ", 1)[1].split(" ")[0]
        assert project.is_owner(new)
        browser.refresh()  # the page goes on with the new token
        wait_for(browser, "#annotators tr[data-key=Olena]")


@pytest.mark.slow
def test_the_page_speaks_the_protocols_interface_language_and_switches(browser, tmp_path):
    protocol = PROTOCOL.replace("interface_languages: [en]", "interface_languages: [uk, en]")
    for field in ("Fear", "Joy", "No emotion", "Another emotion", "Fear."):
        protocol = protocol.replace(f"{{en: {field}}}", f"{{en: {field}, uk: {field}}}")
    protocol = protocol.replace('{en: "Choose', '{uk: "Виберіть кожну емоцію.", en: "Choose')
    levels = "{levels: {en: [low, normal, high]}}"
    protocol = protocol.replace(levels, "{levels: {en: [low, normal, high], uk: [a, b, c]}}")
    project, _ = create_project(str(tmp_path / "p.sqlite"), protocol, [Item("1", "Text one.")], {})
    token = project.invite("Олена")
    with running(create_app(project)) as url:
        browser.get(f"{url}/#token={token}")
        button = wait_for(browser, "#stage-first")
        assert button.text.startswith("Прочитати навчання")
        assert browser.find_element(By.ID, "title").text == "Анотування"
        assert "Клавіші" in browser.find_element(By.ID, "keys").text
        assert browser.execute_script("return document.documentElement.lang") == "uk"
        keys(browser, Keys.ENTER)  # keyboard only: the training, in Ukrainian
        wait_for(browser, "#to-exam")
        assert browser.find_element(By.ID, "to-exam").text.startswith("Я все прочитав")
        browser.get(f"{url}/?lang=en")  # the same session, switched to English
        button = wait_for(browser, "#stage-first")
        WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "title").text == "Annotation")
        assert browser.find_element(By.ID, "language").get_attribute("value") == "en"
        assert "Keys:" in browser.find_element(By.ID, "keys").text


def test_a_refusal_and_a_protocols_own_message_are_shown_in_the_readers_language(browser, tmp_path):
    import json
    from importlib.resources import files

    catalogue = json.loads(files("affectlab.collection").joinpath("pages", "messages.json").read_text("utf-8"))
    protocol = PROTOCOL.replace("interface_languages: [en]", "interface_languages: [en, de]")
    for field in ("Fear", "Joy", "No emotion", "Another emotion", "Fear."):
        protocol = protocol.replace(f"{{en: {field}}}", f"{{en: {field}, de: {field}}}")
    protocol = protocol.replace('{en: "Choose', '{de: "Wähle jede Emotion.", en: "Choose')
    protocol = protocol.replace("{levels: {en: [low, normal, high]}}", "{levels: {en: [a, b, c], de: [a, b, c]}}")
    protocol += 'messages:\n  de: {title: "Annotation (de)", take_exam: "Zur Prüfung"}\n'
    project, _ = create_project(str(tmp_path / "p.sqlite"), protocol, [Item("1", "Text one.")], {})
    revoked, token = project.invite("ana"), project.invite("ben")
    project.revoke("ana")
    with running(create_app(project)) as url:
        browser.get(f"{url}/?lang=uk#token={revoked}")  # refused before the protocol is read: the language asked
        WebDriverWait(browser, 20).until(lambda b: b.find_element(By.ID, "error").text)
        assert browser.find_element(By.ID, "error").text == catalogue["uk"]["error_token"]
        browser.get(f"{url}/?lang=de#token={token}")  # German, which only the protocol's own messages speak
        WebDriverWait(browser, 20).until(lambda b: b.find_element(By.ID, "title").text == "Annotation (de)")
        assert browser.find_element(By.ID, "keys").text == catalogue["en"]["keys"]  # the rest falls back
