"""Regularisers (2017 §4.2 and §5.2, 2018 §5.2, 2019 §3.1): the weight penalties
λ_w‖W − W_initial‖² and λ_c‖W_c‖² (word dropout and scrambling act on the token bags:
:meth:`paralib.models.bags.Bags.noised`)."""

from __future__ import annotations

import torch

from paralib.models.model import ParaphraseModel
from paralib.train.config import RegularisationConfig


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
