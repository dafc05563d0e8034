"""Tokenisers by name: ``word``, ``trigram``, ``sp`` (sentencepiece), ``morfessor``."""

from paralib.models.tokenizers import morfessor, sp, trigram, word  # noqa: F401  (register)
from paralib.models.tokenizers.base import (
    PAD,
    TOKENIZERS,
    UNK,
    Tokenizer,
    TokenizerError,
)


def build_tokenizer(kind: str, vocab_size: int, **params) -> Tokenizer:
    """An unfitted tokeniser of a registered kind."""
    if kind not in TOKENIZERS:
        raise TokenizerError(f"unknown tokenizer {kind!r} (known: {', '.join(sorted(TOKENIZERS))})")
    return TOKENIZERS[kind](vocab_size, **params)


__all__ = ["PAD", "UNK", "TOKENIZERS", "Tokenizer", "TokenizerError", "build_tokenizer"]
