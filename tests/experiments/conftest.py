"""The ``crafted`` fixture: the real runner with training and evaluation replaced by known
numbers (:data:`toys.DEV`, :data:`toys.TEST`), for the tests of tuned runs and kept records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from toys import DEV, TEST, TREE

from paralib import runs as service
from paralib.contracts import EvalReport, TrainingSummary
from paralib.evaluate import run as evaluate_run
from paralib.experiments import runner


@pytest.fixture
def crafted(monkeypatch, tmp_path):
    """Training writes a model folder and reports DEV[lr]; evaluation reports TEST[lr]."""
    trained: list[float] = []

    def fake_train(cfg, *args, **kwargs):
        lr = cfg.train.lr
        trained.append(lr)
        model = Path(cfg.train.output)
        model.mkdir(parents=True, exist_ok=True)
        (model / "config.json").write_text(json.dumps({"lr": lr}))
        return TrainingSummary(dev_pearson=DEV[lr], pairs=10, best_epoch=1)

    def fake_evaluate(evaluation, ctx):
        name, model = next(iter(evaluation.models.items()))
        lr = json.loads((Path(model) / "config.json").read_text())["lr"]
        return EvalReport(tasks={"sts17": {"models": {name: {
            "status": "ok", "sets": {"en-en": {"status": "ok", "pearson": TEST[lr]}}}}}})

    monkeypatch.setattr(service, "train_model", fake_train)
    monkeypatch.setattr(evaluate_run, "evaluate", fake_evaluate)
    monkeypatch.setattr(runner, "_settings", lambda exp, size: None)
    path = tmp_path / "toy-tuned.yaml"
    path.write_text(yaml.safe_dump(TREE, allow_unicode=True))
    return path, trained
