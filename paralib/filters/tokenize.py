"""The shared simple tokeniser of the length, overlap, BLEU and LM scorers (2017 §5.5-5.7).

Lower-cases and splits punctuation off words (``\\w+`` runs and runs of other non-space
characters, the same rule as :mod:`paralib.text`), so that "A dog's ball..." is
``a dog ' s ball ...``. The same tokens feed the length
scorer (tokens of the translation, §5.5), the n-gram overlap and BLEU scorers (§5.7) and the
KenLM language model (§5.6), which is trained on references tokenised the same way.

For speed a batch is tokenised once into flat integer arrays (a vocabulary shared by the two
columns, one offset per sentence) and the n-gram match counts are computed with numpy sorting,
not per-row dictionaries. :func:`pair_tokens` caches the result for the batch object it was
given, so the length, overlap and BLEU scorers share one tokenisation of each batch.
"""

from __future__ import annotations

import itertools
import re
import weakref
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

TOKEN_RE = re.compile(r"\w+|[^\w\s]+")


def tokenize(text: str) -> list[str]:
    """Tokens of one text: lower-cased, punctuation split off."""
    return TOKEN_RE.findall(text.lower())


def tokenize_many(texts: pd.Series | list[str]) -> list[list[str]]:
    """Tokens of many texts (``None``/NaN count as empty)."""
    s = pd.Series(texts, dtype=object).fillna("").astype(str)
    findall = TOKEN_RE.findall
    return [findall(t) for t in s.str.lower().tolist()]


def detokenized(texts: pd.Series | list[str]) -> list[str]:
    """Texts as space-joined tokens (the form the KenLM model is trained and queried on)."""
    return [" ".join(toks) for toks in tokenize_many(texts)]


@dataclass
class PairTokens:
    """Both sides of a batch of pairs as integer token ids with one shared vocabulary.

    ``ids[side]`` is the flat int64 array of token ids of that side, ``lengths[side]`` the
    tokens per sentence. ``matches(n)`` and ``totals(side, n)`` are the clipped n-gram match
    counts between the sides and the number of n-grams of a side (cached per order).
    """

    ids: dict[str, np.ndarray]
    lengths: dict[str, np.ndarray]
    tokens: dict[str, list[list[str]]]
    vocab_size: int
    _matches: dict[int, np.ndarray] = field(default_factory=dict, repr=False)

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

    def _gram_codes(self, order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Dense ids of every ``order``-gram of both sides, with its pair and side (0 ref)."""
        lens = np.concatenate([self.lengths["ref"], self.lengths["trans"]])
        ids = np.concatenate([self.ids["ref"], self.ids["trans"]])
        sent = np.repeat(np.arange(len(lens)), lens)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
        pos = np.arange(len(ids)) - starts[sent]
        code = ids
        for k in range(1, order):
            # extend the (k)-grams starting at i by the token at i + k; positions whose
            # n-gram would run past the sentence end are dropped at the end
            nxt = np.empty_like(ids)
            nxt[: len(ids) - k] = ids[k:]
            nxt[len(ids) - k :] = 0
            code = pd.factorize(code * self.vocab_size + nxt)[0].astype(np.int64)
        keep = pos <= lens[sent] - order
        sent = sent[keep]
        n = self.n
        return code[keep], sent % n, (sent >= n).astype(np.int8)

    def _count_matches(self, order: int) -> np.ndarray:
        code, pair, side = self._gram_codes(order)
        if len(code) == 0:
            return np.zeros(self.n, dtype=np.int64)
        span = np.int64(code.max()) + 1
        key = pair.astype(np.int64) * span + code
        ur, cr = np.unique(key[side == 0], return_counts=True)
        ut, ct = np.unique(key[side == 1], return_counts=True)
        common, ir, it = np.intersect1d(ur, ut, assume_unique=True, return_indices=True)
        clipped = np.minimum(cr[ir], ct[it])
        return np.bincount(common // span, weights=clipped, minlength=self.n).astype(np.int64)


def encode_pairs(ref: pd.Series | list[str], trans: pd.Series | list[str]) -> PairTokens:
    """Tokenise both columns and map tokens to ids of one shared vocabulary."""
    toks = {"ref": tokenize_many(ref), "trans": tokenize_many(trans)}
    lengths = {k: np.fromiter(map(len, v), dtype=np.int64, count=len(v)) for k, v in toks.items()}
    flat = list(itertools.chain.from_iterable(toks["ref"]))
    flat.extend(itertools.chain.from_iterable(toks["trans"]))
    codes, uniques = pd.factorize(np.asarray(flat, dtype=object))
    codes = codes.astype(np.int64)
    n_ref = int(lengths["ref"].sum())
    return PairTokens(ids={"ref": codes[:n_ref], "trans": codes[n_ref:]}, lengths=lengths,
                      tokens=toks, vocab_size=max(len(uniques), 1))


_cache: dict[str, object] = {}


def _fingerprint(batch: pd.DataFrame) -> tuple:
    n = len(batch)
    probe = sorted({0, n // 2, n - 1}) if n else []
    ref, trans = batch["ref"], batch["trans"]
    return (n, tuple(ref.iat[i] for i in probe), tuple(trans.iat[i] for i in probe))


def pair_tokens(batch: pd.DataFrame) -> PairTokens:
    """Tokens of ``batch``'s ``ref`` and ``trans`` columns, computed once per batch object.

    The last batch's result is kept (a weak reference to the batch plus a fingerprint of its
    size and a few texts), so scorers called one after another on the same batch tokenise it
    once; any other batch is tokenised afresh.
    """
    ref = _cache.get("batch")
    if (ref is not None and ref() is batch  # type: ignore[operator]
            and _cache.get("fingerprint") == _fingerprint(batch)):
        return _cache["tokens"]  # type: ignore[return-value]
    result = encode_pairs(batch["ref"], batch["trans"])
    _cache.clear()
    _cache.update(batch=weakref.ref(batch), fingerprint=_fingerprint(batch), tokens=result)
    return result
