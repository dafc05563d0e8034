"""Loss values on tiny hand-made embeddings (2017 §4.2 margin loss, Opusparcus §3.2)."""

from __future__ import annotations

import math

import pytest
import torch

from paralib.losses import ContrastiveLoss, MarginLoss

s1 = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
s2 = torch.tensor([[1.0, 1.0], [0.0, 2.0]])  # cos 1/sqrt2 and 1
t1 = torch.tensor([[0.0, 1.0], [1.0, 0.0]])  # cos(s1, t1) = 0 and 0
t2 = torch.tensor([[1.0, 1.0], [0.0, -1.0]])  # cos(s2, t2) = 1 and -1


def test_margin_loss_by_hand():
    r = 1 / math.sqrt(2)
    # pair 0: max(0, .4 - r + 0) + max(0, .4 - r + 1); pair 1: max(0, .4-1+0) + max(0, .4-1-1)
    want = (max(0, 0.4 - r) + max(0, 0.4 - r + 1) + 0 + 0) / 2
    assert MarginLoss(0.4)(s1, s2, t1, t2).item() == pytest.approx(want, abs=1e-6)
    one_sided = (max(0, 0.4 - r) + 0) / 2
    assert MarginLoss(0.4, symmetric=False)(s1, s2, t1).item() == pytest.approx(one_sided,
                                                                                abs=1e-6)
    assert MarginLoss(0.1)(s1, s2, t1, t2).item() == pytest.approx((0.1 - r + 1) / 2, abs=1e-6)
    with pytest.raises(ValueError, match="t2"):
        MarginLoss()(s1, s2, t1)


def test_contrastive_loss_by_hand():
    label = torch.tensor([1, 0])
    d0 = 1 - 1 / math.sqrt(2)  # positive pair: pulled by its distance
    d1 = 0.0  # negative pair at distance 0: pushed by (m - 0)^2
    want = (d0 + (0.5 - d1) ** 2) / 2
    assert ContrastiveLoss(0.5)(s1, s2, label).item() == pytest.approx(want, abs=1e-6)
    far = torch.tensor([[0.0, -1.0], [-1.0, 0.0]])  # distance 2 > m: no loss for negatives
    assert ContrastiveLoss(0.5)(s1, far, torch.tensor([0, 0])).item() == 0.0


def test_margin_loss_gradients_are_finite_for_zero_vectors():
    z = torch.zeros(2, 2, requires_grad=True)
    loss = MarginLoss()(z, s2, t1, t2)
    loss.backward()
    assert torch.isfinite(loss) and torch.isfinite(z.grad).all()
