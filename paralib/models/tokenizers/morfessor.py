"""Morfessor Baseline segmentation into morphs (Opusparcus §4.1), then a morph vocabulary.

The segmentation model is trained (unsupervised, the ``morfessor`` package's batch training) on
the word types of the training text weighted by their counts; each word is Viterbi-segmented
once and cached. Morphs are then counted and the N most frequent kept, as for WORD.
"""

from __future__ import annotations

import contextlib
import io
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from paralib.models.tokenizers.base import TokenizerError, VocabTokenizer, register
from paralib.text import tokenize

SEGMENTATION = "morfessor.segmentation.txt"


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
        import morfessor

        super()._save(folder)
        morfessor.MorfessorIO().write_segmentation_file(
            str(folder / SEGMENTATION), self.model.get_segmentations())

    def _load(self, folder: Path) -> None:
        """The model from Morfessor's own segmentation text format (``count morph morph``
        a line): data, not a pickle, so a model folder cannot carry code."""
        import morfessor

        super()._load(folder)
        path = folder / SEGMENTATION
        if not path.is_file():
            old = folder / "morfessor.pkl"
            raise TokenizerError(
                f"{folder}: {SEGMENTATION} is missing" + (
                    " (this folder has the old morfessor.pkl, which paralib no longer "
                    "unpickles: retrain the model)" if old.is_file() else ""))
        self.model = morfessor.BaselineModel()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            self.model.load_segmentations(
                morfessor.MorfessorIO().read_segmentation_file(str(path)))
        self._cache = {}
