"""Paraphrase score: cosine of the reference and translation embeddings (2018 §3.1, §3.2).

ParaNMT scores a pair by "averaging PARAGRAM-PHRASE embeddings for the two sentences in each
pair and then computing their cosine similarity" and shows the score tracks paraphrase
strength (Table 3); 2018 §5.4 selects training data by it. Any encoder with
``encode(list[str]) -> np.ndarray`` serves. The ``encoder`` parameter selects it:

- ``"glove"`` (default): :class:`paralib.baselines.glove.GloveAverageEncoder`;
- ``"package.module:factory"``: ``factory()`` returns the encoder;
- a trained paralib model folder (``config.json`` of format ``paralib-encoder``, as
  ``paralib train`` and ``models/paralib-en`` hold): loaded with :func:`paralib.models.load`;
- a folder holding ``paralib-encoder.json`` with ``{"loader": "package.module:function"}``:
  ``function(folder)`` returns the encoder (any other encoder saved to a folder).

A sentence whose embedding is the zero vector (no known word) has no cosine: the scorer names
the row in :meth:`ParaphraseScorer.invalid` and its score is NaN.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from paralib.filters.base import Direction, Scorer, ScorerError, register
from paralib.filters.tokenize import BatchCache, pair_texts
from paralib.models.folder import CONFIG, FORMAT


class ParaphraseEncoder(Protocol):
    """What the scorer needs of an encoder."""

    def encode(self, texts: list[str]) -> np.ndarray: ...


def _import(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ScorerError(f"encoder '{spec}': expected 'package.module:callable'")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise ScorerError(f"encoder '{spec}': cannot import it ({e})") from e


def _model_format(folder: Path) -> object:
    """The ``format`` of a model folder's ``config.json`` (None when it has none)."""
    try:
        return json.loads((folder / CONFIG).read_text()).get("format")
    except (OSError, ValueError, AttributeError):
        return None


def load_encoder(spec: str) -> ParaphraseEncoder:
    """Build the encoder named by ``spec`` (see the module docstring)."""
    if spec == "glove":
        from paralib.baselines.glove import GloveAverageEncoder

        return GloveAverageEncoder()
    folder = Path(spec).expanduser()
    if folder.is_dir():
        if _model_format(folder) == FORMAT:
            from paralib.models import load

            return load(folder)
        card = folder / "paralib-encoder.json"
        if not card.is_file():
            raise ScorerError(f"encoder folder {folder} has neither a paralib model's {CONFIG} "
                              f"(format {FORMAT!r}) nor a paralib-encoder.json")
        loader = json.loads(card.read_text()).get("loader")
        if not isinstance(loader, str):
            raise ScorerError(f"{card}: no 'loader' string")
        return _import(loader)(folder)
    if ":" in spec:
        return _import(spec)()
    raise ScorerError(f"encoder '{spec}': not 'glove', an encoder folder or 'module:callable'")


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine; NaN where either row is the zero vector."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((na > 0) & (nb > 0), np.einsum("ij,ij->i", a, b) / (na * nb), np.nan)


@register
class ParaphraseScorer(Scorer):
    """``para_score``: cosine in [-1, 1], clean when high (2018 §5.4 keeps the top folds)."""

    name = "paraphrase"
    columns = ("para_score",)
    direction = Direction.CLEAN_HIGH
    needs_actor = True

    def __init__(self, encoder: str = "glove", batch_size: int = 4096):
        if not isinstance(encoder, str) or not encoder:
            raise ScorerError("scorer 'paraphrase': encoder must be a non-empty string")
        if int(batch_size) < 1:
            raise ScorerError("scorer 'paraphrase': batch_size must be >= 1")
        self.encoder_spec = encoder
        self.batch_size = int(batch_size)
        self.encoder: ParaphraseEncoder | None = None
        self._embedded = BatchCache()  # the embeddings of the last batch

    def setup(self) -> None:
        """Load the encoder (once per worker)."""
        if self.encoder is None:
            self.encoder = load_encoder(self.encoder_spec)

    def _embed(self, texts: list[str]) -> np.ndarray:
        self.setup()
        assert self.encoder is not None
        parts = [np.asarray(self.encoder.encode(texts[i : i + self.batch_size]))
                 for i in range(0, len(texts), self.batch_size)]
        if not parts:
            return np.zeros((0, 1))
        out = np.concatenate(parts)
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise ScorerError(f"encoder '{self.encoder_spec}' returned shape {out.shape} for "
                              f"{len(texts)} texts")
        return out

    def _embeddings(self, batch: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Embeddings of both sides; reused for the same batch or an ordered row subset of
        it with the same texts (``invalid(batch)`` then ``score(batch[ok])``)."""
        texts = pair_texts(batch)
        hit = self._embedded.lookup(batch, texts)
        if hit is not None:
            (ref, trans), pos = hit
            return ref[pos], trans[pos]
        ref = self._embed(texts[0].to_pylist())
        trans = self._embed(texts[1].to_pylist())
        self._embedded.store(batch, texts, (ref, trans))
        return ref, trans

    def invalid(self, batch: pd.DataFrame) -> pd.Series:
        """Empty texts, and sentences that embed to the zero vector (no known word)."""
        self.check(batch)
        reasons = super().invalid(batch)
        ref, trans = self._embeddings(batch)
        for side, emb in (("trans", trans), ("ref", ref)):
            zero = ~np.any(emb != 0, axis=1) & (reasons == "").to_numpy()
            reasons[zero] = f"{side} has no known word (zero embedding)"
        return reasons

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """Cosine of the two embeddings of every pair."""
        self.check(batch)
        ref, trans = self._embeddings(batch)
        return pd.DataFrame({"para_score": cosine(ref, trans)}, index=batch.index)
