"""The evaluation-set index and the contamination matcher (2019 §3).

:class:`EvalIndex` holds two sorted uint64 hash arrays with a parallel set id each:

- the :func:`~paralib.decontaminate.normalise.normal_form` of every evaluation sentence
  (empty normal forms left out), for exact matches;
- every ``ngram``-token window of every evaluation sentence with at least ``min_tokens``
  tokens, for a long sentence embedded in other text.

A hash that occurs in several sets is kept once per set; a lookup reports the first of those
sets in :data:`~paralib.decontaminate.evalsets.EVAL_SETS` order. Matching hashes a whole batch
and looks it up with :func:`numpy.searchsorted`; no Python loop over hashes. With the data of
``../shared/data`` (451,874 sentences) the index holds 404,297 normal forms and 1,653,252
windows (distinct per set): 20.6 MB (:attr:`EvalIndex.nbytes`, 10 bytes an entry), built in
about 10-20 s on one core; matching runs at about 150,000 texts a second on one core.

:meth:`EvalIndex.cached` keeps the index as a plain ``.npz`` (no pickle) keyed by a
fingerprint of the parameters and of every evaluation file's path, size and mtime.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from paralib.decontaminate.evalsets import EVAL_SETS, eval_files, eval_sentences
from paralib.decontaminate.normalise import bulk_forms, hash_strings, window_hashes
from paralib.fingerprint import digest

# bump when normal forms, tokens, hashing or the file layout change: old caches are rebuilt
FORMAT_VERSION = 1
SET_ID = np.int16
CHUNK = 200_000  # texts matched at once (a few hundred MB at most)
# windows are first checked against a bitmap of their top bits (4 MB, about 5% of it set):
# most windows of a training text are in no evaluation set, and a random search of the sorted
# array costs ten times more than the bitmap
FILTER_BITS = 25
_ARRAYS = ("exact_hashes", "exact_sets", "ngram_hashes", "ngram_sets")


def default_cache_dir() -> Path:
    """``~/.cache/paralib/decontaminate``."""
    return Path.home() / ".cache" / "paralib" / "decontaminate"


def fingerprint(data: Path, ngram: int = 10, min_tokens: int = 10) -> str:
    """SHA-256 of the format version, the parameters and every evaluation file's path, size
    and mtime (a missing file counts as such): any change gives a new key."""
    files = []
    for name, paths in eval_files(Path(data)).items():
        for p in paths:
            st = p.stat() if p.is_file() else None
            files.append([name, str(p.resolve()), st and st.st_size, st and st.st_mtime_ns])
    return digest({"version": FORMAT_VERSION, "ngram": ngram, "min_tokens": min_tokens,
                   "files": files}, length=None)


def _sorted_unique(hashes: np.ndarray, sets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (hash, set) pairs sorted by hash, then set id."""
    order = np.lexsort((sets, hashes))
    h, s = hashes[order], sets[order]
    keep = np.ones(len(h), dtype=bool)
    keep[1:] = (h[1:] != h[:-1]) | (s[1:] != s[:-1])
    return h[keep], s[keep].astype(SET_ID)


def _bitmap(table: np.ndarray) -> np.ndarray:
    """A bit a value of the top :data:`FILTER_BITS` bits of the hashes in ``table`` (packed)."""
    mask = np.zeros(1 << FILTER_BITS, dtype=bool)
    mask[(table >> np.uint64(64 - FILTER_BITS)).astype(np.int64)] = True
    return np.packbits(mask, bitorder="little")


