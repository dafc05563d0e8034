"""STS 2012-2016, STS Benchmark, SICK and STS 2017 on the real sets."""

from __future__ import annotations

import os

import numpy as np
import pytest

from paralib.evaluate import make_baseline
from paralib.evaluate.base import TASKS
from paralib.evaluate.common import Settings
from paralib.evaluate.encoders import as_eval_model
from paralib.evaluate.metrics import correlations, row_cosines

# 2018 Table 8, BLEU row (Pearson's r × 100 per year)
PAPER_BLEU = {"2012": 39.2, "2013": 29.5, "2014": 42.8, "2015": 49.8, "2016": 47.4}


def _run(suite, model, settings):
    task = TASKS[suite](settings)
    return task.run(model, task.load())


def test_sts_bleu_reproduces_paper_year_means(settings):
    res = _run("sts", make_baseline("bleu"), settings)
    assert res["status"] == "ok" and res["all"]["datasets"] == 24
    for year, paper in PAPER_BLEU.items():
        assert res["years"][year]["pearson"] == pytest.approx(paper, abs=2.0), year
    # year means are plain means over that year's datasets
    y13 = [res["sets"][f"2013 {d}"]["pearson"] for d in ("FNWN", "OnWN", "headlines")]
    assert res["years"]["2013"]["pearson"] == pytest.approx(np.mean(y13))
    assert res["all"]["pearson"] == pytest.approx(
        np.mean([s["pearson"] for s in res["sets"].values()]))


def test_stsb_glove_is_cosine_correlation(settings, glove):
    from paralib.evaluate.loaders import read_stsb

    res = _run("stsb", glove, settings)
    test = read_stsb(settings.data, "test")
    ea, eb = glove.encoder.encode(test.a), glove.encoder.encode(test.b)
    assert res["sets"]["test"]["pearson"] == pytest.approx(
        correlations(row_cosines(ea, eb), test.gold)["pearson"], abs=1e-6)
    assert 25 < res["sets"]["test"]["pearson"] < 70
    sick = _run("sick", glove, settings)
    assert set(sick["sets"]) == {"train", "trial"} and sick["sets"]["trial"]["n"] == 500


def test_sts17_covers_only_the_model_languages(settings, glove, hash_encoder):
    res = _run("sts17", glove, settings)
    assert res["sets"]["en-en"]["status"] == "ok"
    assert res["sets"]["ar-ar"] == {"status": "skipped", "reason": "model covers (en)",
                                    "needs": ["ar"]}
    multi = _run("sts17", as_eval_model("hash", hash_encoder), settings)
    assert multi["sets"]["es-es"]["pearson"] > 50  # random trigrams do well monolingually
    assert multi["sets"]["tr-en"]["status"] == "skipped"
    bleu = _run("sts17", make_baseline("bleu"), settings)
    assert bleu["sets"]["tr-en"]["n"] == 250
    assert all(s["status"] == "ok" for s in bleu["sets"].values())


def test_missing_set_is_reported_and_others_run(tmp_path, data_dir, glove):
    # a copy of the data tree (symlinks) without one STS 2014 gold file
    sts = tmp_path / "sts" / "STS14-en-test"
    sts.mkdir(parents=True)
    for f in (data_dir / "sts" / "STS14-en-test").iterdir():
        if f.name != "STS.gs.images.txt":
            os.symlink(f, sts / f.name)
    res = _run("sts", glove, Settings(data=tmp_path))
    images = res["sets"]["2014 images"]
    assert images["status"] == "missing"
    assert images["file"] == str(sts / "STS.gs.images.txt")
    assert "looked in" in images["message"]
    assert res["sets"]["2012 MSRpar"]["status"] == "missing"
    assert res["sets"]["2014 headlines"]["status"] == "ok"
    assert res["years"]["2014"]["datasets"] == 5 and res["all"]["datasets"] == 5
    assert res["years"]["2012"]["pearson"] is None


def test_a_failing_set_is_an_error_row_and_its_traceback_goes_to_the_log(tmp_path):
    """One set that raises does not stop the others; its row says what failed, and the run's
    log file (not the terminal) keeps the traceback."""
    from paralib import console
    from paralib.evaluate.base import Task
    from paralib.evaluate.evalmodel import EvalModel

    class Flaky(Task):
        name, title, paper = "flaky", "Flaky", "none"

        def run_set(self, model, set_name, data):
            if set_name == "bad":
                raise ValueError(f"cannot score {data}")
            return {"pearson": 1.0}

    class Ones:
        def encode(self, sentences, batch_size=256, normalize=False):
            return np.ones((len(sentences), 2))

    model = EvalModel("m", Ones(), ("en",))
    c = console.configure(verbose=False, log_dir=tmp_path)
    try:
        out = Flaky(Settings(data=tmp_path)).run(model, {"good": 1, "bad": "row 7"})
        c.handler.flush()
    finally:
        console.reset()
    assert out["status"] == "ok" and out["sets"]["good"] == {"status": "ok", "pearson": 1.0}
    assert out["sets"]["bad"]["status"] == "error"
    assert "ValueError: cannot score row 7" in out["sets"]["bad"]["message"]
    log = (tmp_path / console.LOG_FILE).read_text()
    assert "flaky/bad failed for m" in log and "Traceback" in log and "row 7" in log
