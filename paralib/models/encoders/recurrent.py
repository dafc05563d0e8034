"""LSTM-avg and BLSTM-avg: the mean of the (bi)LSTM hidden states (2018 §4; 2019 §2 BLSTM-SP).

The BLSTM averages the forward and backward states at each step instead of concatenating them
(2018 §4, footnote 4), so both give vectors of the hidden size.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from paralib.models.encoders.base import Encoder, masked_mean, register
from paralib.models.encoders.unrolled import unrolled_rnn

# False: PyTorch's packed kernel on the CPU as well (``benchmarks/recurrent.py`` times both)
UNROLL_ON_CPU = True


def run_rnn(rnn: nn.RNNBase, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Hidden states ``(B, T, H*dirs)`` of a batch-first RNN over packed sequences, so that
    padding never enters the recurrence. Empty rows run one padding step that
    :func:`masked_mean` later ignores. On the CPU the recurrence is unrolled in
    :mod:`~paralib.models.encoders.unrolled` (the same arithmetic, a cheaper backward pass);
    on a GPU it is PyTorch's (cuDNN) kernel."""
    if UNROLL_ON_CPU and not x.is_cuda:
        return unrolled_rnn(rnn, x, lengths.clamp(min=1))
    packed = pack_padded_sequence(x, lengths.clamp(min=1).cpu(), batch_first=True,
                                  enforce_sorted=False)
    out, _ = pad_packed_sequence(rnn(packed)[0], batch_first=True, total_length=x.shape[1])
    return out


@register
class LSTMEncoder(Encoder):
    """LSTM-avg: ``g(s) = mean_t h_t``."""

    name = "lstm"
    bidirectional = False

    def __init__(self, size: int, dim: int, hidden: int | None = None, dropout: float = 0.0):
        super().__init__(size, dim, dropout)
        self.hidden = hidden or dim
        self.rnn = nn.LSTM(dim, self.hidden, batch_first=True, bidirectional=self.bidirectional)

    @property
    def out_dim(self) -> int:
        return self.hidden

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        states = run_rnn(self.rnn, self.dropout(self.embedding(ids)), lengths)
        if self.bidirectional:
            states = 0.5 * (states[..., : self.hidden] + states[..., self.hidden:])
        return masked_mean(states, lengths)


@register
class BLSTMEncoder(LSTMEncoder):
    """BLSTM-avg: forward and backward states averaged per step, then over steps."""

    name = "blstm"
    bidirectional = True
