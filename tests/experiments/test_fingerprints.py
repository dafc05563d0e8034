"""Run fingerprints follow from the fields' declarations in the schema, and they are the ones
the kept records of docs/results/runs/ were made with: every kept run is still found."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from paralib.experiments import plan
from paralib.experiments.records import RECORDS, RecordStore
from paralib.experiments.spec import DEFAULT_OUT, list_experiments, load_experiment


@pytest.fixture
def every_need_met(monkeypatch):
    """Plan every run, as on the machine that made the records (whose data outputs were
    there): a run with unmet needs has no config to fingerprint."""
    monkeypatch.setattr(plan, "unmet_all", lambda needs: [])


@pytest.mark.slow
def test_kept_records_keep_their_fingerprints(every_need_met):
    files = sorted(RECORDS.rglob("*.json"))
    checked, wrong = set(), []
    for exp_dir in sorted(p for p in RECORDS.iterdir() if p.is_dir()):
        exp = load_experiment(exp_dir.name)
        for size in sorted(p.name for p in exp_dir.iterdir()):
            store = RecordStore.of(RECORDS, exp.name, size, Path(DEFAULT_OUT))
            for run in plan.plan_runs(exp, size, Path(DEFAULT_OUT) / exp.name / size):
                for p in [run, *run.candidates]:
                    record = store.read(p.folder)
                    if record is None:
                        continue
                    checked.add(store.path(p.folder))
                    keys = (p.train_key, run.eval_key if p is run else record.eval_key)
                    if (record.train_key, record.eval_key) != keys:
                        wrong.append(f"{exp.name}/{size}/{p.name}")
    assert len(files) > 300 and checked == set(files)
    assert wrong == []


# The hand-kept lists the declarations replace (paralib/experiments/plan.py before the schema
# declared them), with the fields added since the records without a list entry
# (ray.stall_timeout_s, ray.node_types, s3.max_attempts; backtranslate/pivot/paraphrase.models;
# mt.corpora, mt.decontaminate, mt.device, mt.shard_rows; later ray.in_process), which had
# made every kept run look changed.
NOT_IN_KEY = {**{s: ("actors_per_gpu", "inter_threads", "fuse_io")
                 for s in ("backtranslate", "pivot", "paraphrase")},
              "train": ("keep_checkpoints", "decontaminate", "group_negatives"),
              "ray": ("stall_timeout_s", "node_types", "in_process"), "s3": ("max_attempts",)}
NEW_DEFAULTS = {"train": {"sparse": False, "lang_temperature": None, "caps": [],
                          "corpus_temperature": None, "vocab_sample_by": "order"},
                "bitext": {"corpora": [], "checks": {"untranslated": True,
                                                     "min_script_share": 0.5,
                                                     "min_letters": 4}},
                "mt": {"corpora": [], "decontaminate": True, "device": "auto",
                       "shard_rows": 20_000},
                **{s: {"models": {}} for s in ("backtranslate", "pivot", "paraphrase")}}


def _drop(section: dict[str, Any], defaults: dict[str, Any]) -> None:
    for key, default in defaults.items():
        if key in section and section[key] == default:
            section.pop(key)


def listed_key(cfg: Any) -> dict[str, Any]:
    """A run's fingerprinted config as the hand-kept lists made it."""
    tree = cfg.model_dump(mode="json")
    for section, keys in NOT_IN_KEY.items():
        for key in keys:
            tree.get(section, {}).pop(key, None)
    for section in ("decontaminate", "encode", "mine"):
        tree.pop(section, None)
    for section, defaults in NEW_DEFAULTS.items():
        _drop(tree.get(section, {}), defaults)
    train = tree.get("train", {})
    for part in train.get("model", {}).get("parts", []):
        _drop(part, {"dropout_on": "sentence"})
    for source in train.get("sources", []):
        _drop(source, {"sample": None, "langs": None, "exclude_langs": None})
    for section in ("bitext", "pivot", "paraphrase", "mt"):
        for inp in tree.get(section, {}).get("inputs", []):
            _drop(inp, {"set": None, "fraction": None, "line_group": None,
                        "strip_arabic_marks": False})
    for corpus in tree.get("bitext", {}).get("corpora", []):
        _drop(corpus, {"pivot": None, "strip_arabic_marks": True})
    return plan._portable(tree, plan._roots())


def with_rekeyed(cfg: Any, key: dict[str, Any]) -> dict[str, Any]:
    """``key`` with the fields that entered run keys after the lists
    (``ChangesResultsRekeyed``: ``train.decontaminate``, ``train.group_negatives`` and the
    ``decontaminate`` section's results), each only where it differs from its default."""
    key = copy.deepcopy(key)
    for name in ("decontaminate", "group_negatives"):
        if getattr(cfg.train, name) is not True:
            key["train"][name] = getattr(cfg.train, name)
    made = {"ngram": cfg.decontaminate.ngram, "min_tokens": cfg.decontaminate.min_tokens,
            "dedupe": cfg.decontaminate.dedupe}
    if made != {"ngram": 10, "min_tokens": 10, "dedupe": True}:
        key["decontaminate"] = made
    return key


@pytest.mark.slow
def test_declarations_make_the_keys_the_lists_made(every_need_met, monkeypatch):
    declared = plan.config_for_key
    seen: list[Any] = []
    monkeypatch.setattr(plan, "config_for_key",
                        lambda cfg, legacy=False: seen.append(cfg) or declared(cfg, legacy))
    for name in list_experiments():
        exp = load_experiment(name)
        for size in exp.sizes:
            plan.plan_runs(exp, size, Path("out"))
    assert len(seen) > 500
    assert all(declared(cfg, legacy=True) == listed_key(cfg) for cfg in seen)
    assert all(declared(cfg) == with_rekeyed(cfg, listed_key(cfg)) for cfg in seen)
    assert any(declared(cfg) != listed_key(cfg) for cfg in seen)  # synthetic-sts's
