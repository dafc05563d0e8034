"""Margin-based mining of translation pairs between two sets of sentence vectors.

Artetxe & Schwenk 2019, "Margin-based parallel corpus mining with multilingual sentence
embeddings", as 2019 §3.4 applies it to BUCC: both sides are L2-normalised; the ``k``
nearest neighbours of every sentence are searched in the other side (faiss,
:mod:`paralib.mine.index`); a candidate pair (x, y) scores the ratio margin

    margin(x, y) = cos(x, y) / ((Σ_{z ∈ NN_k(x)} cos(x, z) + Σ_{z ∈ NN_k(y)} cos(y, z)) / 2k)

and the "max-score" strategy keeps each sentence's best forward and backward candidate,
sorts them all by margin and accepts greedily, each sentence at most once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from paralib.evaluate.evalmodel import unit_rows
from paralib.mine.index import IndexSpec, build_index


def knn(queries: np.ndarray, keys: np.ndarray, k: int, spec: IndexSpec | None = None
        ) -> tuple[np.ndarray, np.ndarray, dict]:
    """Inner products (float64) and indices of the ``k`` nearest ``keys`` of every query,
    and the index used (exact ``IndexFlatIP`` unless ``spec`` says otherwise). An
    approximate index may find fewer than ``k``: those slots hold index -1."""
    index, info = build_index(keys, spec)
    sims, idx = index.search(np.ascontiguousarray(queries, dtype=np.float32), k)
    return sims.astype(np.float64), idx, info


def neighbour_means(sims: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Mean similarity of each row's neighbours (the slots an index left empty left out)."""
    found = idx >= 0
    if found.all():
        return sims.mean(axis=1)
    total = np.where(found, sims, 0.0).sum(axis=1)
    return total / np.maximum(found.sum(axis=1), 1)


def ratio_margin(sims: np.ndarray, idx: np.ndarray, own_mean: np.ndarray,
                 other_mean: np.ndarray) -> np.ndarray:
    """The ratio margin of every neighbour slot: its cosine over the mean of the two
    sentences' neighbourhood means (-inf for an empty slot)."""
    found = idx >= 0
    margin = sims / np.maximum((own_mean[:, None] + other_mean[np.where(found, idx, 0)]) / 2,
                               1e-6)
    return margin if found.all() else np.where(found, margin, -np.inf)


def max_score(src: np.ndarray, trg: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Positions of the candidates the max-score strategy accepts, best first: candidates
    sorted by score (ties in input order) are taken greedily while neither sentence is used."""
    keep, seen_s, seen_t = [], set(), set()
    for i in np.argsort(-score, kind="stable"):
        s, t = int(src[i]), int(trg[i])
        if s not in seen_s and t not in seen_t and np.isfinite(score[i]):
            seen_s.add(s)
            seen_t.add(t)
            keep.append(i)
    return np.asarray(keep, dtype=np.int64)


@dataclass
class Mined:
    """Mined candidates, best first: source rows, target rows, margins, cosines, and the
    index used each way."""

    src: np.ndarray
    trg: np.ndarray
    margin: np.ndarray
    cosine: np.ndarray
    indexes: dict = field(default_factory=dict)


def mine_pairs(x: np.ndarray, y: np.ndarray, k: int = 4, spec: IndexSpec | None = None
               ) -> Mined:
    """Candidate pairs between source vectors ``x`` and target vectors ``y``, each source
    and target sentence at most once (ratio margin, max-score strategy)."""
    x, y = unit_rows(x), unit_rows(y)
    k = max(1, min(k, len(x), len(y)))
    fwd_sim, fwd_idx, fwd_info = knn(x, y, k, spec)
    bwd_sim, bwd_idx, bwd_info = knn(y, x, k, spec)
    x_mean, y_mean = neighbour_means(fwd_sim, fwd_idx), neighbour_means(bwd_sim, bwd_idx)
    fwd = ratio_margin(fwd_sim, fwd_idx, x_mean, y_mean)
    bwd = ratio_margin(bwd_sim, bwd_idx, y_mean, x_mean)
    nx, ny = np.arange(len(x)), np.arange(len(y))
    best_f, best_b = fwd.argmax(axis=1), bwd.argmax(axis=1)
    src = np.concatenate([nx, bwd_idx[ny, best_b]])
    trg = np.concatenate([fwd_idx[nx, best_f], ny])
    score = np.concatenate([fwd[nx, best_f], bwd[ny, best_b]])
    cos = np.concatenate([fwd_sim[nx, best_f], bwd_sim[ny, best_b]])
    keep = max_score(src, trg, score)
    return Mined(src[keep], trg[keep], score[keep], cos[keep],
                 {"forward": fwd_info, "backward": bwd_info})


def mine(x: np.ndarray, y: np.ndarray, k: int = 4, spec: IndexSpec | None = None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(source rows, target rows, margin scores)`` of :func:`mine_pairs`, best first."""
    m = mine_pairs(x, y, k, spec)
    return m.src, m.trg, m.margin
