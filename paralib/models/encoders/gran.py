"""GRAN: a recurrent network gates each word vector before averaging (2017 §4.1 eq. 1 with an
LSTM; Opusparcus §3.1 with a GRU).

``a_t = x_t ⊙ σ(W_x x_t + W_h h_t + b)``, ``g(s) = mean_t a_t``. With the gate at 1 it is AVG.
The GRU variant uses PyTorch's GRU cell (tanh candidate state; Opusparcus used leaky ReLU) and
Xavier-initialised recurrent weights as that paper did.
"""

from __future__ import annotations

import torch
from torch import nn

from paralib.models.encoders.base import Encoder, masked_mean, register
from paralib.models.encoders.recurrent import run_rnn


@register
class GRANEncoder(Encoder):
    """LSTM-gated recurrent averaging network (2017 eq. 1)."""

    name = "gran"
    cell: type[nn.RNNBase] = nn.LSTM

    def __init__(self, size: int, dim: int, hidden: int | None = None, dropout: float = 0.0):
        super().__init__(size, dim, dropout)
        self.hidden = hidden or dim
        self.rnn = self.cell(dim, self.hidden, batch_first=True)
        self.gate_x = nn.Linear(dim, dim, bias=True)  # W_x and b
        self.gate_h = nn.Linear(self.hidden, dim, bias=False)  # W_h

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        x = self.dropout(self.embedding(ids))
        h = run_rnn(self.rnn, x, lengths)
        return masked_mean(x * torch.sigmoid(self.gate_x(x) + self.gate_h(h)), lengths)


@register
class GRUGRANEncoder(GRANEncoder):
    """GRU-gated GRAN (Opusparcus §3.1)."""

    name = "gran-gru"
    cell = nn.GRU

    def __init__(self, size: int, dim: int, hidden: int | None = None, dropout: float = 0.0):
        super().__init__(size, dim, hidden, dropout)
        for name, p in self.rnn.named_parameters():
            if name.startswith("weight"):
                nn.init.xavier_uniform_(p)
