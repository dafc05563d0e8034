"""Canonicalising paraphrases in the analysis report (ParaNMT 2018 §6): the selection of
examples by hand, then the shipped English→English model on real Multi30k references."""

from __future__ import annotations

import json
import math
from html import escape as html_escape

import pandas as pd
import pytest

from paralib.analysis import analyze
from paralib.analysis import run as analysis
from paralib.analysis.canonical import canonical_mask, canonicalising, measure, summary
from paralib.analysis.config import AnalyzeConfig
from paralib.io.context import StageContext
from paralib.paths import models_root
from paralib.translate.translator import ModelNotFoundError

REFS = ["a man rides a bike", "a man walks a dog", "a woman rides a horse",
        "a toddler in a playhouse"]
INPUTS = ["A young woman rides a brown horse.", "a man walks a dog", "a man rides a bike",
          "a man walks a dog", "a young woman rides a brown horse"]
OUTPUTS = ["A young man rides a brown horse.",  # a rarer word (woman, df 1) for man (df 2)
           "A man walks a dog.",                # the same words: a copy
           "two dogs",                          # unrelated and too short
           "man walks a dog",                   # shorter, though of higher mean IDF
           "a young woman rides a brown horse a man a man"]  # commoner words by looping
MODEL = models_root() / "en-en-paraphrase"


def test_measures_and_examples_by_hand():
    m = measure(INPUTS, OUTPUTS, REFS)
    few, some = math.log(5 / 3), math.log(5 / 2)  # IDF of df 2 and df 1 of N = 4 (a: 0)
    unseen = math.log(5)  # young, brown
    assert m.loc[0, "idf_in"] == pytest.approx((2 * unseen + some + few + some) / 7)
    assert m.loc[0, "idf_out"] == pytest.approx((2 * unseen + few + few + some) / 7)
    assert m.loc[2, "idf_out"] == pytest.approx(unseen)  # both words unseen
    assert m.loc[3, "idf_out"] == pytest.approx((few + some + some) / 4)
    assert m.loc[4, "idf_out"] < m.loc[4, "idf_in"]
    assert m["overlap"].tolist() == pytest.approx([5 / 6, 1.0, 0.0, 1.0, 6 / 7])
    assert m["changed"].tolist() == [True, False, True, True, True]
    assert m["repeats_out"].tolist() == [0, 0, 0, 0, 1]  # "man" again (3+ characters)
    assert canonical_mask(m).tolist() == [True, False, False, True, False]
    ex = canonicalising(m, k=5)
    assert ex["input"].tolist() == [INPUTS[0], INPUTS[3]]  # the IDF drop first
    assert ex["idf_drop"].iloc[0] == pytest.approx((some - few) / 7)
    assert ex["idf_drop"].iloc[1] < 0 and ex["word_drop"].tolist() == [0, 1]
    s = summary(m, "toy", int(canonical_mask(m).sum()))
    assert (s["inputs"], s["copy_rate"], s["shorter"], s["lower_idf"], s["canonicalising"]) \
        == (5, 0.2, 0.4, 0.4, 2)


def test_report_without_a_model_has_no_paraphrases(tmp_path):
    df = pd.DataFrame({"ref": REFS, "trans": OUTPUTS[:4], "cost": [0.1, 0.2, 0.3, 0.4]})
    assert analyze(df, tmp_path)["paraphrases"] is None
    assert "ParaNMT" not in (tmp_path / "report.html").read_text()


def test_wrong_model_path_fails_before_reading(tmp_path):
    cfg = AnalyzeConfig(input=str(tmp_path / "missing"), output=str(tmp_path / "out"),
                        paraphrase_model=str(tmp_path / "no-model"))
    with pytest.raises(ModelNotFoundError, match="no-model"):
        analysis.run(cfg, StageContext())


def test_report_shows_canonicalising_paraphrases(m30k, tmp_path):
    from paralib.mt.data import read_text

    refs = read_text(m30k["val_en"])[:400]
    df = pd.DataFrame({"id": range(len(refs)), "corpus": "m30k", "ref": refs, "trans": refs,
                       "cost": 0.5})
    rep = analyze(df, tmp_path, k=4, paraphrase_model=MODEL, paraphrase_inputs=80)
    s, ex = rep["paraphrases"]["summary"], pd.DataFrame(rep["paraphrases"]["examples"])
    assert s["inputs"] == 80 and s["model"] == str(MODEL)
    assert s["copy_rate"] < 1 and s["canonicalising"] >= 4 and len(ex) == 4
    assert set(ex["input"]) <= set(refs)
    assert (ex["paraphrase"] != ex["input"]).all() and (ex["overlap"] >= 0.8).all()
    assert ((ex["idf_out"] < ex["idf_in"]) | (ex["words_out"] < ex["words_in"])).all()
    assert (ex["repeats_out"] <= ex["repeats_in"]).all()
    assert ex["idf_drop"].is_monotonic_decreasing
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved["paraphrases"] == rep["paraphrases"]
    html = (tmp_path / "report.html").read_text()
    assert "ParaNMT 2018 §6" in html
    assert html_escape(ex["paraphrase"].iloc[0], quote=False) in html
