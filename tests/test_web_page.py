"""The service's web page in a real headless Chromium (Debian's chromium + chromedriver, driven by Selenium):
type a text, press the button, see a bar per emotion with the predicted ones marked; a screenshot is saved."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("selenium")

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

from affectlab.serve.app import create_app
from serving import CHROMEDRIVER, CHROMIUM, headless_chromium, running

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER), reason="needs Debian's chromium and chromium-driver (.ci/run installs them)"
)


@pytest.fixture(scope="module")
def browser():
    yield from headless_chromium()


@pytest.mark.slow
def test_type_a_text_and_see_the_bars(browser, tmp_path: Path) -> None:
    with running(create_app()) as url:
        browser.get(url + "/")
        box = browser.find_element(By.ID, "texts")
        box.clear()
        box.send_keys("Мені дуже страшно, я боюся темряви.\nWhat a wonderful surprise, I love it!")
        Select(browser.find_element(By.ID, "ui")).select_by_value("uk")
        assert browser.find_element(By.ID, "go").text == "Аналізувати"
        browser.find_element(By.ID, "go").click()
        WebDriverWait(browser, 60).until(
            expected_conditions.presence_of_all_elements_located((By.CSS_SELECTOR, ".result"))
        )
        results = browser.find_elements(By.CSS_SELECTOR, ".result")
        assert len(results) == 2
        first_bars = results[0].find_elements(By.CSS_SELECTOR, ".bar")
        assert {bar.get_attribute("data-label") for bar in first_bars} == {
            "anger", "disgust", "fear", "joy", "sadness", "surprise", "none"
        }  # fmt: skip
        marked = [bar.get_attribute("data-label") for bar in first_bars if "on" in bar.get_attribute("class").split()]
        assert "fear" in marked
        assert "емоції" in results[0].find_element(By.CSS_SELECTOR, ".labels").text
        widths = [float(bar.value_of_css_property("width").removesuffix("px")) for bar in first_bars]
        assert widths[0] == max(widths) > 0  # sorted by score, drawn to scale
        on_top = [bar.get_attribute("data-label") for bar in first_bars[: len(marked)]]
        assert on_top == marked  # the labels given are the top bars
        assert "шкалі рішення" in browser.find_element(By.CSS_SELECTOR, "#results > p.hint").text
        shot = tmp_path / "web-page.png"
        assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        if os.environ.get("AFFECTLAB_SCREENSHOT_DIR"):
            shutil.copy(shot, Path(os.environ["AFFECTLAB_SCREENSHOT_DIR"]) / shot.name)


@pytest.mark.slow
def test_a_long_document_draws_its_arc(browser, tmp_path: Path) -> None:
    """One document of several lines (joy, then filler, then fear) comes back whole, with one arc row per
    sentence, the emotional ones marked."""
    document = (
        "I am so happy, this is the best day of my life!\n"
        + "The meeting is at ten. " * 60
        + ("\nThen the house caught fire and I was terrified.")
    )
    with running(create_app()) as url:
        browser.get(url + "/")
        box = browser.find_element(By.ID, "texts")
        box.clear()
        box.send_keys(document)
        browser.find_element(By.ID, "document").click()
        browser.find_element(By.ID, "go").click()
        WebDriverWait(browser, 60).until(
            expected_conditions.presence_of_all_elements_located((By.CSS_SELECTOR, ".arc"))
        )
        (result,) = browser.find_elements(By.CSS_SELECTOR, ".result")
        rows = result.find_elements(By.CSS_SELECTOR, ".arc-row")
        assert len(rows) == 62
        assert "joy" in rows[0].text and "quiet" not in rows[0].get_attribute("class")
        assert "fear" in rows[-1].text
        assert all("quiet" in row.get_attribute("class") for row in rows[1:-1])
        assert {"joy", "fear"} <= set(
            result.find_element(By.CSS_SELECTOR, ".labels").text.split(": ")[1].split(" (")[0].split(", ")
        )
        assert browser.save_screenshot(str(tmp_path / "arc.png"))


@pytest.mark.slow
def test_a_document_in_several_languages_names_them_and_each_sentence_its_own(browser, tmp_path: Path) -> None:
    """A long document in English, Finnish and German: a note names its languages with their shares (in the page's
    language), and each arc row shows its sentence's language."""
    english = "I finally got the job I wanted, and I am so happy today. My whole family came over to celebrate. " * 8
    finnish = "Olen todella onnellinen tänään, koska sain vihdoin unelmieni työpaikan. Kissani nukkuu sohvalla. " * 2
    german = "Ich bin so wütend, sie haben meinen Flug schon wieder gestrichen! Niemand konnte mir sagen, wann. " * 2
    with running(create_app()) as url:
        browser.get(url + "/")
        box = browser.find_element(By.ID, "texts")
        box.clear()
        box.send_keys(english + "\n" + finnish + "\n" + german)
        Select(browser.find_element(By.ID, "ui")).select_by_value("es")
        browser.find_element(By.ID, "document").click()
        browser.find_element(By.ID, "go").click()
        WebDriverWait(browser, 60).until(
            expected_conditions.presence_of_all_elements_located((By.CSS_SELECTOR, ".arc"))
        )
        (result,) = browser.find_elements(By.CSS_SELECTOR, ".result")
        note = result.find_element(By.CSS_SELECTOR, ".languages").text
        assert note.startswith("idiomas: en ") and " fi " in note and " de " in note and note.endswith(" %")
        rows = result.find_elements(By.CSS_SELECTOR, ".arc-row")
        assert rows[0].find_elements(By.CSS_SELECTOR, "span")[1].text == "en"
        assert {row.find_elements(By.CSS_SELECTOR, "span")[1].text for row in rows} == {"en", "fi", "de"}
        assert browser.save_screenshot(str(tmp_path / "languages.png"))


