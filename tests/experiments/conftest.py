"""The ``crafted`` fixture: the real runner with training and evaluation replaced by known
numbers (:data:`toys.DEV`, :data:`toys.TEST`), for the tests of tuned runs and kept records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from toys import DEV, TEST, TREE

from paralib.experiments import runner


@pytest.fixture
def crafted(monkeypatch, tmp_path):
    """Training writes a model folder and reports DEV[lr]; evaluation reports TEST[lr]."""
    trained: list[float] = []

    def fake_train(plan, progress):
        lr = plan.config.train.lr
        trained.append(lr)
        plan.model_dir.mkdir(parents=True, exist_ok=True)
        (plan.model_dir / "config.json").write_text(json.dumps({"lr": lr}))
        return {"dev_pearson": DEV[lr], "pairs": 10, "best_epoch": 1}

    def fake_evaluate(plan, suites, settings):
        lr = json.loads((Path(plan.model_dir) / "config.json").read_text())["lr"]
        return {"sts17": {"status": "ok", "sets": {"en-en": {"status": "ok",
                                                             "pearson": TEST[lr]}}}}

    monkeypatch.setattr(runner, "_train", fake_train)
    monkeypatch.setattr(runner, "_evaluate", fake_evaluate)
    monkeypatch.setattr(runner, "_settings", lambda exp, size: None)
    path = tmp_path / "toy-tuned.yaml"
    path.write_text(yaml.safe_dump(TREE, allow_unicode=True))
    return path, trained
