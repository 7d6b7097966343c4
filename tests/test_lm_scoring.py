"""Log-likelihood scoring of answer targets, checked against a hand computation on a tiny random causal LM."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from affectlab.errors import DataNotFoundError  # noqa: E402
from affectlab.uatasks.instances import MCInstance  # noqa: E402
from affectlab.uatasks.lm_scoring import HFCausalScorer, encode_pair, loglik_choices  # noqa: E402
from affectlab.uatasks.multiple_choice import evaluate_mc  # noqa: E402
from affectlab.uatasks.prompts import answer_targets, format_prompt, sample_shots  # noqa: E402

CORPUS = [
    'Питання: Яка перша літера y слові "пускати"?\nВідповідь: п',
    'Питання: Яке слово коротше: "по-шосте" чи "щотижневий"?\nВідповідь: по-шосте',
    "Вона кинулася на ______ , клюючи його.\nПИТАННЯ: Яке слово має бути замість ______? A: ведмедя; B: ореста\n"
    "ВІДПОВІДЬ: A",
    "Чи належать слова 'сум, віра' всі до категорії 'почуття'?\nВідповідь: так ні",
]
PROMPT = "Вона кинулася на ______ .\nПИТАННЯ: Яке слово має бути замість ______? A: ведмедя; B: ореста\nВІДПОВІДЬ:"
TARGETS = ["A", "B", "ведмедя", "по-шосте"]  # different token counts, so the batch is padded


@pytest.fixture(scope="module")
def tokenizer() -> transformers.PreTrainedTokenizerFast:
    """A byte-level BPE trained here on a few Ukrainian lines: " A" and " так" become single tokens, as in
    GPT-2-style tokenizers, so the prompt/answer boundary is tokenized realistically."""
    bpe = tokenizers.Tokenizer(tokenizers.models.BPE())
    bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<eos>"]
    )
    bpe.train_from_iterator(CORPUS * 5, trainer=trainer)
    return transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<eos>")


@pytest.fixture(scope="module")
def model(tokenizer: transformers.PreTrainedTokenizerFast) -> transformers.GPT2LMHeadModel:
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        vocab_size=len(tokenizer), n_positions=512, n_embd=32, n_layer=2, n_head=2, bos_token_id=0, eos_token_id=0
    )
    return transformers.GPT2LMHeadModel(config).eval()


def by_hand(model: transformers.GPT2LMHeadModel, tokenizer, prompt: str, target: str) -> float:
    """log P(" " + target | prompt), one token at a time: each prefix alone through the model, its last
    position's log-softmax read at the next token."""
    whole = tokenizer(prompt + " " + target)["input_ids"]
    start = len(tokenizer(prompt)["input_ids"])
    total = 0.0
    with torch.no_grad():
        for t in range(start, len(whole)):
            logits = model(torch.tensor([whole[:t]])).logits[0, -1]
            total += float(torch.log_softmax(logits.double(), dim=-1)[whole[t]])
    return total


@pytest.mark.parametrize("targets", [TARGETS, list("ABCDEF"), ["так", "ні"]])
def test_loglik_choices_equals_the_hand_computation(model, tokenizer, targets: list[str]) -> None:
    expected = [by_hand(model, tokenizer, PROMPT, target) for target in targets]
    assert loglik_choices(model, tokenizer, PROMPT, targets) == pytest.approx(expected, abs=1e-5)


def test_answers_after_one_prompt_share_a_forward_row_when_their_inputs_agree(model, tokenizer) -> None:
    batch_sizes = []
    hook = model.register_forward_pre_hook(
        lambda _, args, kwargs: batch_sizes.append(len(kwargs["input_ids"])), with_kwargs=True
    )
    try:
        loglik_choices(model, tokenizer, PROMPT, ["A", "B"])
        loglik_choices(model, tokenizer, PROMPT, list("ABCDEF"))
        loglik_choices(model, tokenizer, PROMPT, TARGETS)
    finally:
        hook.remove()
    # " A" and " B" are single tokens: both are read off the prompt's last position. " C" ... " F" are "Ġ" plus
    # a letter here, so they share the row prompt + "Ġ"; the two words need a row each.
    assert batch_sizes == [1, 2, 3]


