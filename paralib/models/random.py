"""Randomly initialised encoders: the baselines of 2019 Table 2 (SP with 20k and 40k pieces,
TRIGRAM), whose vocabulary is fitted on a text sample and whose embeddings are never trained."""

from __future__ import annotations

import torch

from paralib.models.config import ModelConfig, PartConfig
from paralib.models.model import ParaphraseModel, fit_tokenizers
from paralib.models.pretrained import SentenceEncoder


def random_encoder(kind: str, texts: list[str], *, vocab_size: int = 20000, dim: int = 300,
                   seed: int = 0, languages: tuple[str, ...] = ("en",)) -> SentenceEncoder:
    """An untrained encoder ``kind`` (any encoder name: ``sp``, ``trigram``, ``word``...)."""
    config = ModelConfig(parts=[PartConfig(name=kind, vocab_size=vocab_size, dim=dim)])
    torch.manual_seed(seed)
    model = ParaphraseModel(config, fit_tokenizers(config, texts))
    model.initialise()
    return SentenceEncoder(model, languages, {"random": True, "kind": kind, "seed": seed})
