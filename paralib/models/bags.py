"""Token-id bags: the ids of many sentences as one flat array with row offsets, no padding.

Training tokenises its pairs once (tokenising every epoch cost more than the training step)
and keeps them as bags: a mega-batch, its mined negatives and each mini-batch are cut out of
them by index, and averaging encoders read them straight into ``embedding_bag`` (2018 §4,
2019 §2: ``g(s)`` is a mean of token embeddings, so no padded ``(B, T)`` tensor is needed).
Recurrent encoders get the padded form (:meth:`Bags.padded`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from paralib.models.tokenizers import PAD


@dataclass(frozen=True)
class Bags:
    """``ids[offsets[i]:offsets[i + 1]]`` are the ids of sentence ``i`` (``offsets[0] == 0``)."""

    ids: np.ndarray
    offsets: np.ndarray

    @classmethod
    def from_lists(cls, seqs: Sequence[Sequence[int]], max_tokens: int | None = None) -> Bags:
        """Bags of id lists, each cut to its first ``max_tokens`` ids."""
        lengths = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
        kept: Iterable[Sequence[int]] = seqs
        if max_tokens is not None:
            np.minimum(lengths, max_tokens, out=lengths)
            kept = (s if len(s) <= max_tokens else s[:max_tokens] for s in seqs)
        offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        ids = np.fromiter(itertools.chain.from_iterable(kept), dtype=np.int64,
                          count=int(offsets[-1]))
        return cls(ids, offsets)

    @classmethod
    def from_arrow(cls, column) -> Bags:
        """Bags of an Arrow ``list<int>`` column or array (chunked or sliced)."""
        import pyarrow as pa

        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        offsets = column.offsets.to_numpy().astype(np.int64)
        ids = column.values.to_numpy()[offsets[0]:offsets[-1]].astype(np.int64)
        return cls(ids, offsets - offsets[0])

    @classmethod
    def concat(cls, parts: Sequence[Bags]) -> Bags:
        """The sentences of ``parts`` one after the other."""
        if len(parts) == 1:
            return parts[0]
        ends = np.cumsum([0] + [int(p.offsets[-1]) for p in parts[:-1]])
        offsets = np.concatenate([[0]] + [p.offsets[1:] + e for p, e in zip(parts, ends,
                                                                           strict=True)])
        return cls(np.concatenate([p.ids for p in parts]), offsets.astype(np.int64))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def take(self, index: np.ndarray | Sequence[int]) -> Bags:
        """The sentences at ``index``, in that order (one gather, no Python loop)."""
        index = np.asarray(index, dtype=np.int64)
        starts = self.offsets[index]
        lengths = self.offsets[index + 1] - starts
        offsets = np.zeros(len(index) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        pos = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
        return Bags(self.ids[pos], offsets)

    def slice(self, start: int, stop: int) -> Bags:
        """Sentences ``start … stop − 1``."""
        a, b = self.offsets[start], self.offsets[stop]
        return Bags(self.ids[a:b], self.offsets[start:stop + 1] - a)

    def rows(self) -> np.ndarray:
        """The sentence index of every id."""
        return np.repeat(np.arange(len(self)), self.lengths)

    def to_lists(self) -> list[list[int]]:
        return [self.ids[a:b].tolist() for a, b in zip(self.offsets[:-1], self.offsets[1:],
                                                       strict=True)]

    def noised(self, word_dropout: float, scramble_rate: float, rng: np.random.Generator
               ) -> Bags:
        """Word dropout and scrambling (2017 §5.2, 2018 §5.2), vectorised: each id of a
        sentence of two or more is dropped with probability ``word_dropout`` (a sentence that
        would lose all keeps one at random); a sentence is shuffled with probability
        ``scramble_rate``."""
        bags = self
        if word_dropout:
            rows, lengths = bags.rows(), bags.lengths
            keep = (rng.random(len(bags.ids)) >= word_dropout) | (lengths[rows] < 2)
            kept = np.bincount(rows, weights=keep, minlength=len(bags)).astype(np.int64)
            lost = np.flatnonzero((kept == 0) & (lengths > 0))
            if len(lost):
                keep[bags.offsets[lost] + (rng.random(len(lost)) * lengths[lost]).astype(
                    np.int64)] = True
                kept[lost] = 1
            offsets = np.zeros_like(bags.offsets)
            np.cumsum(kept, out=offsets[1:])
            bags = Bags(bags.ids[keep], offsets)
        if scramble_rate:
            rows = bags.rows()
            shuffled = rng.random(len(bags)) < scramble_rate
            key = np.where(shuffled[rows], rng.random(len(bags.ids)),
                           np.arange(len(bags.ids)) - bags.offsets[rows])
            bags = Bags(bags.ids[np.lexsort((key, rows))], bags.offsets)
        return bags

    def tensors(self, device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
        """``(ids, offsets)`` for ``embedding_bag``: flat ids and each sentence's first
        position (``len(self)`` entries)."""
        return (torch.from_numpy(self.ids).to(device),
                torch.from_numpy(self.offsets[:-1].copy()).to(device))

    def padded(self, device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
        """Right-padded ``(B, T)`` ids and ``(B,)`` lengths (the recurrent encoders, and every
        encoder outside training): all ids go into the matrix in one masked assignment."""
        lengths = self.lengths
        width = max(int(lengths.max(initial=0)), 1)
        ids = np.full((len(self), width), PAD, dtype=np.int64)
        ids[np.arange(width) < lengths[:, None]] = self.ids
        return torch.from_numpy(ids).to(device), torch.from_numpy(lengths).to(device)