def test_targets_have_different_token_counts_so_padding_is_exercised(tokenizer) -> None:
    lengths = {len(encode_pair(tokenizer, PROMPT, " " + target)[1]) for target in TARGETS}
    assert len(lengths) > 1


def test_the_answer_letter_with_its_leading_space_is_one_token(tokenizer) -> None:
    _, continuation = encode_pair(tokenizer, PROMPT, " A")
    assert tokenizer.convert_ids_to_tokens(continuation) == ["ĠA"]


def test_a_trailing_space_of_the_prompt_moves_to_the_continuation(model, tokenizer) -> None:
    with_space = loglik_choices(model, tokenizer, PROMPT + " ", ["A", "B"], target_delimiter="")
    assert with_space == pytest.approx(loglik_choices(model, tokenizer, PROMPT, ["A", "B"]), abs=1e-6)


def test_long_sequences_lose_tokens_from_the_left(model, tokenizer) -> None:
    whole = tokenizer(PROMPT + " ведмедя")["input_ids"]
    start = len(tokenizer(PROMPT)["input_ids"])
    window = whole[-9:]  # max_length 8 inputs predict the last 8 tokens
    with torch.no_grad():
        log_probs = torch.log_softmax(model(torch.tensor([window[:-1]])).logits[0].double(), dim=-1)
    n = len(whole) - start
    expected = sum(float(log_probs[8 - n + i, window[9 - n + i]]) for i in range(n))
    assert loglik_choices(model, tokenizer, PROMPT, ["ведмедя"], max_length=8) == pytest.approx([expected], abs=1e-5)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, model, tokenizer) -> Path:
    directory = tmp_path_factory.mktemp("tiny-gpt2")
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def test_scorer_loads_a_local_model_directory_and_picks_the_most_likely_option(model_dir, model, tokenizer) -> None:
    scorer = HFCausalScorer(model_dir, device="cpu")
    prediction = scorer.score(PROMPT, TARGETS)
    expected = [by_hand(model, tokenizer, PROMPT, target) for target in TARGETS]
    assert list(prediction.scores) == pytest.approx(expected, abs=1e-5)
    assert prediction.index == max(range(len(expected)), key=expected.__getitem__)
    assert scorer.name == model_dir.name


def test_evaluate_mc_accuracy_is_the_share_of_hand_argmaxes_on_the_answer(model_dir, model, tokenizer) -> None:
    words = ["пускати", "ніжно", "прикро", "сум", "віра", "гай", "орел"]
    instances = [
        MCInstance(
            task="lmes-low", id=f"low-{i}", question=f'Яка {n} літера y слові "{w}"?', options=tuple(w), answer=k
        )
        for i, w in enumerate(words)
        for k, n in [(0, "перша"), (1, "друга")]
        if len(set(w)) == len(w)
    ]
    result = evaluate_mc(instances, HFCausalScorer(model_dir, device="cpu"), shots_pool=None, k_shots=2, seed=1)
    hits = []
    for instance in instances:
        prompt = format_prompt(instance, sample_shots(instance, instances, k=2, seed=1))
        scores = [by_hand(model, tokenizer, prompt, target) for target in answer_targets(instance)]
        hits.append(max(range(len(scores)), key=scores.__getitem__) == instance.answer)
    assert result["accuracy"] == pytest.approx(sum(hits) / len(hits))
    assert result["n"] == len(instances)
    assert result["record"]["shots_source"].startswith("evaluated instances")
    assert result["ci95"][0] <= result["accuracy"] <= result["ci95"][1]


def test_a_directory_without_a_model_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(DataNotFoundError, match=r"config\.json"):
        HFCausalScorer(tmp_path)
