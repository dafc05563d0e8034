"""Sentence encoders over token ids, registered by name (2017 §4.1, 2018 §4, 2019 §2,
Opusparcus §3.1).

An encoder maps a padded batch of ids ``(B, T)`` with their lengths ``(B,)`` to sentence
vectors ``(B, out_dim)``. Row 0 of every embedding table is padding: it is excluded from every
average and from the recurrences (packed sequences), so padding never changes an embedding.
A sentence with no ids encodes to the zero vector.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch
from torch import nn

from paralib.errors import ConfigurationError
from paralib.models.bags import Bags
from paralib.models.tokenizers import PAD


class EncoderError(ConfigurationError, ValueError):
    """An encoder was misconfigured."""


ENCODERS: dict[str, type[Encoder]] = {}


def register(cls: type[Encoder]) -> type[Encoder]:
    """Class decorator: make an encoder available under ``cls.name``."""
    ENCODERS[cls.name] = cls
    return cls


def masked_mean(states: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Mean over the first ``lengths[b]`` steps of ``states[b]`` (zero for an empty row)."""
    steps = torch.arange(states.shape[1], device=states.device)
    mask = (steps[None, :] < lengths[:, None]).to(states.dtype)
    total = (states * mask[..., None]).sum(1)
    return total / lengths.clamp(min=1).to(states.dtype)[:, None]


class Encoder(nn.Module):
    """Base: an embedding table (``size`` rows of ``dim``) plus a composition."""

    name: ClassVar[str] = ""

    def __init__(self, size: int, dim: int, dropout: float = 0.0, **params: Any):
        super().__init__()
        if params:
            raise EncoderError(f"encoder '{self.name}' got unknown parameters {sorted(params)}")
        self.embedding = nn.Embedding(size, dim, padding_idx=PAD)
        self.dropout = nn.Dropout(dropout)
        self.dim = dim

    @property
    def sparse(self) -> bool:
        """Whether the embedding table gets sparse gradients (``nn.Embedding.sparse``, which
        DDP also reads; set by :func:`paralib.train.steps.build_optimizer`)."""
        return self.embedding.sparse

    @sparse.setter
    def sparse(self, value: bool) -> None:
        self.embedding.sparse = value

    @property
    def out_dim(self) -> int:
        """Size of the sentence vectors."""
        return self.dim

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def forward_bags(self, bags: Bags) -> torch.Tensor:
        """Vectors of token-id bags (training's pre-tokenised batches): the padded form
        through :meth:`forward`; averaging encoders read the bags directly."""
        ids, lengths = bags.padded(self.embedding.weight.device)
        return self(ids, lengths)

    def compositional_parameters(self) -> list[nn.Parameter]:
        """The parameters W_c of 2017 §4.2: everything but the word embeddings."""
        return [p for n, p in self.named_parameters() if not n.startswith("embedding.")]
