"""Embedding averaging: WORD / AVG, TRIGRAM and SP are this encoder over word, character-trigram
and sentencepiece ids (2017 §4.1 AVG, 2018 §4, 2019 §2 SP, Opusparcus §3.1 WA)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from paralib.models.encoders.base import Encoder, masked_mean, register
from paralib.models.tokenizers import PAD


def bags(ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The non-padding ids of a padded ``(B, T)`` batch, flat in row order, and the offset of
    each row's first id (an empty row is an empty bag)."""
    keep = ids != PAD
    counts = keep.sum(1)
    offsets = torch.zeros_like(counts)
    torch.cumsum(counts[:-1], 0, out=offsets[1:])
    return ids.masked_select(keep), offsets


@register
class AverageEncoder(Encoder):
    """``g(s) = mean_t W[w_t]``. In evaluation an ``embedding_bag`` mean over flat ids and
    offsets (one fused kernel; an empty bag gives the zero vector); in training an explicit
    masked mean, so that dropout acts on each token embedding.

    The padding is dropped before ``embedding_bag`` rather than passed as ``padding_idx``:
    the result is the same mean over the non-padding ids, but ``padding_idx`` makes PyTorch
    leave its fast CPU kernel (3-5x slower on encode)."""

    name = "avg"

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if self.training and self.dropout.p > 0:
            return masked_mean(self.dropout(self.embedding(ids)), lengths)
        flat, offsets = bags(ids)
        return F.embedding_bag(flat, self.embedding.weight, offsets, mode="mean")
