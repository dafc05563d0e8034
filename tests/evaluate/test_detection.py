"""The Opusparcus MLP protocol (§4) on MSRPC and PAWS-X."""

from __future__ import annotations

import numpy as np

from paralib.evaluate import make_baseline
from paralib.evaluate.detection import Detection, holdout, pair_features, train_mlp


def test_mlp_learns_a_planted_rule():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1500, 4))
    y = (x[:, 0] * x[:, 1] > 0).astype(int)  # not linearly separable: needs the hidden layer
    predict, epochs = train_mlp(x[:1000], y[:1000], x[1000:1200], y[1000:1200], seed=0)
    assert (predict(x[1200:]) == y[1200:]).mean() > 0.9
    assert 1 <= epochs <= 100


def test_features_and_holdout():
    u, v = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    assert pair_features(u, v, "concat").tolist() == [[1, 2, 3, -1]]
    assert pair_features(u, v, "diff_prod").tolist() == [[2, 3, 3, -2]]
    fit, held = holdout(100, seed=0)
    assert len(held) == 10 and not set(fit) & set(held)
    assert (holdout(100, seed=0)[1] == held).all()


def test_msrpc_glove_beats_all_paraphrases(settings, glove):
    task = Detection(settings)
    loaded = task.load()
    res = task.run_set(glove, "MSRPC", loaded["MSRPC"])
    assert (res["n_train"], res["n_valid"], res["n_test"]) == (3576, 500, 1725)
    base = res["all_paraphrases"]["accuracy"]
    assert round(base, 1) == 66.5  # 1,147 of 1,725 test pairs are paraphrases
    assert res["features"]["diff_prod"]["accuracy"] > base + 3
    assert res["features"]["concat"]["accuracy"] > base
    # same seed, same numbers
    again = task.run_set(glove, "MSRPC", loaded["MSRPC"])
    assert again["features"] == res["features"]


def test_paws_trains_on_dev_and_pair_scorer_uses_its_score(settings):
    task = Detection(settings)
    loaded = task.load()
    res = task.run_set(make_baseline("bleu"), "PAWS-X de", loaded["PAWS-X de"])
    assert (res["train"], res["n_train"], res["n_valid"], res["n_test"]) == ("dev", 1800, 200,
                                                                            2000)
    assert set(res["features"]) == {"score"}
    assert 0 <= res["features"]["score"]["accuracy"] <= 100


def test_msrpc_trained_encoder_beats_all_paraphrases(settings, trained_sp):
    from paralib.evaluate import as_eval_model

    task = Detection(settings)
    res = task.run_set(as_eval_model("sp", trained_sp), "MSRPC", task.load()["MSRPC"])
    base = res["all_paraphrases"]["accuracy"]
    assert res["features"]["diff_prod"]["accuracy"] > base + 3
