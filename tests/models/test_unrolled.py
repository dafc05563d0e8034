"""The CPU's unrolled recurrences compute what PyTorch's packed LSTM and GRU compute: the same
states (zeros after each sentence's end) and the same gradients for every parameter."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from paralib.models.encoders.unrolled import UnrolledError, packed_order, unrolled_rnn


def reference(rnn: nn.RNNBase, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    out, _ = pad_packed_sequence(rnn(packed)[0], batch_first=True, total_length=x.shape[1])
    return out


def grads(rnn: nn.RNNBase, x: torch.Tensor, out: torch.Tensor, weights: torch.Tensor
          ) -> list[torch.Tensor]:
    rnn.zero_grad()
    x.grad = None
    (out * weights).sum().backward()
    return [x.grad.clone()] + [p.grad.clone() for p in rnn.parameters()]


@pytest.mark.parametrize("cell", [nn.LSTM, nn.GRU])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_states_and_gradients_match_pytorch(cell, bidirectional):
    torch.manual_seed(0)
    rnn = cell(6, 5, batch_first=True, bidirectional=bidirectional)
    lengths = torch.tensor([3, 7, 1, 7, 4, 2])  # ties, a one-token sentence, unsorted
    x = torch.randn(6, 9, 6, requires_grad=True)  # two columns past the longest sentence
    ours, theirs = unrolled_rnn(rnn, x, lengths), reference(rnn, x, lengths)
    assert ours.shape == theirs.shape == (6, 9, 5 * (2 if bidirectional else 1))
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    assert torch.all(ours[2, 1:] == 0) and torch.all(ours[0, 3:] == 0)
    weights = torch.randn_like(theirs)  # a loss that weighs every state differently
    for a, b in zip(grads(rnn, x, ours, weights), grads(rnn, x, theirs, weights), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def test_padding_does_not_enter_the_backward_direction():
    torch.manual_seed(0)
    rnn = nn.LSTM(4, 3, batch_first=True, bidirectional=True)
    x = torch.randn(1, 3, 4)
    wide = torch.cat([x, torch.randn(1, 5, 4)], 1)  # five garbage steps after the sentence
    torch.testing.assert_close(unrolled_rnn(rnn, wide, torch.tensor([3]))[:, :3],
                               unrolled_rnn(rnn, x, torch.tensor([3])))


def test_packed_order_is_pack_padded_sequence_order():
    lengths = torch.tensor([2, 4, 1, 4])
    x = torch.arange(4 * 5).view(4, 5, 1).float()  # each token's value is its flat index
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    index, sizes = packed_order(lengths, 5)
    assert index.tolist() == packed.data.view(-1).long().tolist()
    assert sizes == packed.batch_sizes.tolist() == [4, 3, 2, 2]


def test_other_recurrences_are_refused():
    with pytest.raises(UnrolledError, match="nn.LSTM and nn.GRU, not RNN"):
        unrolled_rnn(nn.RNN(3, 3), torch.zeros(1, 2, 3), torch.tensor([2]))
    with pytest.raises(UnrolledError, match="a sentence of 5 tokens in a batch of 3 steps"):
        unrolled_rnn(nn.LSTM(3, 3), torch.zeros(2, 3, 3), torch.tensor([5, 2]))
    with pytest.raises(UnrolledError, match="one layer"):
        unrolled_rnn(nn.LSTM(3, 3, num_layers=2), torch.zeros(1, 2, 3), torch.tensor([2]))
