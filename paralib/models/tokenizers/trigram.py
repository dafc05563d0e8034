"""TRIGRAM tokens: character trigrams of every word with boundary marks (2018 §4, after
Wieting et al. 2016a's CHARAGRAM): ``dog`` → ``#do dog og#``."""

from __future__ import annotations

from paralib.models.tokenizers.base import UNK, VocabTokenizer, register
from paralib.text import tokenize

BOUNDARY = "#"
REMEMBERED_WORDS = 500_000  # the memory of TrigramTokenizer.encode starts over beyond this


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

    def encode(self, texts: list[str]) -> list[list[int]]:
        """The ids of :meth:`units`, with each word's trigram ids remembered: training
        encodes every sentence several times per epoch (mining, the step, the negatives), and
        words repeat far more than sentences. The memory follows the vocabulary (it is
        dropped when ``fit`` or ``load`` gives a new one, and starts over past
        ``REMEMBERED_WORDS`` words, so that encoding a large corpus stays bounded)."""
        if (getattr(self, "_words_for", None) is not self.stoi
                or len(self._words) > REMEMBERED_WORDS):
            self._words: dict[str, list[int]] = {}
            self._words_for = self.stoi
        words, get = self._words, self.stoi.get
        out = []
        for text in texts:
            ids: list[int] = []
            for w in tokenize(text or ""):
                known = words.get(w)
                if known is None:
                    known = words[w] = [get(g, UNK) for g in word_trigrams(w)]
                ids.extend(known)
            out.append(ids)
        return out
