"""Embedding averaging: WORD / AVG, TRIGRAM and SP are this encoder over word, character-trigram
and sentencepiece ids (2017 §4.1 AVG, 2018 §4, 2019 §2 SP, Opusparcus §3.1 WA)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from paralib.models.bags import Bags
from paralib.models.encoders.base import Encoder, EncoderError, masked_mean, register
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
    sentence gives the zero vector). In training, dropout (2019 §3.1: 0.3) acts on each token
    embedding (``dropout_on: tokens``, an explicit masked mean) or on the mean
    (``sentence``).

    Without gradients (encoding, mining, dev scores) the padding is dropped before
    ``embedding_bag`` (flat ids and offsets) instead of being passed as ``padding_idx``:
    the vectors are bit-for-bit the same, but ``padding_idx`` keeps PyTorch off its fast CPU
    kernel (3-5x slower). With gradients the ``padding_idx`` form stays, so that the
    gradient's summation order is unchanged."""

    name = "avg"

    def __init__(self, size: int, dim: int, dropout: float = 0.0,
                 dropout_on: str = "sentence"):
        super().__init__(size, dim, dropout)
        if dropout_on not in ("tokens", "sentence"):
            raise EncoderError(f"dropout_on must be tokens or sentence, got {dropout_on!r}")
        self.dropout_on = dropout_on

    def _noisy(self) -> bool:
        return self.training and self.dropout.p > 0

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if self._noisy() and self.dropout_on == "tokens":
            return masked_mean(self.dropout(self.embedding(ids)), lengths)
        weight = self.embedding.weight
        if torch.is_grad_enabled() and weight.requires_grad:
            mean = F.embedding_bag(ids, weight, mode="mean", padding_idx=PAD)
        else:
            flat, offsets = bags(ids)
            mean = F.embedding_bag(flat, weight, offsets, mode="mean")
        return self.dropout(mean) if self._noisy() else mean

    def forward_bags(self, bags: Bags) -> torch.Tensor:
        """The mean over each bag without any padding: one ``embedding_bag`` (sparse gradient
        rows with ``self.sparse``), its dropout with ``dropout_on: sentence``; with token
        dropout in training the token embeddings gathered flat, dropped out and summed per
        sentence (the same noise as :meth:`forward`'s, on only the real tokens)."""
        weight = self.embedding.weight
        ids, offsets = bags.tensors(weight.device)
        if not (self._noisy() and self.dropout_on == "tokens"):
            mean = F.embedding_bag(ids, weight, offsets, mode="mean", sparse=self.sparse)
            return self.dropout(mean) if self._noisy() else mean
        lengths = torch.from_numpy(bags.lengths).to(weight.device)
        rows = torch.repeat_interleave(torch.arange(len(bags), device=weight.device), lengths)
        tokens = self.dropout(F.embedding(ids, weight, sparse=self.sparse))
        total = tokens.new_zeros(len(bags), tokens.shape[1]).index_add_(0, rows, tokens)
        return total / lengths.clamp(min=1).to(total.dtype)[:, None]
