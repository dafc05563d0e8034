"""Joint sentencepiece vocabulary for the translation models, in Marian's file layout.

A single unigram sentencepiece model is trained on both sides of the bitext and saved as
``source.spm`` and ``target.spm`` (the same model) with a ``vocab.json`` mapping every piece
to its id plus ``<pad>`` as the last id, which is what ``transformers.MarianTokenizer`` and
CTranslate2's Marian converter read. Ids: ``</s>`` = 0, ``<unk>`` = 1, pieces, ``<pad>`` = V.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from pathlib import Path

import sentencepiece as spm

FILES = ("source.spm", "target.spm", "vocab.json", "tokenizer_config.json")


class JointVocab:
    """A joint sentencepiece model with Marian ids (``pad`` appended after the pieces)."""

    def __init__(self, model_file: str | Path):
        self.sp = spm.SentencePieceProcessor(model_file=str(model_file))
        self.eos_id = self.sp.eos_id()
        self.unk_id = self.sp.unk_id()
        self.pad_id = self.sp.get_piece_size()

    @property
    def size(self) -> int:
        """Vocabulary size including ``<pad>``."""
        return self.pad_id + 1

    def encode(self, texts: list[str], max_len: int) -> list[list[int]]:
        """Encode to ids with ``</s>`` appended (as MarianTokenizer does), cut to ``max_len``."""
        out = self.sp.encode(texts, out_type=int)
        return [ids[: max_len - 1] + [self.eos_id] for ids in out]

    def decode(self, ids: Iterable[int]) -> str:
        """Decode ids, ignoring ``</s>`` and ``<pad>``."""
        return self.sp.decode([i for i in ids if i not in (self.eos_id, self.pad_id)])


def train_vocab(texts: Iterable[str], out_dir: str | Path, vocab_size: int, src_lang: str,
                tgt_lang: str) -> JointVocab:
    """Train the joint vocabulary on ``texts`` and write Marian tokenizer files to ``out_dir``
    (with the ``tokenizer_config.json`` that lets ``MarianTokenizer`` load the folder)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts), model_writer=model, vocab_size=vocab_size,
        model_type="unigram", character_coverage=1.0, bos_id=-1, eos_id=0, unk_id=1, pad_id=-1,
        input_sentence_size=2_000_000, shuffle_input_sentence=True, minloglevel=2)
    data = model.getvalue()
    (out / "source.spm").write_bytes(data)
    (out / "target.spm").write_bytes(data)
    vocab = JointVocab(out / "source.spm")
    pieces = {vocab.sp.id_to_piece(i): i for i in range(vocab.sp.get_piece_size())}
    pieces["<pad>"] = vocab.pad_id
    (out / "vocab.json").write_text(json.dumps(pieces, ensure_ascii=False), encoding="utf-8")
    cfg = {"tokenizer_class": "MarianTokenizer", "source_lang": src_lang,
           "target_lang": tgt_lang, "unk_token": "<unk>", "eos_token": "</s>",
           "pad_token": "<pad>", "model_max_length": 512, "separate_vocabs": False}
    (out / "tokenizer_config.json").write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    return vocab
