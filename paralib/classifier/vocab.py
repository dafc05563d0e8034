"""Vocabulary and batching of the reference/translation classifier (2017 §5.6.1)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import torch

from paralib.text import tokenize_all

PAD, UNK = "<pad>", "<unk>"


class Vocab:
    """Word → index, with ``<pad>`` = 0 and ``<unk>`` = 1."""

    def __init__(self, words: Iterable[str]):
        self.words = [PAD, UNK, *[w for w in words if w not in (PAD, UNK)]]
        self.index = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    @classmethod
    def build(cls, texts: Iterable[str], max_size: int = 50_000, min_count: int = 1) -> Vocab:
        """The ``max_size`` most frequent tokens of ``texts`` seen ``min_count`` times or more."""
        counts = Counter(tok for toks in tokenize_all(texts) for tok in toks)
        return cls(w for w, c in counts.most_common(max_size) if c >= min_count)

    def save(self, path: str | Path) -> None:
        """One word a line, in index order."""
        Path(path).write_text("\n".join(self.words) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Vocab:
        """Read a file written by :meth:`save`."""
        return cls(Path(path).read_text(encoding="utf-8").splitlines()[2:])

    def encode(self, texts: list[str], max_len: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Padded index matrix ``[n, L]`` and lengths ``[n]`` (``L`` ≤ ``max_len``)."""
        ids = [[self.index.get(t, 1) for t in toks[:max_len]] for toks in tokenize_all(texts)]
        lengths = torch.tensor([len(x) for x in ids], dtype=torch.long)
        width = max(1, int(lengths.max()) if len(ids) else 1)
        mat = torch.zeros((len(ids), width), dtype=torch.long)
        for i, row in enumerate(ids):
            if row:
                mat[i, : len(row)] = torch.tensor(row, dtype=torch.long)
        return mat, lengths
