"""``train.dev``: the dev sets and their languages checked at config validation, XNLI dev
retrieval scored with the arithmetic of ``paralib evaluate``'s ``xnli`` suite, one key rule for
the records (``dev_score`` + ``dev_metric``; ``dev_pearson`` on STS sets and in old files), and
the dev data read from development splits only."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from paralib.config import ConfigError, load_config
from paralib.contracts import EpochRecord, TrainingSummary
from paralib.evaluate.common import Settings
from paralib.evaluate.encoders import as_eval_model
from paralib.evaluate.loaders import XNLI_LANGS, read_xnli_dev
from paralib.evaluate.retrieval import report_scores
from paralib.evaluate.tatoeba import XnliDev
from paralib.models import random_encoder
from paralib.paths import data_root
from paralib.train.config import DEV_SETS, XNLI_DEV_LANGS, TrainConfig, dev_languages
from paralib.train.dev import (
    RetrievalDev,
    dev_metric,
    load_dev,
    score_dev,
    summary_fields,
)
from paralib.train.report import write_report

# the files of the test splits an evaluation reads (never a dev set's)
TEST_SPLITS = ("STS17-test", "/tatoeba/", "bucc2018", "xnli/test-", "sts-test")


def test_xnli_dev_names_its_languages():
    assert XNLI_DEV_LANGS == XNLI_LANGS  # the config's list is the reader's
    assert dev_languages("xnli-dev") == ("ar", "de", "es", "fr", "tr")
    assert dev_languages("xnli-dev:tr,ar") == ("tr", "ar")
    assert dev_languages("stsb-dev") == () and dev_languages("none") == ()
    assert TrainConfig(dev="xnli-dev:ar,es").dev == "xnli-dev:ar,es"
    assert [dev_metric(d) for d in ("stsb-dev", "sts17-en-en", "xnli-dev:de", "none")] == [
        "pearson", "pearson", "xnli-retrieval", "none"]


@pytest.mark.parametrize(("dev", "names"), [
    ("stsb-test", ["'stsb-test'", "no such dev set", "stsb-dev, sts17-en-en, xnli-dev, none"]),
    ("xnli-dev:ar,ru", ["'ru'", "no XNLI dev language", "ar, de, es, fr, tr"]),
    ("xnli-dev:ar,ar", ["listed twice"]),
    ("stsb-dev:ar", ["only xnli-dev takes languages"]),
])
def test_a_dev_set_or_language_that_does_not_exist_is_one_message(tmp_path, dev, names):
    """At config validation, as ``paralib train --config`` reads the file: one message."""
    path = tmp_path / "bad.yaml"
    path.write_text(f"train:\n  dev: '{dev}'\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    text = str(err.value)
    assert "train.dev" in text and all(n in text for n in names), text
    assert text.count("train.dev '") == 1


def test_xnli_dev_reads_the_dev_files_of_its_languages_only():
    dev = load_dev("xnli-dev:ar,tr")
    assert isinstance(dev, RetrievalDev) and list(dev.sets) == ["ar", "tr"]
    xs, es, _ = read_xnli_dev(data_root(), "ar")
    assert dev.sets["ar"] == (xs, es) and len(xs) > 3000
    assert sorted(Path(f).name for f in dev.files) == ["dev-ar.tsv", "dev-en.tsv", "dev-tr.tsv"]


@pytest.mark.parametrize("name", [d for d in DEV_SETS if d not in ("none", "sts17-en-en")])
def test_the_dev_sets_a_sweep_may_choose_on_read_no_test_split(name):
    """Every dev set paralib tune accepts reads development files only (sts17-en-en, the 2019
    paper's choice, is a test set: tests/tune/test_tune_metric.py checks that tune refuses
    it)."""
    files = load_dev(name).files
    assert files and not [f for f in files if any(t in str(f) for t in TEST_SPLITS)]


def test_trainer_scores_xnli_dev_as_the_evaluate_suite_does():
    """The trainer's number on a model equals ``paralib evaluate --suite xnli`` on it: one
    dev set reader, one retrieval arithmetic."""
    xs, es, _ = read_xnli_dev(data_root(), "de")
    enc = random_encoder("trigram", xs + es, vocab_size=5000, dim=64, seed=0,
                         languages=("en", "de", "es"))
    scores = score_dev(enc.model, load_dev("xnli-dev:de,es"))
    suite = XnliDev(Settings(data=data_root(), progress=False)).run(as_eval_model("m", enc), {})
    by_lang = report_scores(suite["sets"], ["de", "es"])
    assert scores["dev_by_lang"] == pytest.approx(by_lang, abs=1e-9)
    assert scores["dev_score"] == pytest.approx(np.mean(list(by_lang.values())))
    assert scores["dev_metric"] == "xnli-retrieval" and "dev_pearson" not in scores
    assert 5 < by_lang["de"] < 100 and scores["dev_cos_sd"] > 0 and scores["dev_seconds"] > 0


def test_sts_dev_keeps_dev_pearson_beside_dev_score():
    enc = random_encoder("trigram", ["a man is walking", "a dog runs"], vocab_size=500, dim=32)
    scores = score_dev(enc.model, load_dev("stsb-dev"))
    assert scores["dev_score"] == scores["dev_pearson"] and scores["dev_metric"] == "pearson"
    none = score_dev(enc.model, None)
    assert math.isnan(none["dev_score"]) and math.isnan(none["dev_pearson"])


def test_summary_names_the_metric_and_old_files_still_read(tmp_path):
    assert summary_fields("xnli-dev", 71.5) == {"dev_score": 71.5,
                                                "dev_metric": "xnli-retrieval"}
    assert summary_fields("stsb-dev", 80.0) == {"dev_score": 80.0, "dev_metric": "pearson",
                                                "dev_pearson": 80.0}
    old = TrainingSummary.load({"dev": "stsb-dev", "dev_pearson": 77.5, "best_epoch": 2})
    assert old.best_dev() == (77.5, "pearson") and "dev_score" not in old.dump()
    assert EpochRecord(epoch=1, dev_pearson=70.0).score() == 70.0
    history = [{"epoch": e, "loss": 0.5, "dev_score": s, "dev_metric": "xnli-retrieval",
                "dev_cos_sd": 0.2, "pairs_per_s": 100.0, "seconds": 1.0}
               for e, s in ((1, 40.0), (2, 45.25))]
    new = TrainingSummary(model="m", dev="xnli-dev", best_epoch=2, history=history,
                          **summary_fields("xnli-dev", 45.25))
    write_report(tmp_path, new)
    md = (tmp_path / "training.md").read_text()
    assert "best epoch 2 on xnli-dev (retrieval accuracy x100 45.25)" in md
    assert "| dev retrieval accuracy x100 |" in md and "| 2 | 0.5000 | 45.25 |" in md
