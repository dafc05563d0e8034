"""A run's fingerprint covers what makes its model, not where translation actors are placed."""

from __future__ import annotations

from pathlib import Path

from paralib.experiments.plan import plan_runs
from paralib.experiments.spec import load_experiment


def keys(overrides: dict) -> dict[str, str]:
    exp = load_experiment("mega-batching")
    return {p.name: p.train_key for p in plan_runs(exp, "smoke", Path("out"), overrides)}


def test_placing_translation_actors_keeps_the_keys_and_training_changes_them():
    base = keys({})
    assert keys({"backtranslate.actors_per_gpu": 4, "pivot.actors_per_gpu": 2}) == base
    changed = keys({"train.lr": 0.01})
    assert all(changed[name] != key for name, key in base.items())
