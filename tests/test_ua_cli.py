"""``affectlab ua``: generate, eval (a tiny random causal LM saved here), export-lm-eval and baselines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from affectlab.uatasks.instance_files import read_instances


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer GPT-2 with random weights and a byte-level BPE tokenizer trained on a few Ukrainian lines,
    saved as a Hugging Face model directory (speed and correctness of the plumbing do not depend on weights)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    bpe = tokenizers.Tokenizer(tokenizers.models.BPE())
    bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<eos>"]
    )
    bpe.train_from_iterator(["Питання: Чи належать слова всі до категорії? Відповідь: так ні"] * 5, trainer=trainer)
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<eos>")
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(tokenizer), n_positions=1024, n_embd=32, n_layer=2, n_head=2)
    directory = tmp_path_factory.mktemp("tiny-lm")
    transformers.GPT2LMHeadModel(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def test_baselines_json_has_the_issue_keys_per_task(cli, data_dir: Path) -> None:
    code, out, err = cli("ua", "baselines", "--data-dir", data_dir, "--json")
    assert code == 0, err
    results = json.loads(out)
    assert results["lmes-cats-mc"]["random"] == pytest.approx(0.2)
    assert {"random", "n", "human"} <= set(results["lmes-low"])
    assert results["ua-cbt"]["most_frequent"] is not None
    assert "number_overlap" in results["up-titles-masked"]
    assert "skipped" in results["up-titles"]  # the local sample cannot give unmasked candidates


def test_generate_is_deterministic_for_a_seed(cli, data_dir: Path, tmp_path: Path) -> None:
    paths = [tmp_path / f"{name}.jsonl" for name in ("a", "b", "c")]
    for path, seed in zip(paths, (3, 3, 4), strict=True):
        code, _, err = cli("ua", "generate", "lmes-wordlength", "--data-dir", data_dir, "--n", 12,
                           "--seed", seed, "--out", path)  # fmt: skip
        assert code == 0, err
    first, again, other = (read_instances(path) for path in paths)
    assert first == again and first != other
    assert len(first) == 12 and {i.task for i in first} == {"lmes-wordlength"}


def test_generate_ua_cbt_from_a_story_file(cli, data_dir: Path, tmp_path: Path) -> None:
    stories = data_dir / "eval_ua_tion" / "UA-CBT" / "artifacts" / "stories" / "few_shot_split.csv"
    code, _, err = cli("ua", "generate", "ua-cbt", "--input", stories, "--out", tmp_path / "cbt.jsonl")
    assert code == 0, err
    instances = read_instances(tmp_path / "cbt.jsonl")
    assert instances and all(len(i.options) == 6 for i in instances)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ua", "generate", "lmes-lw", "--out", "x.jsonl"], "did you mean 'lmes-low'"),
        (["ua", "generate", "lmes-low", "--out", "x.jsonl"], "needs the LMES resources"),
        (["ua", "generate", "ua-cbt", "--out", "x.jsonl"], "needs --input"),
        (["ua", "generate", "lmes-low", "--out", "x.csv"], "must end in .jsonl"),
        (["ua", "eval", "lmes-low", "--model", "no/such/model", "--file", "missing.jsonl"], "does not exist"),
    ],
)
def test_bad_generate_and_eval_input_is_one_line(cli, tmp_path: Path, monkeypatch, args, message) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(*args)
    assert code == 2 and message in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_a_story_too_short_for_any_gap_is_a_clear_error(cli, tmp_path: Path) -> None:
    story = tmp_path / "tiny.txt"
    story.write_text("Жив собі кіт. Він спав.", encoding="utf-8")
    code, _, err = cli("ua", "generate", "ua-cbt", "--input", story, "--out", tmp_path / "cbt.jsonl")
    assert code == 2 and "no UA-CBT instance" in err
    assert not (tmp_path / "cbt.jsonl").exists()


def test_eval_with_a_local_causal_lm_writes_a_record_and_predictions(
    cli, data_dir: Path, tiny_lm: Path, tmp_path: Path
) -> None:
    predictions = tmp_path / "predictions.jsonl"
    code, out, err = cli("ua", "eval", "lmes-cats-bin", "--model", tiny_lm, "--data-dir", data_dir,
                         "--limit", 6, "--predictions", predictions, "--json")  # fmt: skip
    assert code == 0, err
    record = json.loads(out)
    assert record["task"] == "lmes-cats-bin" and record["n"] == 6 and record["k_shots"] == 3
    assert 0.0 <= record["accuracy"] <= 1.0 and record["shots_source"]
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 6
    assert record["accuracy"] == pytest.approx(sum(row["correct"] for row in rows) / 6)


def test_eval_against_an_unreachable_endpoint_is_one_line(cli, data_dir: Path) -> None:
    code, _, err = cli("ua", "eval", "lmes-cats-bin", "--model", "any", "--endpoint",
                       "http://127.0.0.1:9/v1", "--data-dir", data_dir, "--limit", 1)  # fmt: skip
    assert code == 2 and err.count("\n") == 1


def test_export_lm_eval_writes_a_task_per_loadable_task(cli, data_dir: Path, tmp_path: Path) -> None:
    code, out, err = cli("ua", "export-lm-eval", tmp_path / "tasks", "--data-dir", data_dir, "--json")
    assert code == 0, err
    result = json.loads(out)
    names = {Path(path).name for path in result["written"]}
    assert "utils.py" in names and "affectlab_lmes_low.yaml" in names
    assert "up-titles" in result["skipped"]


def test_the_python_api_generates_what_the_command_generates(cli, data_dir: Path, tmp_path: Path) -> None:
    from affectlab.uatasks.jobs import generate_instances

    code, _, err = cli("ua", "generate", "lmes-wordlength", "--data-dir", data_dir, "--n", 5,
                       "--seed", 2, "--out", tmp_path / "cli.jsonl")  # fmt: skip
    assert code == 0, err
    done = generate_instances("lmes-wordlength", tmp_path / "api.jsonl", n=5, seed=2, data_dir=data_dir)
    assert done.n == 5 and read_instances(tmp_path / "api.jsonl") == read_instances(tmp_path / "cli.jsonl")
