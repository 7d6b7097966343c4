"""lm-evaluation-harness export: YAML keys the harness knows, local JSONL data, and a utils.py that prompts as we do."""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")

from affectlab.errors import InputError, UnknownNameError  # noqa: E402
from affectlab.uatasks.instances import MCInstance  # noqa: E402
from affectlab.uatasks.lmeval_export import export_lm_eval  # noqa: E402
from affectlab.uatasks.prompts import FEWSHOT_DELIMITER, TARGET_DELIMITER, answer_targets, format_prompt  # noqa: E402

TASK_CONFIG_FIELDS = frozenset(
    """task task_alias tag custom_dataset dataset_path dataset_name dataset_kwargs training_split validation_split
    test_split fewshot_split process_docs doc_to_text doc_to_target doc_to_image doc_to_audio unsafe_code
    doc_to_choice process_results use_prompt description target_delimiter fewshot_delimiter fewshot_config
    num_fewshot generation_kwargs metric_list output_type repeats filter_list should_decontaminate
    doc_to_decontamination_query gen_prefix metadata""".split()
)
"""The fields of ``TaskConfig`` in lm-evaluation-harness ``lm_eval/config/task.py`` (commit 00048838)."""

CBT_OPTIONS = ("ведмедя", "ореста", "мешканця", "жителя", "їжака", "жирафа")


def _cbt(i: int, few_shot: bool = False) -> MCInstance:
    return MCInstance(
        task="ua-cbt",
        id=f"cbt-{'fs' if few_shot else 't'}{i}",
        context="Жила спритна ластівка Орися.\nБув серед них мудрий пугач, Орест.",
        question=f"Речення {i}: вона кинулася на ______ ,\nклюючи його.",
        options=CBT_OPTIONS,
        answer=i % 6,
        few_shot=few_shot,
    )


def _up(i: int) -> MCInstance:
    titles = tuple(f"Заголовок {i}-{j}: «новина»; подробиці" for j in range(10))
    return MCInstance(task="up-titles", id=f"up-{i}", question=f"Стаття {i}.\nДругий абзац.", options=titles, answer=i)


def _catsbin(i: int) -> MCInstance:
    return MCInstance(
        task="lmes-cats-bin",
        id=f"cb-{i}",
        question=f"Чи належать слова 'сум, віра, агресія {i}' всі до категорії 'почуття'?",
        options=("так", "ні"),
        answer=i % 2,
    )


INSTANCES = {
    "ua-cbt": {"test": [_cbt(i) for i in range(5)], "fewshot": [_cbt(i, few_shot=True) for i in range(4)]},
    "up-titles": {"test": [_up(i) for i in range(5)]},
    "lmes-cats-bin": {"train": [_catsbin(i) for i in range(4)], "fewshot": [_catsbin(10 + i) for i in range(3)]},
}


def _load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"exported_utils_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_task_yaml(path: Path) -> dict[str, Any]:
    """Read an exported YAML as lm-evaluation-harness does: ``!function utils.name`` becomes that function of
    the utils.py beside the file."""

    class Loader(yaml.SafeLoader):
        pass

    def function(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        module_name, name = loader.construct_scalar(node).split(".")
        return getattr(_load_module(path.parent / f"{module_name}.py"), name)

    Loader.add_constructor("!function", function)
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    directory = tmp_path_factory.mktemp("lmeval")
    return directory, export_lm_eval(directory, INSTANCES)


def _config(directory: Path, task: str) -> dict[str, Any]:
    return _load_task_yaml(directory / f"affectlab_{task.replace('-', '_')}.yaml")


def _docs(config: dict[str, Any], split: str) -> list[dict[str, Any]]:
    path = Path(config["dataset_kwargs"]["data_files"][split])
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_export_writes_utils_a_yaml_per_task_and_the_data(exported) -> None:
    directory, written = exported
    names = sorted(path.relative_to(directory).as_posix() for path in written)
    assert names == sorted(
        [
            "utils.py",
            "affectlab_ua_cbt.yaml",
            "data/ua-cbt/test.jsonl",
            "data/ua-cbt/fewshot.jsonl",
            "affectlab_up_titles.yaml",
            "data/up-titles/test.jsonl",
            "affectlab_lmes_cats_bin.yaml",
            "data/lmes-cats-bin/train.jsonl",
            "data/lmes-cats-bin/fewshot.jsonl",
        ]
    )


@pytest.mark.parametrize("task", list(INSTANCES))
def test_yaml_uses_only_task_config_fields_and_the_multiple_choice_settings(exported, task: str) -> None:
    config = _config(exported[0], task)
    assert set(config) <= TASK_CONFIG_FIELDS
    assert config["task"] == "affectlab_" + task.replace("-", "_")
    assert (config["dataset_path"], config["output_type"], config["num_fewshot"]) == ("json", "multiple_choice", 3)
    assert config["metric_list"] == [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}]
    assert (config["target_delimiter"], config["fewshot_delimiter"]) == (" ", "\n\n")
    files = config["dataset_kwargs"]["data_files"]
    assert config["test_split"] in files and config["fewshot_split"] in files
    assert all(Path(path).is_absolute() and Path(path).is_file() for path in files.values())


