"""The evaluation stage end to end: the report renders with the run's numbers; missing data
is marked."""

from __future__ import annotations

import json
import os

from paralib.evaluate import Evaluation, Settings, evaluate, make_baseline
from paralib.io.context import StageContext


def test_report_renders(tmp_path, data_dir, glove, hash_encoder):
    out = tmp_path / "report"
    settings = Settings(data=data_dir, speed_sentences=300)
    report = evaluate(Evaluation({"glove": glove, "bleu": make_baseline("bleu"),
                                  "hash": hash_encoder}, ["stsb", "sts17,speed", "neighbours"],
                                 out, settings), StageContext(progress=False)).dump()
    assert report["suites"] == ["stsb", "sts17", "neighbours", "speed"]
    files = report["files"]
    saved = json.loads((out / "report.json").read_text())
    stsb = saved["tasks"]["stsb"]["models"]
    assert stsb["glove"]["sets"]["test"]["pearson"] == \
        report["tasks"]["stsb"]["models"]["glove"]["sets"]["test"]["pearson"]
    assert saved["models"]["bleu"]["kind"] == "pair scorer"
    assert saved["tasks"]["speed"]["models"]["bleu"]["status"] == "n/a"
    assert saved["tasks"]["speed"]["models"]["hash"]["sets"]["multi30k-en"]["sentences"] == 300
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    # numbers in the tables come from the run
    test_r = f"{stsb['hash']['sets']['test']['pearson']:.1f}"
    assert f"| hash | {stsb['hash']['sets']['dev']['pearson']:.1f} |" in md and test_r in md
    assert "| Model | ar-ar | ar-en | es-es | es-en | es-en (b) | en-en | tr-en |" in md
    assert "glove: ar-ar, ar-en, es-es" in md and "skipped: model covers (en)" in md
    assert "Nearest neighbours of “okay, you don't get it, man.” (en)" in md
    assert "<table>" in html and "Sentences/Sec." in html
    for suite in ("stsb", "sts17", "speed"):
        png = out / "plots" / f"{suite}.png"
        assert png.read_bytes()[:4] == b"\x89PNG" and files["plots"][suite] == str(png)
        assert f"plots/{suite}.png" in html


def test_missing_task_is_marked_and_others_run(tmp_path, data_dir, glove):
    data = tmp_path / "data"
    (data / "sts").mkdir(parents=True)
    os.symlink(data_dir / "sts" / "sick2014", data / "sts" / "sick2014")
    report = evaluate(Evaluation({"glove": glove}, ["stsb", "sick"], tmp_path / "out",
                                 Settings(data=data)), StageContext(progress=False)).dump()
    stsb = report["tasks"]["stsb"]
    assert stsb["models"]["glove"]["status"] == "missing"
    assert stsb["data"]["test"]["file"] == str(data / "sts" / "stsbenchmark" / "sts-test.csv")
    assert report["tasks"]["sick"]["models"]["glove"]["status"] == "ok"
    md = (tmp_path / "out" / "report.md").read_text()
    assert "Missing data (test): STS Benchmark test: file sts-test.csv not found (looked in " \
        f"{data / 'sts' / 'stsbenchmark'})" in md
    assert "| glove | missing | missing | missing | missing |" in md
