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
    """``g(s) = mean_t W[w_t]``: an ``embedding_bag`` mean (one fused kernel; an empty
    sentence gives the zero vector), or in training with dropout an explicit masked mean, so
    that dropout acts on each token embedding.

    Without gradients (encoding, mining, dev scores) the padding is dropped before
    ``embedding_bag`` (flat ids and offsets) instead of being passed as ``padding_idx``:
    the vectors are bit-for-bit the same, but ``padding_idx`` keeps PyTorch off its fast CPU
    kernel (3-5x slower). With gradients the ``padding_idx`` form stays, so that the
    gradient's summation order is unchanged."""

    name = "avg"

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if self.training and self.dropout.p > 0:
            return masked_mean(self.dropout(self.embedding(ids)), lengths)
        weight = self.embedding.weight
        if torch.is_grad_enabled() and weight.requires_grad:
            return F.embedding_bag(ids, weight, mode="mean", padding_idx=PAD)
        flat, offsets = bags(ids)
        return F.embedding_bag(flat, weight, offsets, mode="mean")
