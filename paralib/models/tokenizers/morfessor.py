"""Morfessor Baseline segmentation into morphs (Opusparcus §4.1), then a morph vocabulary.

The segmentation model is trained (unsupervised, the ``morfessor`` package's batch training) on
the word types of the training text weighted by their counts; each word is Viterbi-segmented
once and cached. Morphs are then counted and the N most frequent kept, as for WORD.
"""

from __future__ import annotations

import contextlib
import io
import pickle
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from paralib.models.tokenizers.base import TokenizerError, VocabTokenizer, register
from paralib.text import tokenize


@register
class MorfessorTokenizer(VocabTokenizer):
    """Words segmented by a Morfessor Baseline model trained on the training text."""

    name = "morfessor"

    def __init__(self, vocab_size: int, **params):
        super().__init__(vocab_size, **params)
        self.model = None
        self._cache: dict[str, list[str]] = {}

    def segment(self, word: str) -> list[str]:
        """The morphs of one word (cached)."""
        seg = self._cache.get(word)
        if seg is None:
            seg = list(self.model.viterbi_segment(word)[0]) if self.model else [word]
            self._cache[word] = seg
        return seg

    def units(self, text: str) -> list[str]:
        return [m for w in tokenize(text) for m in self.segment(w)]

    def fit(self, texts: Iterable[str]) -> MorfessorTokenizer:
        import morfessor

        texts = list(texts)
        counts = Counter(w for t in texts for w in tokenize(t))
        if not counts:
            raise TokenizerError("tokenizer 'morfessor': the training text has no words")
        self.model = morfessor.BaselineModel()
        self.model.load_data([(c, w) for w, c in sorted(counts.items())])
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            self.model.train_batch()  # prints one dot per epoch
        self._cache = {}
        return super().fit(texts)

    def _save(self, folder: Path) -> None:
        super()._save(folder)
        with open(folder / "morfessor.pkl", "wb") as f:
            pickle.dump(self.model, f)

    def _load(self, folder: Path) -> None:
        super()._load(folder)
        path = folder / "morfessor.pkl"
        if not path.is_file():
            raise TokenizerError(f"{folder}: morfessor.pkl is missing")
        with open(path, "rb") as f:
            self.model = pickle.load(f)
