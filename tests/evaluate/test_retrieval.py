"""Tatoeba retrieval and nearest neighbours."""

from __future__ import annotations

import numpy as np

from paralib.evaluate import make_baseline
from paralib.evaluate.encoders import as_eval_model
from paralib.evaluate.neighbours import Neighbours, nearest
from paralib.evaluate.tatoeba import Tatoeba, retrieval_accuracy


def test_retrieval_accuracy():
    keys = np.eye(4)
    assert retrieval_accuracy(keys, keys) == 100
    assert retrieval_accuracy(keys[[0, 1, 3, 2]], keys) == 50


def test_tatoeba_languages_the_model_covers(settings, glove, hash_encoder):
    task = Tatoeba(settings)
    res = task.run(as_eval_model("hash", hash_encoder), {})
    assert set(res["sets"]) == {"de-en", "es-en", "fr-en"}
    de = res["sets"]["de-en"]
    assert de["n"] == 1000 and 1 < de["xx->en"] <= 100 and 1 < de["en->xx"] <= 100
    assert task.run(glove, {})["status"] == "skipped"
    assert task.run(make_baseline("bleu"), {})["status"] == "n/a"


def test_tatoeba_language_without_data_is_missing(settings):
    class Klingon:
        languages = ("en", "tlh")

        def encode(self, sentences, batch_size=256, normalize=False, lang=None):
            return np.ones((len(sentences), 2), np.float32)

    res = Tatoeba(settings).run(as_eval_model("k", Klingon()), {})
    assert res["sets"]["tlh-en"]["status"] == "missing"
    assert res["sets"]["tlh-en"]["file"].endswith("tatoeba.tlh-eng.tlh")


def test_neighbours(settings, glove, hash_encoder):
    corpus = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    assert [i for i, _ in nearest(np.array([1.0, 0.0]), corpus, 2)] == [0, 1]
    assert [i for i, _ in nearest(np.array([1.0, 0.0]), corpus, 2, np.array([0]))] == [1, 2]
    task = Neighbours(settings)
    loaded = task.load()
    res = task.run(glove, loaded)
    assert res["sets"]["de"]["status"] == "skipped"
    en = res["sets"]["en"]
    q = en["queries"][0]
    assert q["query"] == "okay, you don't get it, man." and len(q["neighbours"]) == 10
    cos = [c for _, c in q["neighbours"]]
    assert cos == sorted(cos, reverse=True) and q["query"] not in [s for s, _ in q["neighbours"]]
    de = task.run(as_eval_model("hash", hash_encoder), loaded)["sets"]["de"]
    assert de["queries"][0]["query"] == "Kann gut sein." and de["corpus_size"] > 900
