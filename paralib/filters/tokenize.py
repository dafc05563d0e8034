"""Both sides of a batch of pairs as integer tokens, for the length, overlap, BLEU and LM
scorers (2017 §5.5-5.7), tokenised by paralib's one rule (:mod:`paralib.text`).

A batch is tokenised once into flat integer arrays (a vocabulary shared by the two columns,
tokens per sentence), and the clipped n-gram matches of every pair are counted with one numpy
sort per order over packed (pair, n-gram) keys, not with per-row dictionaries.
:func:`pair_tokens` reuses the result for the batch object it was given through a
:class:`BatchCache` its caller owns: a scoring actor gives one to all its scorers, so the
length, overlap, BLEU, duplicates and LM scorers share one tokenisation of each batch.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from paralib.text import arrow_strings, token_lists

# Keys of (pair, n-gram) are packed into int64; above this many bits the n-gram ids are first
# made dense (exact either way).
_KEY_BITS = 62


@dataclass
class PairTokens:
    """Both sides of a batch of pairs as integer token ids.

    ``lengths[side]`` is the number of tokens of each sentence, ``vocab`` the distinct tokens
    of the batch, ``ids[side]`` the flat int64 array of each token's index in ``vocab``,
    ``joined[side]`` the texts as space-joined tokens (Arrow strings). ``matches(n)`` gives
    the clipped n-gram matches between the sides and ``totals(side, n)`` the number of
    n-grams of a side (cached per order).
    """

    ids: dict[str, np.ndarray]
    lengths: dict[str, np.ndarray]
    joined: dict[str, pa.Array]
    vocab: list[str]
    _matches: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    _grams: dict[int, tuple[np.ndarray, int]] = field(default_factory=dict, repr=False)
    _layout: tuple[np.ndarray, ...] | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        """Number of pairs."""
        return len(self.lengths["ref"])

    def totals(self, side: str, order: int) -> np.ndarray:
        """Number of ``order``-grams of each sentence of ``side`` (0 when it is shorter)."""
        return np.maximum(self.lengths[side] - order + 1, 0)

    def matches(self, order: int) -> np.ndarray:
        """Clipped ``order``-gram matches per pair: sum over n-grams g of min(c_ref, c_trans)."""
        if order not in self._matches:
            self._matches[order] = self._count_matches(order)
        return self._matches[order]

    def take(self, rows: np.ndarray) -> PairTokens:
        """The tokens of pairs ``rows`` (positions, ascending); match counts carried over."""
        rows = np.asarray(rows, dtype=np.int64)
        sel = np.zeros(self.n, dtype=bool)
        sel[rows] = True
        ids = {k: v[np.repeat(sel, self.lengths[k])] for k, v in self.ids.items()}
        return PairTokens(ids=ids, lengths={k: v[rows] for k, v in self.lengths.items()},
                          joined={k: v.take(pa.array(rows)) for k, v in self.joined.items()},
                          vocab=self.vocab,
                          _matches={k: v[rows] for k, v in self._matches.items()})

    def _token_layout(self) -> tuple[np.ndarray, ...]:
        """Per token of both sides (ref first): sentence, pair, position, pair-local id, base.

        Local ids number the distinct tokens of each pair from 0, so that an n-gram packs into
        a small integer in base B (the largest pair vocabulary), exactly.
        """
        if self._layout is None:
            n = self.n
            lens = np.concatenate([self.lengths["ref"], self.lengths["trans"]])
            ids = np.concatenate([self.ids["ref"], self.ids["trans"]])
            sent = np.repeat(np.arange(2 * n, dtype=np.int64), lens)
            pair = sent % max(n, 1)
            pos = np.arange(len(sent)) - (np.cumsum(lens) - lens)[sent]
            v = np.int64(max(len(self.vocab), 1))
            uniq, inv = np.unique(pair * v + ids, return_inverse=True)
            first = np.searchsorted(uniq // v, np.arange(n))
            local = inv.reshape(-1) - first[pair]
            base = int(local.max()) + 1 if len(local) else 1
            self._layout = (sent, pair, pos, local.astype(np.int64), np.int64(base), lens)
        return self._layout

    def _gram_ids(self, order: int) -> tuple[np.ndarray, int]:
        """Id of the ``order``-gram starting at every token (garbage past a sentence end)
        and an exclusive bound of the ids."""
        if order in self._grams:
            return self._grams[order]
        _, _, _, local, base, _ = self._token_layout()
        if order == 1:
            code, bound = local, int(base)
        else:
            prev, prev_bound = self._gram_ids(order - 1)
            nxt = np.zeros_like(local)
            nxt[: max(len(local) - order + 1, 0)] = local[order - 1 :]
            code, bound = prev * base + nxt, prev_bound * int(base)
            if max(self.n, 1) * bound >= 2**_KEY_BITS:
                code, uniques = pd.factorize(code)
                code, bound = code.astype(np.int64), max(len(uniques), 1)
        self._grams[order] = (code, bound)
        return code, bound

    def _count_matches(self, order: int) -> np.ndarray:
        n = self.n
        sent, pair, pos, _, _, lens = self._token_layout()
        code, bound = self._gram_ids(order)
        keep = pos <= lens[sent] - order
        if not keep.any():
            return np.zeros(n, dtype=np.int64)
        # one sort: key = (pair, n-gram) * 2 + side; an n-gram on both sides of a pair gives
        # two adjacent unique keys (side 0, then side 1) whose counts are clipped by min()
        key = (pair[keep] * np.int64(bound) + code[keep]) * 2 + (sent[keep] >= n)
        uniq, counts = np.unique(key, return_counts=True)
        gram = uniq >> 1
        both = gram[1:] == gram[:-1]
        clipped = np.minimum(counts[:-1][both], counts[1:][both])
        return np.bincount(gram[:-1][both] // bound, weights=clipped,
                           minlength=n).astype(np.int64)


def encode_pairs(ref: pd.Series | list[str], trans: pd.Series | list[str]) -> PairTokens:
    """Tokenise both columns and map tokens to ids of one shared vocabulary."""
    lists = {"ref": token_lists(ref), "trans": token_lists(trans)}
    lengths = {k: pc.list_value_length(v).to_numpy(zero_copy_only=False).astype(np.int64)
               for k, v in lists.items()}
    flat = pa.concat_arrays([pc.list_flatten(lists["ref"]), pc.list_flatten(lists["trans"])])
    enc = pc.dictionary_encode(flat)
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    n_ref = int(lengths["ref"].sum())
    return PairTokens(ids={"ref": codes[:n_ref], "trans": codes[n_ref:]}, lengths=lengths,
                      joined={k: pc.binary_join(v, " ") for k, v in lists.items()},
                      vocab=enc.dictionary.to_pylist())


def pair_texts(batch: pd.DataFrame) -> tuple[pa.Array, pa.Array]:
    """The ``ref`` and ``trans`` columns as Arrow strings (missing texts as "")."""
    return arrow_strings(batch["ref"]), arrow_strings(batch["trans"])


def row_positions(batch: pd.DataFrame, parent: pd.DataFrame) -> np.ndarray | None:
    """Positions in ``parent`` of ``batch``'s rows when ``batch`` is ``parent`` or an ordered
    row subset of it by index (``parent[mask]``, copied or not), else None."""
    if batch is parent:
        return np.arange(len(batch))
    if not parent.index.is_unique or not batch.index.is_unique:
        return None
    pos = parent.index.get_indexer(batch.index)
    if (pos < 0).any() or (len(pos) > 1 and (np.diff(pos) <= 0).any()):
        return None
    return pos


class BatchCache:
    """What was computed for the last batch, kept by its owner (a scoring actor shares one
    between its scorers; a scorer keeps its own), never by this module.

    The batch is held by a weak reference, with its texts: :meth:`lookup` finds the cached
    value when it is asked about the same batch or an ordered row subset of it
    (``batch[ok]``, as the scoring stage passes to ``score()`` after ``invalid()``) whose
    texts are equal to the cached ones (compared in full, in Arrow), so that an edited batch
    is computed afresh."""

    def __init__(self) -> None:
        self._batch: weakref.ref | None = None
        self._texts: tuple[pa.Array, pa.Array] | None = None
        self.value: Any = None

    def lookup(self, batch: pd.DataFrame, texts: tuple[pa.Array, pa.Array]
               ) -> tuple[Any, np.ndarray] | None:
        """The cached value and the positions of ``batch``'s rows in the cached batch."""
        parent = self._batch() if self._batch is not None else None
        if parent is None or self._texts is None:
            return None
        pos = row_positions(batch, parent)
        if pos is None or len(pos) > len(self._texts[0]):
            return None
        take = pa.array(pos, type=pa.int64())
        if texts[0].equals(self._texts[0].take(take)) and \
                texts[1].equals(self._texts[1].take(take)):
            return self.value, pos
        return None

    def store(self, batch: pd.DataFrame, texts: tuple[pa.Array, pa.Array], value: Any) -> None:
        """Keep ``value`` as what was computed for ``batch`` (whose texts are ``texts``)."""
        self._batch, self._texts, self.value = weakref.ref(batch), texts, value


def pair_tokens(batch: pd.DataFrame, cache: BatchCache | None = None) -> PairTokens:
    """Tokens of ``batch``'s ``ref`` and ``trans`` columns.

    With a ``cache`` (:class:`BatchCache`), the tokens of the last batch are reused for the
    same batch or an ordered row subset of it, so scorers called one after another on a batch
    tokenise it once; without one, the batch is tokenised afresh.
    """
    texts = pair_texts(batch)
    hit = cache.lookup(batch, texts) if cache is not None else None
    if hit is not None:
        cached, pos = hit
        if len(pos) == cached.n and (pos == np.arange(len(pos))).all():
            return cached
        result = cached.take(pos)
    else:
        result = encode_pairs(texts[0], texts[1])
    if cache is not None:
        cache.store(batch, texts, result)
    return result
