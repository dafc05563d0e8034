"""The evaluated system and the interfaces it wraps (:mod:`paralib.evaluate.encoders` builds
them, :mod:`paralib.evaluate.peers` loads peers' folders, every suite takes an
:class:`EvalModel`).

An *encoder* is anything with ``encode(sentences, batch_size=256, normalize=False)``
returning an ``(n, d)`` float array (:class:`EvalEncoder`, the interface of
``paralib.models.load``). A *pair scorer* gives a similarity to sentence pairs directly
(:class:`PairScorer`; sentence BLEU, 2018 Table 8): it takes part in the pair tasks (STS,
detection) and is ``n/a`` elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from paralib.errors import ConfigurationError


@runtime_checkable
class EvalEncoder(Protocol):
    """A sentence encoder (``paralib.models.SentenceEncoder`` and the encoder baselines)."""

    def encode(self, sentences: list[str], batch_size: int = 256, normalize: bool = False
               ) -> np.ndarray:
        """Embeddings of ``sentences`` as an ``(n, d)`` float array."""
        ...


@runtime_checkable
class PairScorer(Protocol):
    """A similarity of sentence pairs that is not an encoder (sentence BLEU)."""

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        """One similarity per pair ``(a[i], b[i])``."""
        ...


class Rebuildable(Protocol):
    """How to rebuild an encoder in another process (a Ray Data actor), as
    :class:`paralib.evaluate.encoders.EncoderSource` does: picklable, with a ``load()``."""

    def load(self) -> EvalEncoder:
        """Build the encoder (called once per actor)."""
        ...


class EvaluateError(ConfigurationError, ValueError):
    """A model or baseline cannot be evaluated (bad folder, unknown name, missing package)."""


@dataclass
class EvalModel:
    """One evaluated system.

    ``languages`` are ISO 639-1 codes, or ``None`` for a language-agnostic pair scorer.
    ``source`` is set when the encoder can be rebuilt inside a Ray actor.
    """

    name: str
    encoder: Any
    languages: tuple[str, ...] | None
    source: Rebuildable | None = None
    description: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def is_encoder(self) -> bool:
        """True for sentence encoders, False for pair scorers."""
        return not isinstance(self.encoder, PairScorer) and hasattr(self.encoder, "encode")

    def covers(self, *langs: str) -> bool:
        """Whether every language in ``langs`` is covered."""
        return self.languages is None or all(lang in self.languages for lang in langs)

    def coverage(self) -> str:
        """The covered languages, for messages: ``(de, en)``."""
        return "(any language)" if self.languages is None else f"({', '.join(self.languages)})"


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; all-zero rows stay zero (their cosine with anything is 0)."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, 1e-12)


class SentenceTransformerEncoder:
    """Any loaded ``SentenceTransformer`` as an evaluation encoder (float32 vectors)."""

    def __init__(self, model, languages: tuple[str, ...] = ("en",)):
        self.model, self.languages = model, tuple(languages)

    def encode(self, sentences: list[str], batch_size: int = 256, normalize: bool = False
               ) -> np.ndarray:
        """The model's sentence embeddings."""
        return np.asarray(self.model.encode(list(sentences), batch_size=batch_size,
                                            normalize_embeddings=normalize,
                                            convert_to_numpy=True, show_progress_bar=False),
                          dtype=np.float32)
