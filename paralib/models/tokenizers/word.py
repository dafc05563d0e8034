"""WORD tokens: lower-cased words and punctuation, the N most frequent types (2018 §4, 2019 §3.1:
200,000 types)."""

from __future__ import annotations

from paralib.models.tokenizers.base import VocabTokenizer, register
from paralib.text import tokenize


@register
class WordTokenizer(VocabTokenizer):
    """Lower-cased word tokens (:func:`paralib.text.tokenize`); unknown words map to ``<unk>``."""

    name = "word"

    def units(self, text: str) -> list[str]:
        return tokenize(text)