def test_splits_are_named_test_and_fewshot_or_fall_back_to_the_test_split(exported) -> None:
    directory = exported[0]
    assert (_config(directory, "ua-cbt")["test_split"], _config(directory, "ua-cbt")["fewshot_split"]) == (
        "test",
        "fewshot",
    )
    assert _config(directory, "lmes-cats-bin")["test_split"] == "train"  # the Hub datasets' name for it
    assert _config(directory, "up-titles")["fewshot_split"] == "test"  # the harness then leaves the doc out


@pytest.mark.parametrize("task", list(INSTANCES))
def test_exported_doc_functions_reproduce_our_prompt_targets_and_answer(exported, task: str) -> None:
    config = _config(exported[0], task)
    for split, instances in INSTANCES[task].items():
        for instance, doc in zip(instances, _docs(config, split), strict=True):
            assert config["doc_to_text"](doc) == format_prompt(instance, ())
            assert config["doc_to_choice"](doc) == answer_targets(instance)
            assert config["doc_to_target"](doc) == instance.answer


def test_the_harness_few_shot_context_equals_our_three_shot_prompt(exported) -> None:
    config = _config(exported[0], "ua-cbt")
    docs, shots = _docs(config, "test"), _docs(config, "fewshot")[:3]
    text, choice, target = config["doc_to_text"], config["doc_to_choice"], config["doc_to_target"]
    # lm_eval/api/samplers.py ContextSampler.get_context, then the question itself
    context = "".join(text(s) + TARGET_DELIMITER + choice(s)[target(s)] + FEWSHOT_DELIMITER for s in shots)
    expected = format_prompt(INSTANCES["ua-cbt"]["test"][0], INSTANCES["ua-cbt"]["fewshot"][:3])
    assert context + text(docs[0]) == expected


def test_the_data_loads_with_the_datasets_json_builder(exported, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    config = _config(exported[0], "ua-cbt")
    loaded = datasets.load_dataset("json", **config["dataset_kwargs"], cache_dir=str(tmp_path))
    assert loaded["test"].num_rows == 5 and loaded["fewshot"].num_rows == 4
    assert config["doc_to_text"](loaded["test"][0]) == format_prompt(INSTANCES["ua-cbt"]["test"][0], ())


def test_exported_utils_imports_nothing_but_future_annotations(exported) -> None:
    tree = ast.parse((exported[0] / "utils.py").read_text(encoding="utf-8"))
    imports = [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
    assert [(node.module, [alias.name for alias in node.names]) for node in imports] == [
        ("__future__", ["annotations"])
    ]


def test_unknown_task_names_and_unclear_splits_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'ua-cbt'"):
        export_lm_eval(tmp_path, {"ua_cbt": {"test": [_cbt(0)]}})
    with pytest.raises(InputError, match="cannot tell the test split"):
        export_lm_eval(tmp_path, {"ua-cbt": {"dev": [_cbt(0)], "train": [_cbt(1)]}})
