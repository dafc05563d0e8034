"""Normal forms, tokens and stable hashes for decontamination (2019 §3:
training pairs that share a side with an evaluation set are removed before training).

Two texts are the *same sentence* when their :func:`normal_form` is equal: NFKC, case folding,
and every punctuation, separator, whitespace and control character removed, so re-casing,
re-punctuation, extra spaces, full-width letters and ligatures make no difference. Longer
texts are also compared by their n-token windows (:func:`ngram_hashes` over :func:`tokens`).

Hashes are deterministic across processes and machines (pandas' SipHash with its fixed key),
never Python's salted :func:`hash`, so an index built on one node matches on every other.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence

import numpy as np
import pandas as pd
import regex

_STRIP = regex.compile(r"[\p{P}\p{Z}\p{Cc}\s]+")
_TOKEN = regex.compile(r"[\p{L}\p{M}\p{N}]+")

# odd multiplier of the polynomial window hash, and the splitmix64 finaliser constants
_BASE = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def fold(text: str) -> str:
    """NFKC, then :meth:`str.casefold` (the shared first step of both forms)."""
    return unicodedata.normalize("NFKC", text).casefold()


def normal_form(text: str) -> str:
    """NFKC, case-folded, without punctuation (``\\p{P}``), separators, whitespace or control
    characters: ``"The ﬁrst  Ｃａｔ!"`` and ``"the first cat"`` both give ``"thefirstcat"``."""
    return _STRIP.sub("", fold(text))


def tokens(text: str) -> list[str]:
    """The runs of letters, marks and digits of the NFKC, case-folded text. Scripts written
    without spaces (Chinese, Japanese, Thai) give one token a run."""
    return _TOKEN.findall(fold(text))


@functools.cache
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """Per code point (0..U+10FFFF): is it removed by :func:`normal_form`, is it a token
    character of :func:`tokens`. Built once per process by running the very same character
    classes of the ``regex`` module over every code point, so the bulk path agrees with them."""
    every = np.arange(0x110000, dtype=np.uint32).tobytes().decode("utf-32-le", "surrogatepass")

    def marked(pattern: str) -> np.ndarray:  # code points the pattern turns into U+0000
        out = regex.sub(pattern, "\0", every).encode("utf-32-le", "surrogatepass")
        return np.frombuffer(out, dtype=np.uint32) == 0

    return marked(r"[\p{P}\p{Z}\p{Cc}\s]"), ~marked(r"[^\p{L}\p{M}\p{N}]")


def _per_text(mask: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """How many ``True`` of ``mask`` fall in each text (texts start at ``offsets``)."""
    bounds = np.append(offsets, len(mask))
    return np.diff(np.searchsorted(np.flatnonzero(mask), bounds)).astype(np.int64)


def bulk_forms(texts: Sequence[str | None]) -> tuple[list[str], list[str], np.ndarray]:
    """:func:`normal_form` of every text, and :func:`tokens` of all of them flattened with
    the token count of each text; ``None`` or any other non-string counts as empty.

    The same result as calling those two per text, several times faster: each text is folded
    on its own, then all are joined by spaces and classified a code point at a time in numpy
    (:func:`_tables`) instead of by a regular expression per text.
    """
    folded = [fold(t) if isinstance(t, str) else "" for t in texts]
    n = len(folded)
    if n == 0:
        return [], [], np.zeros(0, dtype=np.int64)
    strip, word = _tables()
    # the code points (a writable array) of each text, then one space
    cps = np.frombuffer(bytearray((" ".join(folded) + " ").encode("utf-32-le", "surrogatepass")),
                        dtype=np.uint32)
    sizes = np.fromiter((len(f) + 1 for f in folded), dtype=np.int64, count=n)
    offsets = np.cumsum(sizes) - sizes
    keep = ~strip[cps]
    counts = _per_text(keep, offsets)
    ends = np.cumsum(counts)
    kept = cps[keep].tobytes().decode("utf-32-le", "surrogatepass")
    normal = [kept[a:b] for a, b in zip((ends - counts).tolist(), ends.tolist(), strict=True)]
    is_word = word[cps]
    starts = is_word.copy()
    starts[1:] &= ~is_word[:-1]
    lengths = _per_text(starts, offsets)
    cps[~is_word] = 32
    flat = cps.tobytes().decode("utf-32-le", "surrogatepass").split()
    if len(flat) != int(lengths.sum()):  # a token character str.split() takes for a space
        token_lists = [_TOKEN.findall(f) for f in folded]
        flat = [w for toks in token_lists for w in toks]
        lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=n)
    return normal, flat, lengths


def hash_strings(values: Sequence[str]) -> np.ndarray:
    """A uint64 hash of every string, the same in every process and on every machine
    (``pandas.util.hash_array``: SipHash-2-4 with a fixed key, over UTF-8)."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.uint64)
    hashed = pd.util.hash_array(np.asarray(values, dtype=object), categorize=False)
    return hashed.astype(np.uint64, copy=False)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: spreads the polynomial's structure over all 64 bits."""
    with np.errstate(over="ignore"):
        h = h ^ (h >> np.uint64(30))
        h = h * _MIX1
        h = h ^ (h >> np.uint64(27))
        h = h * _MIX2
        return h ^ (h >> np.uint64(31))


def window_hashes(token_hashes: np.ndarray, lengths: np.ndarray, n: int,
                  min_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ngram_hashes` over flat token hashes: ``lengths[i]`` tokens belong to sentence
    ``i``, in order. Loops over the ``n`` window positions only, never over windows."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    lengths = np.asarray(lengths, dtype=np.int64)
    token_hashes = np.asarray(token_hashes, dtype=np.uint64)
    offsets = np.cumsum(lengths) - lengths
    counts = np.where(lengths >= max(n, min_tokens), lengths - n + 1, 0)
    sentence = np.repeat(np.arange(len(lengths), dtype=np.int64), counts)
    first = (np.cumsum(counts) - counts)[sentence]
    starts = offsets[sentence] + np.arange(len(sentence), dtype=np.int64) - first
    h = np.zeros(len(starts), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(n):
            h = h * _BASE + token_hashes[starts + j]
    return _mix(h), sentence


def ngram_hashes(token_lists: Sequence[Sequence[str]], n: int,
                 min_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """The uint64 hash of every n-token window of every sentence with at least
    ``max(n, min_tokens)`` tokens, and the index of the sentence each window came from.

    A window's hash depends only on its n tokens (a polynomial in their SipHash values,
    wrapping in uint64, then mixed), so equal windows hash equally in any sentence, order,
    call or process.
    """
    lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    flat = [tok for toks in token_lists for tok in toks]
    return window_hashes(hash_strings(flat), lengths, n, min_tokens)
