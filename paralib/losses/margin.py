"""The margin loss with negative examples (2017 §4.2, 2018 §4, 2019 §2 eq. 1).

``max(0, δ − cos(g(s1), g(s2)) + cos(g(s1), g(t1))) + max(0, δ − cos(g(s1), g(s2)) +
cos(g(s2), g(t2)))`` averaged over the pairs; δ = 0.4 in all three papers. With
``symmetric=False`` only the first term is used (the 2018/2019 form with one negative).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from paralib.losses.base import PairLoss, register


@register
class MarginLoss(PairLoss):
    """Hinge on the cosine gap between a pair and its negatives."""

    name = "margin"
    needs_negatives = True

    def __init__(self, margin: float = 0.4, symmetric: bool = True):
        super().__init__()
        self.margin, self.symmetric = margin, symmetric

    def forward(self, s1: torch.Tensor, s2: torch.Tensor, t1: torch.Tensor,
                t2: torch.Tensor | None = None) -> torch.Tensor:
        pos = F.cosine_similarity(s1, s2, dim=-1, eps=1e-8)
        loss = F.relu(self.margin - pos + F.cosine_similarity(s1, t1, dim=-1, eps=1e-8))
        if self.symmetric:
            if t2 is None:
                raise ValueError("the symmetric margin loss needs negatives t2 for s2")
            loss = loss + F.relu(self.margin - pos + F.cosine_similarity(s2, t2, dim=-1,
                                                                          eps=1e-8))
        return loss.mean()
