"""GRAN: a recurrent network gates each word vector before averaging (2017 §4.1 eq. 1 with an
LSTM; Opusparcus §3.1 with a GRU).

``a_t = x_t ⊙ σ(W_x x_t + W_h h_t + b)``, ``g(s) = mean_t a_t``. With the gate at 1 it is AVG.
The GRU variant uses PyTorch's GRU cell (tanh candidate state; Opusparcus used leaky ReLU) and
Xavier-initialised recurrent weights as that paper did.
"""

from __future__ import annotations

import torch
from torch import nn

from paralib.models.encoders.base import Encoder, register
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
        """The gates are computed for the tokens only, not for the padding after them (a
        batch of captions is mostly padding), and averaged per sentence."""
        x = self.dropout(self.embedding(ids))
        h = run_rnn(self.rnn, x, lengths)
        real = torch.arange(ids.shape[1], device=ids.device)[None, :] < lengths[:, None]
        x, h = x[real], h[real]  # (tokens, dim), sentence after sentence
        gated = x * torch.sigmoid(self.gate_x(x) + self.gate_h(h))
        rows = torch.arange(len(ids), device=ids.device).repeat_interleave(lengths.long())
        total = gated.new_zeros(len(ids), gated.shape[1]).index_add(0, rows, gated)
        return total / lengths.clamp(min=1).to(total.dtype)[:, None]


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
