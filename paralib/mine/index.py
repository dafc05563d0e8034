"""The faiss index of the nearest-neighbour search, exact or approximate by the side's size.

All indexes score by inner product (on unit vectors: the cosine). ``IndexFlatIP`` compares
every pair (exact, the BUCC evaluation's index); ``IndexIVFFlat`` clusters the keys with
k-means into ``nlist`` cells and searches the ``nprobe`` cells nearest each query;
``IndexHNSWFlat`` searches a hierarchical small-world graph. Above a few hundred thousand
sentences the exact search's n² inner products dominate mining.

The margin divides by the mean similarity of each sentence's k neighbours, so a missed
neighbour changes the score of every candidate of both sentences: on the BUCC de-en sample
(40,354 targets, ``benchmarks/mine_bucc.py``) the exact index gave F1 71.4, HNSW (M 32,
efConstruction 200, efSearch 128) 71.7 at about twice the exact search's time, IVF (803
cells) 63.9 with 32 cells probed and 68.6 with 128. ``auto`` therefore switches from the
exact index to HNSW.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# faiss warns below 39 training vectors a cell; k-means then has too few to place them
MIN_PER_CELL = 39


@dataclass(frozen=True)
class IndexSpec:
    """How to index one side (see :class:`paralib.mine.config.MineConfig`)."""

    kind: str = "auto"
    exact_below: int = 100_000
    nlist: int | None = None
    nprobe: int = 32
    hnsw_m: int = 32
    hnsw_ef_construction: int = 200
    hnsw_ef_search: int = 128

    @classmethod
    def of(cls, cfg) -> IndexSpec:
        """The spec of a ``mine`` config section."""
        return cls(cfg.index, cfg.exact_below, cfg.nlist, cfg.nprobe, cfg.hnsw_m,
                   cfg.hnsw_ef_construction, cfg.hnsw_ef_search)

    def kind_for(self, n: int) -> str:
        """The index used for ``n`` keys: ``auto`` is exact below ``exact_below``."""
        if self.kind != "auto":
            return self.kind
        return "flat" if n < self.exact_below else "hnsw"

    def cells(self, n: int) -> int:
        """IVF cells for ``n`` keys: ``nlist``, or about 4·√n, and never fewer than
        :data:`MIN_PER_CELL` keys a cell."""
        want = self.nlist or int(4 * math.sqrt(n))
        return max(1, min(want, n // MIN_PER_CELL))


def build_index(keys: np.ndarray, spec: IndexSpec | None = None):
    """A faiss index over ``keys`` (n × d float32) and a description of it."""
    import faiss

    spec = spec or IndexSpec(kind="flat")
    keys = np.ascontiguousarray(keys, dtype=np.float32)
    n, dim = keys.shape
    kind = spec.kind_for(n)
    if kind == "flat":
        index, info = faiss.IndexFlatIP(dim), {"kind": "flat"}
    elif kind == "ivf":
        nlist = spec.cells(n)
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist,
                                   faiss.METRIC_INNER_PRODUCT)
        index.train(keys)
        index.nprobe = min(spec.nprobe, nlist)
        info = {"kind": "ivf", "nlist": nlist, "nprobe": index.nprobe}
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, spec.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = spec.hnsw_ef_construction
        index.hnsw.efSearch = spec.hnsw_ef_search
        info = {"kind": "hnsw", "m": spec.hnsw_m, "ef_search": spec.hnsw_ef_search,
                "ef_construction": spec.hnsw_ef_construction}
    else:
        raise ValueError(f"mine.index: unknown index '{kind}' (expected auto, flat, ivf or "
                         "hnsw)")
    index.add(keys)
    return index, {**info, "keys": n}
