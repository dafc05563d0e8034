"""Analysis report (2017 Tables 9-11): values checked against a case worked by hand."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pandas as pd
import pytest

from paralib.analysis import (
    analyze,
    average_idf,
    entropy,
    idf_table,
    repetition_rate,
    sentence_repetition_rates,
)
from paralib.text import tokenize_all

REFS = ["The cat sat on the mat", "A dog ran"]
TRANS = ["the the the the cat", "a dog dog ran"]


def test_entropy_and_repetition_by_hand():
    r, t = tokenize_all(REFS), tokenize_all(TRANS)
    # refs: 9 tokens, "the" twice, 7 others once
    assert entropy(r, 1) == pytest.approx(2 / 9 * math.log2(9 / 2) + 7 / 9 * math.log2(9))
    # trans trigrams: (the the the) x2, (the the cat), (a dog dog), (dog dog ran)
    assert entropy(t, 3) == pytest.approx(2 / 5 * math.log2(5 / 2) + 3 / 5 * math.log2(5))
    # unigrams of 3+ characters: refs the cat sat the mat | dog ran -> 1 repeat of 7
    assert repetition_rate(r, 1) == pytest.approx(100 / 7)
    # trans: the x4 cat (3 repeats) | dog dog ran (1 repeat): 4 of 8
    assert repetition_rate(t, 1) == pytest.approx(50.0)
    assert repetition_rate(t, 3) == pytest.approx(20.0)  # 1 repeated trigram of 5
    assert repetition_rate(r, 3) == 0.0
    np.testing.assert_allclose(sentence_repetition_rates(t, 1), [3 / 5, 1 / 3])
    assert np.isnan(sentence_repetition_rates([["a", "b"]], 1)[0])  # no word of 3+ chars


def test_idf_from_references():
    idf, unseen = idf_table(tokenize_all(REFS))
    assert idf["the"] == pytest.approx(math.log(3 / 2)) and unseen == pytest.approx(math.log(3))
    avg = average_idf([["the", "zebra"]], idf, unseen)
    assert avg[0] == pytest.approx((math.log(3 / 2) + math.log(3)) / 2)


def test_report_holds_the_tables(tmp_path):
    df = pd.DataFrame({"id": [0, 1], "corpus": "toy", "src_lang": "de", "ref": REFS,
                       "trans": TRANS, "rank": 0, "cost": [0.3, 0.9], "p_ref": [0.2, 0.7]})
    rep = analyze(df, tmp_path)
    assert (tmp_path / "report.html").is_file() and (tmp_path / "plots" / "hist_cost.png").is_file()
    assert (tmp_path / "plots" / "correlation.png").is_file()
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved == json.loads(json.dumps(rep))
    toy = saved["diversity"][0]
    assert toy["corpus"] == "toy" and saved["diversity"][-1]["corpus"] == "All"
    assert toy["rep_uni_ref"] == pytest.approx(100 / 7)
    assert toy["rep_uni_trans"] == pytest.approx(50.0)
    assert toy["rep_uni_diff"] == pytest.approx(100 / 7 - 50.0)
    assert toy["rep_tri_trans"] == pytest.approx(20.0)
    assert saved["scores"] == ["cost", "p_ref"]
    assert saved["distributions"]["cost"]["mean"] == pytest.approx(0.6)
    assert saved["correlation"]["cost"]["p_ref"] == pytest.approx(1.0)
    assert saved["examples"]["cost"][0]["trans"] == TRANS[1]  # top of cost
    pref = saved["p_ref_correlations"][-1]
    assert pref["rep_uni"] == pytest.approx(-1.0) and pref["length"] == pytest.approx(-1.0)
    html = (tmp_path / "report.html").read_text()
    assert "Table 9" in html and "Table 10" in html and "a dog dog ran" in html
    assert f"{100 / 7:.4g}" in html


def test_report_on_real_references(m30k, tmp_path):
    """References vs word-shuffled-and-repeated 'translations': refs have more entropy."""
    with gzip.open(m30k["val_en"], "rt") as f:
        refs = f.read().splitlines()[:300]
    rng = np.random.default_rng(0)
    trans = [" ".join(rng.permutation(s.split()[:4]).tolist() * 2) for s in refs]
    df = pd.DataFrame({"id": range(300), "corpus": "m30k", "src_lang": "de", "ref": refs,
                       "trans": trans, "rank": 0, "len_trans": [len(t.split()) for t in trans]})
    rep = analyze(df, tmp_path)
    row = rep["diversity"][-1]
    assert row["ent_uni_diff"] > 0 and row["rep_uni_diff"] < 0 and row["rep_tri_diff"] < 0
    assert rep["p_ref_correlations"] is None
    assert len(rep["examples"]["len_trans"]) == 10
