"""Tatoeba and XNLI dev retrieval, and nearest neighbours."""

from __future__ import annotations

import numpy as np
import pytest

from paralib.evaluate import make_baseline
from paralib.evaluate.encoders import as_eval_model
from paralib.evaluate.loaders import read_xnli_dev
from paralib.evaluate.neighbours import Neighbours, nearest
from paralib.evaluate.run import resolve_suites
from paralib.evaluate.tatoeba import Tatoeba, XnliDev, retrieval_accuracy


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

        def encode(self, sentences, batch_size=256, normalize=False):
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


def test_xnli_dev_reads_each_sentence_once_with_one_partner(settings):
    xs, es, files = read_xnli_dev(settings.data, "de")
    assert len(xs) == len(es) == 3320 and files[1].endswith("dev-en.tsv")
    assert len(set(xs)) == len(xs) and len(set(es)) == len(es)
    assert es[0] == "And he said, Mama, I'm home." and xs[0].startswith("und er hat gesagt")


def test_xnli_dev_names_a_malformed_line(tmp_path):
    folder = tmp_path / "bitext" / "xnli"
    folder.mkdir(parents=True)
    (folder / "dev-en.tsv").write_text("A.\tB.\tneutral\nC.\tD.\tneutral\n", encoding="utf-8")
    (folder / "dev-fr.tsv").write_text("A fr.\tB fr.\tneutral\nC fr. D fr.\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"dev-fr.tsv, line 2: expected premise, hypothesis"):
        read_xnli_dev(tmp_path, "fr")


def test_xnli_dev_task_covers_xnli_languages_only(settings, hash_encoder):
    res = XnliDev(settings).run(as_eval_model("hash", hash_encoder), {})
    assert set(res["sets"]) == {"de-en", "es-en", "fr-en"}  # no ar/tr in the stand-in
    de = res["sets"]["de-en"]
    assert de["n"] == 3320 and 1 < de["xx->en"] <= 100 and 1 < de["en->xx"] <= 100


def test_xnli_dev_runs_only_by_name():
    assert "xnli" not in resolve_suites(["all"])
    assert resolve_suites(["xnli", "stsb"]) == ["stsb", "xnli"]