def test_why_tints_the_words_of_each_label(browser, tmp_path: Path) -> None:
    """With "why", each result shows its text with its words tinted for the chosen label and a tooltip with each
    word's weight; choosing another label redraws them, and a text with an emoji keeps its offsets."""
    with running(create_app()) as url:
        browser.get(url + "/")
        box = browser.find_element(By.ID, "texts")
        box.clear()
        # ChromeDriver types only characters of the Basic Multilingual Plane (since about 150): the emoji is put in
        # by script, the rest typed after it
        browser.execute_script("arguments[0].value = arguments[1]", box, "😡 ")
        box.send_keys("I hate you so much, you ruined everything.")
        browser.find_element(By.ID, "explain").click()
        browser.find_element(By.ID, "go").click()
        WebDriverWait(browser, 60).until(
            expected_conditions.presence_of_all_elements_located((By.CSS_SELECTOR, ".why-text .word"))
        )
        (result,) = browser.find_elements(By.CSS_SELECTOR, ".result")
        chosen = Select(result.find_element(By.CSS_SELECTOR, ".why-label"))
        assert chosen.first_selected_option.text == "anger"
        tinted = result.find_elements(By.CSS_SELECTOR, ".why-text .word")
        assert [w.text for w in tinted][:3] == ["😡", "I", "hate"]
        assert result.find_element(By.CSS_SELECTOR, ".why-text").text == "😡 I hate you so much, you ruined everything."
        hate = tinted[2]
        assert hate.get_attribute("title").startswith("anger +")
        assert float(hate.get_attribute("data-weight")) == max(float(w.get_attribute("data-weight")) for w in tinted)
        assert "rgba(46, 125, 50" in hate.get_attribute("style")
        if len(chosen.options) > 1:
            chosen.select_by_index(1)
            assert (
                result.find_elements(By.CSS_SELECTOR, ".why-text .word")[2]
                .get_attribute("title")
                .startswith(chosen.first_selected_option.text)
            )
        assert browser.save_screenshot(str(tmp_path / "why.png"))


def test_the_html_report_renders_its_plots_offline(browser, tmp_path: Path) -> None:
    """A report of two synthetic runs opened from a file: every plot is drawn with a real size, nothing fetched."""
    import numpy as np

    from affectlab.evaluation.report import write_report

    rng = np.random.default_rng(0)
    labels = ["joy", "fear", "anger"]
    gold = (rng.random((60, 3)) < 0.4).astype(np.int8)
    runs, outputs = [], []
    for run_id, noise in ((1, 0.3), (2, 0.6)):
        probs = np.clip(gold * 0.6 + rng.random((60, 3)) * noise, 0, 1)
        pred = (probs > 0.5).astype(np.int8)
        per_label = {label: {"precision": 0.5, "recall": 0.5, "f1": 0.6 - noise / 2, "support": int(gold[:, j].sum())}
                     for j, label in enumerate(labels)}  # fmt: skip
        metrics = {"primary": {"name": "macro_f1", "value": 0.5}, "macro_f1": 0.5, "macro_precision": 0.5,
                   "macro_recall": 0.5, "per_label": per_label}  # fmt: skip
        decision = {"rule": "thresholds", "values": [0.5] * 3, "groups": {}}
        runs.append({"id": run_id, "model": "tfidf-lr", "model_ref": f"m{run_id}", "dataset": "toy", "split": "test",
                     "n": 60, "metrics": metrics, "model_config": {"decision": decision}})  # fmt: skip
        outputs.append({"probs": probs, "pred": pred, "gold": gold, "ids": [str(i) for i in range(60)],
                        "texts": [f"text {i}" for i in range(60)]})  # fmt: skip
    page = write_report(tmp_path / "report.html", runs, outputs)
    browser.get(page.as_uri())
    svgs = browser.find_elements(By.CSS_SELECTOR, "svg")
    assert len(svgs) == 5 and all(svg.size["width"] > 100 and svg.size["height"] > 100 for svg in svgs)
    resources = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert resources == []  # the page loaded nothing besides itself
    assert browser.save_screenshot(str(tmp_path / "report.png"))
