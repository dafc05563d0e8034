"""BUCC mining with the ratio margin finds planted pairs; the threshold protocol."""

from __future__ import annotations

import numpy as np
import pytest

from paralib.evaluate.bucc import BUCC, best_threshold, evaluate_mining, halves, mine
from paralib.evaluate.encoders import as_eval_model
from paralib.evaluate.loaders import BuccSet, read_bucc


def _planted(n_src=400, n_trg=600, n_gold=100, dim=32, noise=0.3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n_src, dim))
    y = rng.standard_normal((n_trg, dim))
    src = rng.choice(n_src, n_gold, replace=False)
    trg = rng.choice(n_trg, n_gold, replace=False)
    y[trg] = x[src] + noise * rng.standard_normal((n_gold, dim))
    return x, y, np.stack([src, trg], axis=1)


def test_margin_mining_finds_planted_pairs():
    x, y, gold = _planted()
    src, trg, score = mine(x, y, k=4)
    assert len(set(src)) == len(src) and len(set(trg)) == len(trg)  # each sentence once
    assert (np.diff(score) <= 0).all()
    top = {(int(s), int(t)) for s, t in zip(src[:100], trg[:100], strict=True)}
    assert len(top & {(int(s), int(t)) for s, t in gold}) >= 95
    res = evaluate_mining(src, trg, score, gold, len(x), seed=0)
    assert res["gold_tune"] == res["gold_test"] == 50
    assert res["test"]["f1"] > 90 and res["tune"]["f1"] > 90


def test_ratio_margin_prefers_the_isolated_pair():
    # x0 is equally close (by cosine) to y0 and y1, but y1 is a hub close to everything
    x = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    y = np.array([[0.9, -0.1, -0.1], [0.9, 0.6, 0.6], [-0.5, 0.0, 0.3]])
    src, trg, _ = mine(x, y, k=2)
    assert dict(zip(src.tolist(), trg.tolist(), strict=True))[0] == 0


def test_halves_and_threshold():
    h = halves(10, np.array([1, 3, 5, 7]), seed=0)
    assert (h[[1, 3, 5, 7]] == 0).sum() == 2 and (h == 0).sum() == 5
    assert (halves(10, np.array([1, 3, 5, 7]), seed=0) == h).all()
    scores = np.array([0.9, 0.8, 0.7, 0.6])
    correct = np.array([True, True, False, True])
    thr, prf = best_threshold(scores, correct, n_gold=3)
    assert thr == 0.6 and prf["f1"] == pytest.approx(100 * 2 * 0.75 * 1 / 1.75)


def test_bucc_task_on_real_sentences_with_planted_vectors(settings, planted):
    full = read_bucc(settings.data, "de-en")
    rng = np.random.default_rng(1)
    gold = full.gold[:200]
    others_src = np.setdiff1d(np.arange(len(full.src)), full.gold[:, 0])[:1800]
    others_trg = np.setdiff1d(np.arange(len(full.trg)), full.gold[:, 1])[:2800]
    src_rows = np.concatenate([gold[:, 0], others_src])
    trg_rows = np.concatenate([gold[:, 1], others_trg])
    sub = BuccSet("de-en", [full.src_ids[i] for i in src_rows], [full.src[i] for i in src_rows],
                  [full.trg_ids[i] for i in trg_rows], [full.trg[i] for i in trg_rows],
                  np.stack([np.arange(200), np.arange(200)], axis=1), full.file)
    table = {}
    for s, t in zip(sub.src[:200], sub.trg[:200], strict=True):
        v = rng.standard_normal(48)
        table[s], table[t] = v, v + 0.2 * rng.standard_normal(48)
    model = as_eval_model("planted", planted(table, 48))
    res = BUCC(settings).run_set(model, "de-en", sub)
    assert (res["n_src"], res["n_trg"], res["n_gold"], res["k"]) == (2000, 3000, 200, 4)
    assert res["test"]["f1"] > 90 and res["test"]["precision"] > 90
