"""TRIGRAM tokens: character trigrams of every word with boundary marks (2018 §4, after
Wieting et al. 2016a's CHARAGRAM): ``dog`` → ``#do dog og#``."""

from __future__ import annotations

from paralib.models.tokenizers.base import VocabTokenizer, register
from paralib.text import tokenize

BOUNDARY = "#"


def word_trigrams(word: str) -> list[str]:
    """Character trigrams of ``#word#`` (a one-letter word gives ``#a#``)."""
    w = f"{BOUNDARY}{word}{BOUNDARY}"
    return [w[i:i + 3] for i in range(len(w) - 2)]


@register
class TrigramTokenizer(VocabTokenizer):
    """The trigrams of all lower-cased words of a sentence, in order."""

    name = "trigram"

    def units(self, text: str) -> list[str]:
        return [g for w in tokenize(text) for g in word_trigrams(w)]
