"""Regularisers (2017 §4.2 and §5.2, 2018 §5.2, 2019 §3.1): the weight penalties
λ_w‖W − W_initial‖² and λ_c‖W_c‖², word dropout, and word-order scrambling."""

from __future__ import annotations

import numpy as np
import torch

from paralib.models.model import IdsTransform, ParaphraseModel
from paralib.train.config import RegularisationConfig


def make_transform(cfg: RegularisationConfig, rng: np.random.Generator) -> IdsTransform | None:
    """The token-level noise applied to training sentences (``None`` when there is none).

    Word dropout removes each token with probability ``word_dropout`` (one token is always
    kept); scrambling shuffles a sentence's tokens with probability ``scramble_rate``."""
    if cfg.word_dropout == 0 and cfg.scramble_rate == 0:
        return None

    def transform(seqs: list[list[int]]) -> list[list[int]]:
        out = []
        for s in seqs:
            if cfg.word_dropout and len(s) > 1:
                keep = rng.random(len(s)) >= cfg.word_dropout
                if not keep.any():
                    keep[rng.integers(len(s))] = True
                s = [t for t, k in zip(s, keep, strict=True) if k]
            if cfg.scramble_rate and len(s) > 1 and rng.random() < cfg.scramble_rate:
                s = list(rng.permutation(s))
            out.append(s)
        return out

    return transform


def penalty(model: ParaphraseModel, initial: list[torch.Tensor] | None,
            cfg: RegularisationConfig) -> torch.Tensor | None:
    """``λ_w Σ‖W − W_initial‖² + λ_c Σ‖W_c‖²`` (``None`` when both weights are 0)."""
    terms = []
    if cfg.lambda_w and initial is not None:
        terms.append(cfg.lambda_w * sum(((w - w0) ** 2).sum() for w, w0 in
                                        zip(model.word_embeddings(), initial, strict=True)))
    if cfg.lambda_c:
        params = model.compositional_parameters()
        if params:
            terms.append(cfg.lambda_c * sum((p ** 2).sum() for p in params))
    return sum(terms) if terms else None
