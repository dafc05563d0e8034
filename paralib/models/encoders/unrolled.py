"""LSTM and GRU recurrences over packed sequences, one time step at a time, for the CPU.

The recurrent encoders (2017 §4.1 GRAN, 2018 §4 LSTM-avg and BLSTM-avg, 2019 §2 BLSTM-SP)
run over packed sequences so that padding never enters a recurrence. PyTorch's CPU kernel for
packed input narrows the precomputed input projection ``(tokens, 4H)`` once per time step,
and the backward pass of each narrow writes a zero tensor of the whole projection, so the
cost grows with tokens × steps: in a profile of an LSTM training step on caption pairs,
filling those zeros took longer than the matrix products (packed input's slowness is
pytorch/pytorch#149194, open). Here the projection is split into its time steps once (its
backward is one concatenation), and only the small hidden state is narrowed as sentences
end.

The arithmetic is PyTorch's (the same weights, gate order and biases: ``nn.LSTM`` i, f, g, o;
``nn.GRU`` r, z, n with ``b_hn`` inside the reset gate), so a module's parameters and
checkpoints are unchanged and the outputs agree with ``nn.LSTM``/``nn.GRU`` to float32
rounding (``tests/models/test_unrolled.py``). On a GPU the cuDNN kernel is faster
and is used instead (:func:`paralib.models.encoders.recurrent.run_rnn`).
``benchmarks/recurrent.py`` times both on the CPU.
"""

from __future__ import annotations

import torch
from torch import nn

from paralib.errors import ConfigurationError


class UnrolledError(ConfigurationError, ValueError):
    """A recurrent module, or a batch, that this unrolling does not cover."""


def _check(rnn: nn.RNNBase) -> None:
    if not isinstance(rnn, nn.LSTM | nn.GRU):
        raise UnrolledError(f"unrolled recurrences cover nn.LSTM and nn.GRU, not "
                            f"{type(rnn).__name__}")
    if rnn.num_layers != 1 or not rnn.bias or getattr(rnn, "proj_size", 0):
        raise UnrolledError("unrolled recurrences cover one layer with biases and no "
                            f"projection, not {rnn}")


def _lstm_step(gates: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    i, f, g, o = gates.chunk(4, 1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c


def _gru_step(gx: torch.Tensor, h: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor
              ) -> torch.Tensor:
    hr, hz, hn = torch.addmm(b_hh, h, w_hh.t()).chunk(3, 1)
    xr, xz, xn = gx.chunk(3, 1)
    r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
    n = torch.tanh(xn + r * hn)
    return n + z * (h - n)


def _direction(rnn: nn.RNNBase, data: torch.Tensor, sizes: list[int], suffix: str
               ) -> torch.Tensor:
    """Hidden states ``(tokens, H)`` of one direction, in the packed order of ``data``."""
    w_ih, w_hh = getattr(rnn, f"weight_ih_l0{suffix}"), getattr(rnn, f"weight_hh_l0{suffix}")
    b_ih, b_hh = getattr(rnn, f"bias_ih_l0{suffix}"), getattr(rnn, f"bias_hh_l0{suffix}")
    lstm = isinstance(rnn, nn.LSTM)
    bias = b_ih + b_hh if lstm else b_ih
    steps = torch.addmm(bias, data, w_ih.t()).split(sizes)
    order = range(len(sizes)) if not suffix else range(len(sizes) - 1, -1, -1)
    # the running states: h, and for an LSTM its cell c (a GRU has none)
    states = [data.new_zeros(0, rnn.hidden_size)] * (2 if lstm else 1)
    out: list[torch.Tensor] = [data] * len(sizes)
    for t in order:
        n, have = sizes[t], states[0].shape[0]
        if n <= have:  # forward: sentences that ended drop out (sizes never grow)
            states = [s[:n] for s in states]
        else:  # backward: sentences whose last token this is start from zero
            fresh = data.new_zeros(n - have, rnn.hidden_size)
            states = [torch.cat([s, fresh]) for s in states]
        if lstm:
            states = list(_lstm_step(torch.addmm(steps[t], states[0], w_hh.t()), states[1]))
        else:
            states = [_gru_step(steps[t], states[0], w_hh, b_hh)]
        out[t] = states[0]
    return torch.cat(out)


def packed_order(lengths: torch.Tensor, steps: int) -> tuple[torch.Tensor, list[int]]:
    """Where each token of a packed batch sits in the flattened ``(B * steps)`` padded batch,
    time step by time step with the longest sentences first (``pack_padded_sequence``'s
    order), and how many sentences are still running at each step."""
    ordered, rows = torch.sort(lengths, descending=True, stable=True)
    t = torch.arange(steps, device=lengths.device)
    running = t[:, None] < ordered[None, :]
    index = (rows[None, :] * steps + t[:, None])[running]
    return index, running.sum(1)[: int(ordered[0])].tolist()


def unrolled_rnn(rnn: nn.RNNBase, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """What ``rnn`` computes over ``x`` (batch-first ``(B, T, D)``) packed to ``lengths``
    (each at least 1), as the padded ``(B, T, H*dirs)`` states with zeros after each
    sentence's end, directions concatenated as PyTorch does. Packing and unpacking are one
    gather and one scatter, whose backward passes are too."""
    _check(rnn)
    batch, steps, dim = x.shape
    if len(lengths) and int(lengths.max()) > steps:
        raise UnrolledError(f"a sentence of {int(lengths.max())} tokens in a batch of "
                            f"{steps} steps")
    index, sizes = packed_order(lengths, steps)
    data = x.reshape(batch * steps, dim).index_select(0, index)
    states = [_direction(rnn, data, sizes, "")]
    if rnn.bidirectional:
        states.append(_direction(rnn, data, sizes, "_reverse"))
    packed = torch.cat(states, 1) if len(states) > 1 else states[0]
    out = packed.new_zeros(batch * steps, packed.shape[1]).index_copy(0, index, packed)
    return out.view(batch, steps, -1)
