"""Tiny random Hugging Face models built in the tests (nothing is downloaded): what speed and plumbing tests need."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def save_tiny_bert(directory: Path, sentences: Sequence[str]) -> Path:
    """A 2-layer BERT (hidden 32, seeded random weights) with a WordPiece vocabulary trained on ``sentences`` and a
    pair template (``[CLS] A [SEP] B [SEP]``), saved as a Hugging Face model directory."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, BertTokenizerFast

    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    wordpiece = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wordpiece.train_from_iterator(sentences, trainers.WordPieceTrainer(vocab_size=300, special_tokens=special))
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
