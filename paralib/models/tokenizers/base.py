"""Tokenisers of the encoders: text to embedding-row ids, registered by name (2018 §4).

Every tokeniser maps a sentence to a list of ids into one embedding table, with two reserved
rows: ``PAD`` (0, never part of a sentence; padding must not change an embedding) and ``UNK``
(1, any token outside the vocabulary). A tokeniser is fitted on the training text, saved into
the model folder and loaded back, so a trained model encodes exactly as it was trained.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from paralib.errors import ConfigurationError
from paralib.models.errors import one_line

PAD, UNK = 0, 1
RESERVED = ("<pad>", "<unk>")


class TokenizerError(ConfigurationError, ValueError):
    """A tokeniser was misconfigured, or its files are missing or inconsistent."""


TOKENIZERS: dict[str, type[Tokenizer]] = {}


class TokenizerFile(BaseModel):
    """The ``tokenizer.json`` of a saved tokeniser: its type, size and parameters."""

    model_config = ConfigDict(extra="forbid", strict=True)

    type: str
    vocab_size: int = Field(ge=3)
    params: dict[str, Any] = Field(default_factory=dict)


class NoParams(BaseModel):
    """The parameters of a tokeniser that takes none."""

    model_config = ConfigDict(extra="forbid", strict=True)


def register(cls: type[Tokenizer]) -> type[Tokenizer]:
    """Class decorator: make a tokeniser available under ``cls.name``."""
    TOKENIZERS[cls.name] = cls
    return cls


class Tokenizer:
    """Base class. Subclasses implement :meth:`fit`, :meth:`encode` and the file round trip."""

    name: ClassVar[str] = ""
    # the parameters its tokenizer.json may hold (checked when a saved tokeniser is loaded)
    Params: ClassVar[type[BaseModel]] = NoParams

    def __init__(self, vocab_size: int, **params: Any):
        if vocab_size < 3:
            raise TokenizerError(f"tokenizer '{self.name}': vocab_size must be >= 3, "
                                 f"got {vocab_size}")
        self.vocab_size = vocab_size
        self.params = params

    @property
    def size(self) -> int:
        """Rows of the embedding table (reserved rows included)."""
        raise NotImplementedError

    def fit(self, texts: Iterable[str]) -> Tokenizer:
        """Learn the vocabulary (or segmentation model) from training text; returns self."""
        raise NotImplementedError

    def encode(self, texts: list[str]) -> list[list[int]]:
        """Ids of every text (an empty text has no ids)."""
        raise NotImplementedError

    def pieces(self) -> list[str]:
        """The string of every embedding row, in row order (for pretrained initialisation)."""
        raise NotImplementedError

    def save(self, folder: Path) -> None:
        """Write the tokeniser's files into ``folder`` (plus ``tokenizer.json``)."""
        folder.mkdir(parents=True, exist_ok=True)
        meta = {"type": self.name, "vocab_size": self.vocab_size, "params": self.params}
        (folder / "tokenizer.json").write_text(json.dumps(meta, indent=2))
        self._save(folder)

    def _save(self, folder: Path) -> None:
        raise NotImplementedError

    def _load(self, folder: Path) -> None:
        raise NotImplementedError

    @classmethod
    def load(cls, folder: Path) -> Tokenizer:
        """Read a tokeniser written by :meth:`save` (its type comes from tokenizer.json)."""
        meta_file = folder / "tokenizer.json"
        if not meta_file.is_file():
            raise TokenizerError(f"{folder}: no tokenizer.json (not a paralib tokenizer folder)")
        try:
            raw = json.loads(meta_file.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise TokenizerError(f"{meta_file} is not valid JSON ({e}); expected the "
                                 "tokenizer.json paralib wrote") from e
        try:
            meta = TokenizerFile.model_validate(raw)
        except ValidationError as e:
            raise TokenizerError(one_line(e, meta_file)) from e
        if meta.type not in TOKENIZERS:
            raise TokenizerError(f"{meta_file} names an unknown tokenizer type {meta.type!r} "
                                 f"(known: {', '.join(sorted(TOKENIZERS))})")
        kind = TOKENIZERS[meta.type]
        try:
            params = kind.Params.model_validate(meta.params).model_dump()
        except ValidationError as e:
            known = ", ".join(kind.Params.model_fields) or "none"
            raise TokenizerError(f"{one_line(e, meta_file, 'params.')} (tokenizer "
                                 f"{meta.type!r} takes {known})") from e
        tok = kind(meta.vocab_size, **params)
        tok._load(folder)
        return tok


class VocabTokenizer(Tokenizer):
    """A tokeniser whose rows are the N most frequent units of the training text.

    Subclasses define :meth:`units` (the units of one text); ties in frequency are broken
    alphabetically so that fitting is deterministic.
    """

    def __init__(self, vocab_size: int, **params: Any):
        super().__init__(vocab_size, **params)
        self.itos: list[str] = list(RESERVED)
        self.stoi: dict[str, int] = {s: i for i, s in enumerate(self.itos)}

    def units(self, text: str) -> list[str]:
        """The vocabulary units of one text."""
        raise NotImplementedError

    @property
    def size(self) -> int:
        return len(self.itos)

    def fit(self, texts: Iterable[str]) -> VocabTokenizer:
        counts = Counter(u for t in texts for u in self.units(t))
        if not counts:
            raise TokenizerError(f"tokenizer '{self.name}': the training text has no tokens")
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        keep = [u for u, _ in ranked[: self.vocab_size - len(RESERVED)]]
        self.itos = [*RESERVED, *keep]
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        return self

    def encode(self, texts: list[str]) -> list[list[int]]:
        get = self.stoi.get
        return [[get(u, UNK) for u in self.units(t or "")] for t in texts]

    def pieces(self) -> list[str]:
        return list(self.itos)

    def _save(self, folder: Path) -> None:
        (folder / "vocab.txt").write_text("\n".join(self.itos) + "\n", encoding="utf-8")

    def _load(self, folder: Path) -> None:
        path = folder / "vocab.txt"
        if not path.is_file():
            raise TokenizerError(f"{folder}: vocab.txt is missing")
        itos = path.read_text(encoding="utf-8").split("\n")[:-1]
        if tuple(itos[:2]) != RESERVED:
            raise TokenizerError(f"{path}: the first rows must be {RESERVED}, got {itos[:2]}")
        self.itos = itos
        self.stoi = {s: i for i, s in enumerate(itos)}
