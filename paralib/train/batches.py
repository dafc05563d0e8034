"""Training pairs tokenised once: id columns for the Ray dataset and the :class:`PairBatch` the
trainer cuts mega-batches, negatives and mini-batches from (2018 §4
mega-batching), so that no epoch tokenises again.

The driver tokenises every pair once (:func:`token_columns`, Arrow ``list<int32>`` columns
``ids1_K`` / ``ids2_K`` for token stream K of :func:`paralib.models.model.token_streams`);
workers read Arrow batches and take the bags without copying ids into Python lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from paralib.models.bags import Bags
from paralib.models.config import ModelConfig
from paralib.models.model import ParaphraseModel, token_streams
from paralib.models.tokenizers import UNK, Tokenizer

CHUNK = 100_000


def ids_column(side: int, stream: int) -> str:
    """The column of side ``side`` (1 or 2) under token stream ``stream``."""
    return f"ids{side}_{stream}"


def token_columns(data: pd.DataFrame, config: ModelConfig, tokenizers: list[Tokenizer]
                  ) -> dict[str, pa.Array]:
    """``ids1_K`` / ``ids2_K`` of every pair (``s1`` / ``s2``): each distinct sentence of a
    side is tokenised once (a corpus repeats its English sentences across languages and
    versions), in chunks of :data:`CHUNK` sentences, and cut to the stream's ``max_tokens``
    in Arrow."""
    out: dict[str, pa.Array] = {}
    sides = {side: pd.factorize(data[f"s{side}"], use_na_sentinel=False) for side in (1, 2)}
    for k, (tok, cut) in enumerate(token_streams(config, tokenizers)[1]):
        for side, (codes, texts) in sides.items():
            out[ids_column(side, k)] = _encoded(tok, list(texts), cut).take(codes)
    return out


def _encoded(tok: Tokenizer, texts: list[str], cut: int | None) -> pa.Array:
    """The ids of ``texts``, at most ``cut`` per sentence, as Arrow ``list<int32>``."""
    kind = pa.list_(pa.int32())
    chunks = [pa.array(tok.encode(texts[i:i + CHUNK]), type=kind)
              for i in range(0, len(texts), CHUNK)]
    ids = pa.concat_arrays(chunks) if chunks else pa.array([], type=kind)
    return ids if cut is None else pc.list_slice(ids, 0, cut)


def all_unknown(columns: dict[str, pa.Array], n: int) -> np.ndarray:
    """Rows with a side whose ids are all ``<unk>`` in every token stream (it would train on
    ``<unk>`` alone)."""
    bad = np.zeros(n, dtype=bool)
    for side in (1, 2):
        unknown = np.ones(n, dtype=bool)
        for name, column in columns.items():
            if name.startswith(f"ids{side}_"):
                bags = Bags.from_arrow(column)
                unk = np.bincount(bags.rows(), weights=bags.ids == UNK, minlength=n)
                unknown &= unk == bags.lengths
        bad |= unknown
    return bad


@dataclass(frozen=True)
class PairBatch:
    """Pairs as bags per token stream, with their groups and labels."""

    side1: list[Bags]
    side2: list[Bags]
    groups: np.ndarray | None = None
    labels: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.side1[0])

    @classmethod
    def concat(cls, batches: Sequence[PairBatch]) -> PairBatch:
        if len(batches) == 1:
            return batches[0]
        first = batches[0]

        def cat(attr: str) -> np.ndarray | None:
            parts = [getattr(b, attr) for b in batches]
            return None if any(p is None for p in parts) else np.concatenate(parts)

        return cls([Bags.concat([b.side1[k] for b in batches]) for k in range(len(first.side1))],
                   [Bags.concat([b.side2[k] for b in batches]) for k in range(len(first.side2))],
                   cat("groups"), cat("labels"))

    def slice(self, start: int, stop: int) -> PairBatch:
        return PairBatch([b.slice(start, stop) for b in self.side1],
                         [b.slice(start, stop) for b in self.side2],
                         None if self.groups is None else self.groups[start:stop],
                         None if self.labels is None else self.labels[start:stop])


def pair_batch(batch: pa.Table | pd.DataFrame, model: ParaphraseModel,
               groups: bool = True) -> PairBatch:
    """A :class:`PairBatch` of a Ray Data batch (Arrow, with id columns) or of a DataFrame of
    texts ``s1`` / ``s2`` (tokenised here); ``groups`` keeps the ``group`` column."""
    streams = len(token_streams(model.config, model.tokenizers)[1])
    names = batch.column_names if isinstance(batch, pa.Table) else list(batch.columns)
    if ids_column(1, 0) in names:
        side1 = [Bags.from_arrow(batch[ids_column(1, k)]) for k in range(streams)]
        side2 = [Bags.from_arrow(batch[ids_column(2, k)]) for k in range(streams)]
    else:
        texts = batch.to_pandas() if isinstance(batch, pa.Table) else batch
        side1, side2 = model.bags(texts["s1"].tolist()), model.bags(texts["s2"].tolist())

    def column(name: str) -> np.ndarray | None:
        if name not in names:
            return None
        values = batch[name]
        return np.asarray(values.to_numpy() if isinstance(values, pa.ChunkedArray) else values)

    return PairBatch(side1, side2, column("group") if groups else None, column("label"))
