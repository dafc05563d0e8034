"""SP tokens: a sentencepiece model trained on the training text (2019 §2; vocabulary 20,000,
unigram or BPE), one model shared by all languages of the training text so that pieces that
overlap across languages share their embedding rows."""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from paralib.models.tokenizers.base import PAD, UNK, Tokenizer, TokenizerError, register

MODEL_FILE = "sp.model"


class SentencePieceParams(BaseModel):
    """The parameters of a saved sentencepiece tokeniser (its ``tokenizer.json``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    model_type: Literal["unigram", "bpe"] = "unigram"
    lowercase: bool = True
    character_coverage: float = Field(default=0.9995, gt=0.0, le=1.0)


@register
class SentencePieceTokenizer(Tokenizer):
    """Sentencepiece with ``<pad>`` = 0 and ``<unk>`` = 1 and no BOS/EOS pieces.

    Parameters: ``model_type`` (``unigram`` or ``bpe``), ``lowercase`` (default true: the
    papers' WORD and TRIGRAM vocabularies are lower-cased too), ``character_coverage``.
    """

    name = "sp"
    Params = SentencePieceParams

    def __init__(self, vocab_size: int, model_type: str = "unigram", lowercase: bool = True,
                 character_coverage: float = 0.9995):
        if model_type not in ("unigram", "bpe"):
            raise TokenizerError(f"tokenizer 'sp': model_type must be unigram or bpe, "
                                 f"got {model_type!r}")
        super().__init__(vocab_size, model_type=model_type, lowercase=lowercase,
                         character_coverage=character_coverage)
        self.model_type, self.lowercase = model_type, lowercase
        self.character_coverage = character_coverage
        self.proto: bytes | None = None
        self.sp = None

    @property
    def size(self) -> int:
        return self.sp.get_piece_size()

    def _norm(self, texts: list[str]) -> list[str]:
        return [(t or "").lower() for t in texts] if self.lowercase else [t or "" for t in texts]

    def fit(self, texts: Iterable[str]) -> SentencePieceTokenizer:
        import sentencepiece as spm

        lines = [t for t in self._norm(list(texts)) if t.strip()]
        if not lines:
            raise TokenizerError("tokenizer 'sp': the training text is empty")
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(lines), model_writer=model, vocab_size=self.vocab_size,
            model_type=self.model_type, character_coverage=self.character_coverage,
            pad_id=PAD, unk_id=UNK, bos_id=-1, eos_id=-1, hard_vocab_limit=False,
            input_sentence_size=2_000_000, shuffle_input_sentence=True, minloglevel=2,
            num_threads=1)
        self._set(model.getvalue())
        return self

    def _set(self, proto: bytes) -> None:
        import sentencepiece as spm

        self.proto = proto
        self.sp = spm.SentencePieceProcessor(model_proto=proto)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "sp"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.sp = None
        if self.proto is not None:
            self._set(self.proto)

    def encode(self, texts: list[str]) -> list[list[int]]:
        return self.sp.encode(self._norm(texts))

    def pieces(self) -> list[str]:
        return [self.sp.id_to_piece(i) for i in range(self.size)]

    def _save(self, folder: Path) -> None:
        (folder / MODEL_FILE).write_bytes(self.proto)

    def _load(self, folder: Path) -> None:
        path = folder / MODEL_FILE
        if not path.is_file():
            raise TokenizerError(f"{folder}: {MODEL_FILE} is missing")
        self._set(path.read_bytes())