def _maybe(bitmap: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """``False`` for every query hash certainly not in the table of ``bitmap``."""
    top = (queries >> np.uint64(64 - FILTER_BITS)).astype(np.int64)
    return ((bitmap[top >> 3] >> (top & 7).astype(np.uint8)) & 1).astype(bool)


def _lookup(table: np.ndarray, sets: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The set id of every query hash found in the sorted ``table`` (the smallest, when the
    hash is in several sets), else -1."""
    if len(table) == 0 or len(queries) == 0:
        return np.full(len(queries), -1, dtype=SET_ID)
    pos = np.searchsorted(table, queries, side="left")
    pos = np.minimum(pos, len(table) - 1)
    return np.where(table[pos] == queries, sets[pos], -1).astype(SET_ID)


@dataclass
class EvalIndex:
    """Hashes of every evaluation sentence and of its ``ngram``-token windows, with set ids
    into :attr:`set_names`; build with :meth:`build` or :meth:`cached`."""

    exact_hashes: np.ndarray  # uint64, sorted
    exact_sets: np.ndarray  # int16, parallel
    ngram_hashes: np.ndarray  # uint64, sorted
    ngram_sets: np.ndarray  # int16, parallel
    set_names: list[str]
    ngram: int = 10
    min_tokens: int = 10
    missing: dict[str, str] = field(default_factory=dict)  # set -> path looked for
    counts: dict[str, int] = field(default_factory=dict)  # sentences read per set
    fingerprint: str = ""
    build_seconds: float = 0.0
    loaded_from: Path | None = None  # the cache file, when read from disk
    _ngram_filter: np.ndarray | None = field(default=None, repr=False, compare=False)

    @classmethod
    def build(cls, data: Path, ngram: int = 10, min_tokens: int = 10) -> EvalIndex:
        """Read every evaluation set under ``data`` and hash it. Sets whose files are missing
        are recorded in :attr:`missing` (their sentences cannot be checked)."""
        start = time.perf_counter()
        data = Path(data)
        key = fingerprint(data, ngram, min_tokens)
        names = list(EVAL_SETS)
        ids = {n: i for i, n in enumerate(names)}
        missing: dict[str, str] = {}
        found = list(eval_sentences(data, missing))
        texts = [sentence for _, sentence in found]
        sid = [ids[name] for name, _ in found]
        set_of = np.asarray(sid, dtype=SET_ID)
        normal, flat, lengths = bulk_forms(texts)
        nonempty = np.fromiter((bool(f) for f in normal), dtype=bool, count=len(normal))
        exact = _sorted_unique(hash_strings([f for f in normal if f]), set_of[nonempty])
        win, sent = window_hashes(hash_strings(flat), lengths, ngram, min_tokens)
        grams = _sorted_unique(win, set_of[sent])
        counts = Counter(names[i] for i in sid)
        return cls(*exact, *grams, names, ngram, min_tokens, missing,
                   {n: counts.get(n, 0) for n in names}, key, time.perf_counter() - start)

    @property
    def nbytes(self) -> int:
        """Bytes held by the four arrays (matching adds a 4 MB bitmap of the windows)."""
        return sum(getattr(self, a).nbytes for a in _ARRAYS)

    def _meta(self) -> dict:
        return {"version": FORMAT_VERSION, "set_names": self.set_names, "ngram": self.ngram,
                "min_tokens": self.min_tokens, "missing": self.missing, "counts": self.counts,
                "fingerprint": self.fingerprint, "build_seconds": self.build_seconds}

    def save(self, path: Path) -> Path:
        """Write the index to ``path`` (``.npz``: the arrays and a JSON string array, no
        pickle) atomically: a temporary file in the same folder, then a rename."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, meta=np.asarray(json.dumps(self._meta())),
                         **{a: getattr(self, a) for a in _ARRAYS})
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def load(cls, path: Path) -> EvalIndex:
        """Read an index written by :meth:`save` (``allow_pickle=False``)."""
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if meta.get("version") != FORMAT_VERSION:
                raise ValueError(f"{path}: index format {meta.get('version')}, "
                                 f"expected {FORMAT_VERSION}")
            arrays = {a: z[a] for a in _ARRAYS}
        return cls(**arrays, set_names=list(meta["set_names"]), ngram=int(meta["ngram"]),
                   min_tokens=int(meta["min_tokens"]), missing=dict(meta["missing"]),
                   counts=dict(meta["counts"]), fingerprint=meta["fingerprint"],
                   build_seconds=float(meta["build_seconds"]), loaded_from=Path(path))

    @classmethod
    def cached(cls, data: Path, ngram: int = 10, min_tokens: int = 10,
               cache_dir: Path | None = None) -> EvalIndex:
        """The index of ``data``, read from ``cache_dir`` (default :func:`default_cache_dir`)
        when a file with the same :func:`fingerprint` is there, else built and saved there."""
        key = fingerprint(Path(data), ngram, min_tokens)
        path = Path(cache_dir or default_cache_dir()) / f"evalindex-{key[:24]}.npz"
        if path.is_file():  # unreadable or stale: rebuilt and overwritten
            with contextlib.suppress(OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
                index = cls.load(path)
                if index.fingerprint == key:
                    return index
        index = cls.build(data, ngram, min_tokens)
        index.save(path)
        return index

    def match_ids(self, texts: Sequence[str | None]) -> tuple[np.ndarray, np.ndarray]:
        """Per text, the set id of an exact match and of an n-gram match (-1: none); a long
        list is matched :data:`CHUNK` texts at a time, to bound the memory it takes."""
        if len(texts) > CHUNK:
            parts = [self.match_ids(texts[i:i + CHUNK]) for i in range(0, len(texts), CHUNK)]
            return (np.concatenate([p[0] for p in parts]),
                    np.concatenate([p[1] for p in parts]))
        normal, flat, lengths = bulk_forms(texts)
        nonempty = np.fromiter((bool(f) for f in normal), dtype=bool, count=len(normal))
        exact = np.full(len(texts), -1, dtype=SET_ID)
        exact[nonempty] = _lookup(self.exact_hashes, self.exact_sets,
                                  hash_strings([f for f in normal if f]))
        long = lengths >= max(self.ngram, self.min_tokens)
        words = np.asarray(flat, dtype=object)[np.repeat(long, lengths)]
        win, sent = window_hashes(hash_strings(words), lengths[long], self.ngram,
                                  self.min_tokens)
        if self._ngram_filter is None:
            self._ngram_filter = _bitmap(self.ngram_hashes)
        maybe = _maybe(self._ngram_filter, win)
        found = np.full(len(win), -1, dtype=SET_ID)
        found[maybe] = _lookup(self.ngram_hashes, self.ngram_sets, win[maybe])
        hit = found >= 0
        best = np.full(int(long.sum()), np.iinfo(SET_ID).max, dtype=SET_ID)
        np.minimum.at(best, sent[hit], found[hit])
        grams = np.full(len(texts), -1, dtype=SET_ID)
        grams[long] = np.where(best == np.iinfo(SET_ID).max, -1, best)
        return exact, grams

    def match(self, texts: Sequence[str | None]) -> list[str | None]:
        """Per text, ``None`` when clean, else ``"contaminated: <set> (exact)"`` (same normal
        form as an evaluation sentence) or ``"contaminated: <set> (<n>-gram)"`` (shares an
        n-token window with one); exact takes precedence."""
        exact, grams = self.match_ids(texts)
        gram = f"{self.ngram}-gram"
        return [f"contaminated: {self.set_names[e]} (exact)" if e >= 0 else
                f"contaminated: {self.set_names[g]} ({gram})" if g >= 0 else None
                for e, g in zip(exact.tolist(), grams.tolist(), strict=True)]

    def match_pairs(self, a: Sequence[str | None],
                    b: Sequence[str | None]) -> list[str | None]:
        """Per pair, the reason of side ``a``, else that of side ``b``, else ``None``."""
        if len(a) != len(b):
            raise ValueError(f"sides differ in length: {len(a)} and {len(b)}")
        ra, rb = self.match(a), self.match(b)
        return [x if x is not None else y for x, y in zip(ra, rb, strict=True)]
