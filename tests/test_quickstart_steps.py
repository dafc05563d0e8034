"""The quickstart is a flat sequence of stage calls: each stage once, in order, the config
unchanged, and what the evaluation compares decided before the first stage runs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import paralib.quickstart as qs
from paralib.config import load_config
from paralib.evaluate import Baseline
from paralib.paths import PROJECT_ROOT


def test_the_stages_run_once_each_in_order_on_an_unchanged_config(monkeypatch, tmp_path, capsys):
    cfg = load_config(PROJECT_ROOT / "configs" / "quickstart.yaml")
    before = cfg.model_dump()
    calls: list[str] = []

    def stage(name, result):
        def call(*args, **kwargs):
            calls.append(name)
            return result(*args, **kwargs) if callable(result) else result
        return call

    report = SimpleNamespace(text=lambda: "counts", rows_out=7, hypotheses=28)
    row = {"ref": "a", "trans": "b", "cost": 0.5, "rank": 1}
    evaluation = {}

    def evaluate(ev, ctx):
        (name, folder), *beside = ev.models.items()
        evaluation.update(name=name, folder=folder,
                          beside={n: m for n, m in beside if not isinstance(m, Baseline)},
                          baselines=tuple(m.name for _, m in beside if isinstance(m, Baseline)),
                          out=ev.out)
        return SimpleNamespace(pearson=lambda *a: 80.0, files={"html": "ev.html"})

    monkeypatch.setattr(qs, "shipped_model", lambda: tmp_path)
    monkeypatch.setattr(qs, "model_info", lambda path: {})
    monkeypatch.setattr(qs, "backtranslate", stage("backtranslate", report))
    monkeypatch.setattr(qs, "read_output", lambda *a: SimpleNamespace(
        slice=lambda *b: SimpleNamespace(to_pylist=lambda: [row])))
    monkeypatch.setattr(qs, "language_models", stage("lm", {"references": 3, "models": "lm"}))
    monkeypatch.setattr(qs, "classifiers", stage("classifier", {"test": {}}))
    monkeypatch.setattr(qs, "score", stage("score", report))
    monkeypatch.setattr(qs, "select", stage("select", {
        "steps": [], "rows_out": 5, "files": {"pairs": "p"}}))
    monkeypatch.setattr(qs, "analyze", stage("analyze", "report.html"))
    monkeypatch.setattr(qs, "train_model", stage("train", SimpleNamespace(
        decontaminated={}, pairs=5, rejected=0, history=[], model="m", best_epoch=1)))
    monkeypatch.setattr(qs, "evaluate", stage("evaluate", evaluate))
    monkeypatch.setattr(qs, "results_table", lambda ev: "TABLE")

    summary = qs.quickstart(cfg, progress=False)
    assert calls == ["backtranslate", "lm", "classifier", "score", "select", "analyze",
                     "train", "evaluate"]
    assert cfg.model_dump() == before
    assert evaluation == {"name": "quickstart-sp", "folder": "output/quickstart/model",
                          "beside": {qs.SHIPPED: str(tmp_path)}, "baselines": qs.BASELINES,
                          "out": Path("output/quickstart/evaluate")}
    assert (summary["selected"], summary["model"], summary["stsb_dev"]) == (5, "m", 80.0)
    headers = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    assert headers == [
        f"[1/7] back-translating with {cfg.backtranslate.model} (?→?, BLEU n/a on Multi30k "
        "test 2016)",
        "[2/7] language models and reference/translation classifiers on held-out references",
        "[3/7] scoring every candidate pair", "[4/7] selecting a training set",
        "[5/7] analysis report",
        "[6/7] training an SP encoder on the selected pairs with Ray Train",
        "[7/7] evaluating on STS 2012-2016 and STS Benchmark next to the baselines"]
