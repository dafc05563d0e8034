"""A run's fingerprint covers what makes its model, not where translation actors are placed,
how many checkpoints stay on disk or where the checkout is."""

from __future__ import annotations

from pathlib import Path

from paralib import paths
from paralib.experiments import plan
from paralib.experiments.plan import plan_runs
from paralib.experiments.spec import load_experiment


def keys(overrides: dict) -> dict[str, str]:
    exp = load_experiment("mega-batching")
    return {p.name: p.train_key for p in plan_runs(exp, "smoke", Path("out"), overrides)}


def test_placing_translation_actors_keeps_the_keys_and_training_changes_them():
    base = keys({})
    assert keys({"backtranslate.actors_per_gpu": 4, "pivot.actors_per_gpu": 2}) == base
    assert keys({"train.keep_checkpoints": None}) == base
    changed = keys({"train.lr": 0.01})
    assert all(changed[name] != key for name, key in base.items())


def test_a_run_has_one_key_in_every_checkout(monkeypatch, tmp_path):
    base = keys({})
    moved = tmp_path / "elsewhere" / "models"       # {models} expands under the checkout
    for module in (paths, plan):
        monkeypatch.setattr(module, "models_root", lambda: moved)
    assert plan.config_for_key(plan.Config())["backtranslate"]["model"] == "{models}/de-en"
    assert keys({}) == base
    assert keys({"backtranslate.model": str(tmp_path / "de-en")}) != base
