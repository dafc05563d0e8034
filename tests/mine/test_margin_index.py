"""The mining core on planted vectors: exact and approximate faiss indexes, the choice by
size, empty neighbour slots, and the BUCC evaluation using this very core."""

from __future__ import annotations

import numpy as np
import pytest

from paralib.evaluate import bucc
from paralib.mine import margin
from paralib.mine.index import IndexSpec, build_index
from paralib.mine.margin import mine_pairs, neighbour_means, ratio_margin


def planted(n_src=1200, n_trg=3000, n_gold=300, dim=32, noise=0.3, seed=0):
    """Random source and target vectors; ``n_gold`` targets are noisy copies of sources."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n_src, dim)).astype(np.float32)
    y = rng.standard_normal((n_trg, dim)).astype(np.float32)
    src = rng.choice(n_src, n_gold, replace=False)
    trg = rng.choice(n_trg, n_gold, replace=False)
    y[trg] = x[src] + noise * rng.standard_normal((n_gold, dim))
    return x, y, {(int(s), int(t)) for s, t in zip(src, trg, strict=True)}


def found(mined, gold, top):
    pairs = set(zip(mined.src[:top].tolist(), mined.trg[:top].tolist(), strict=True))
    return len(pairs & gold) / len(gold)


def test_bucc_evaluation_mines_with_this_core():
    assert bucc.mine is margin.mine


@pytest.mark.parametrize("kind", ["flat", "ivf", "hnsw"])
def test_every_index_recovers_planted_pairs(kind):
    x, y, gold = planted()
    mined = mine_pairs(x, y, k=4, spec=IndexSpec(kind=kind, nprobe=8))
    assert mined.indexes["forward"]["kind"] == kind == mined.indexes["backward"]["kind"]
    assert found(mined, gold, len(gold)) >= 0.95
    assert len(set(mined.src.tolist())) == len(mined.src)  # each sentence at most once
    assert len(set(mined.trg.tolist())) == len(mined.trg)
    assert (np.diff(mined.margin) <= 0).all()
    # the cosine column is the pair's cosine
    xu = x / np.linalg.norm(x, axis=1, keepdims=True)
    yu = y / np.linalg.norm(y, axis=1, keepdims=True)
    np.testing.assert_allclose(mined.cosine, (xu[mined.src] * yu[mined.trg]).sum(1), atol=1e-5)


def test_auto_is_exact_below_the_threshold_and_approximate_above():
    x, y, gold = planted()
    above = mine_pairs(x, y, spec=IndexSpec(kind="auto", exact_below=2000))
    assert above.indexes["forward"]["kind"] == "hnsw"  # 3000 targets
    assert above.indexes["backward"]["kind"] == "flat"  # 1200 sources
    below = mine_pairs(x, y, spec=IndexSpec(kind="auto", exact_below=5000))
    assert below.indexes["forward"]["kind"] == below.indexes["backward"]["kind"] == "flat"
    exact = set(zip(below.src.tolist(), below.trg.tolist(), strict=True))
    approx = set(zip(above.src.tolist(), above.trg.tolist(), strict=True))
    assert len(exact & approx) >= 0.9 * len(exact)
    assert found(above, gold, len(gold)) >= 0.95


def test_ivf_cells_follow_the_size():
    spec = IndexSpec(kind="ivf")
    assert spec.cells(1_000_000) == 4000  # about 4·√n
    assert spec.cells(10_000) == 10_000 // 39 and spec.cells(100) == 2  # 39 vectors a cell
    assert spec.cells(10) == 1
    assert IndexSpec(kind="ivf", nlist=4096).cells(10_000) == 10_000 // 39
    keys = np.random.default_rng(0).standard_normal((2000, 8)).astype(np.float32)
    _, info = build_index(keys, IndexSpec(kind="ivf", nprobe=500))
    assert info == {"kind": "ivf", "nlist": 51, "nprobe": 51, "keys": 2000}


def test_empty_neighbour_slots_are_left_out():
    sims = np.array([[0.9, 0.5, -3e38], [0.8, 0.6, 0.4]])
    idx = np.array([[1, 0, -1], [0, 1, 2]])
    means = neighbour_means(sims, idx)
    np.testing.assert_allclose(means, [0.7, 0.6])
    m = ratio_margin(sims, idx, means, np.array([0.5, 0.5, 0.5]))
    assert m[0, 2] == -np.inf and m[0, 0] == pytest.approx(0.9 / 0.6)
    # a query with no neighbour at all yields no candidate
    x = np.eye(3, dtype=np.float32)
    out = mine_pairs(x, x, k=2)
    assert sorted(zip(out.src.tolist(), out.trg.tolist(), strict=True)) == [(0, 0), (1, 1),
                                                                            (2, 2)]
