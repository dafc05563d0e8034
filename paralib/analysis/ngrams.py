"""N-gram statistics of 2017 §5.6.1 (Tables 9 and 10): entropy, repetition rate, IDF.

The repetition rate is the share of n-grams that already appeared earlier in the same
sentence; for unigrams only words of at least 3 characters count. Entropies are in bits,
over the n-gram distribution of a whole side of a corpus.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

MIN_WORD_CHARS = 3


def ngrams(tokens: list[str], n: int) -> list[tuple[str, ...]]:
    """The ``n``-grams of one token list, in order."""
    return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def entropy(sentences: list[list[str]], n: int) -> float:
    """Shannon entropy (bits) of the ``n``-gram distribution over all ``sentences``."""
    counts = Counter(g for toks in sentences for g in ngrams(toks, n))
    total = sum(counts.values())
    if not total:
        return float("nan")
    return -sum(c / total * math.log2(c / total) for c in counts.values())


def repetitions(sentences: list[list[str]], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per sentence: (repeated units, units); units are n-grams, or 3+-character words."""
    units = [[t for t in toks if len(t) >= MIN_WORD_CHARS] if n == 1 else ngrams(toks, n)
             for toks in sentences]
    tot = np.array([len(u) for u in units], dtype=np.int64)
    return tot - np.array([len(set(u)) for u in units], dtype=np.int64), tot


def repetition_rate(sentences: list[list[str]], n: int) -> float:
    """Percentage of units that repeat an earlier one of their sentence (Table 9)."""
    rep, tot = repetitions(sentences, n)
    return 100.0 * rep.sum() / tot.sum() if tot.sum() else float("nan")


def sentence_repetition_rates(sentences: list[list[str]], n: int) -> np.ndarray:
    """Repetition rate of each sentence (NaN for a sentence without units; Table 10)."""
    rep, tot = repetitions(sentences, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, rep / np.maximum(tot, 1), np.nan)


def idf_table(documents: list[list[str]]) -> tuple[dict[str, float], float]:
    """IDF ``log((N + 1) / (df + 1))`` of every word of ``documents``, and the value for an
    unseen word (``log(N + 1)``)."""
    n = len(documents)
    df = Counter(w for toks in documents for w in set(toks))
    return {w: math.log((n + 1) / (c + 1)) for w, c in df.items()}, math.log(n + 1)


def average_idf(sentences: list[list[str]], idf: dict[str, float], unseen: float) -> np.ndarray:
    """Mean IDF of the tokens of each sentence (NaN for an empty one)."""
    return np.array([np.mean([idf.get(t, unseen) for t in toks]) if toks else np.nan
                     for toks in sentences], dtype=float)
