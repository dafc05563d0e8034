"""The tuning summary (:class:`~paralib.contracts.TuneSummary`): a ``report.json`` written
before the contract (no ``version``) loads, round-trips and makes the same report; the trial
table shows small searched values such as a learning rate of 0.00173."""

from __future__ import annotations

import json

import pytest

from paralib.contracts import VERSION, ContractError, TrialRecord, TuneSummary
from paralib.tune.report import status_counts, trial_rows, write_report
from paralib.tune.results import best_epoch, read_best

EXP = "/work/main/output/tune/recipe-2019-training"


def _epoch(trial: str, epoch: int, dev: float, loss: float, seconds: float, at: str) -> dict:
    return {"epoch": epoch, "dev_pearson": dev, "loss": loss, "pairs": 109629,
            "seconds": seconds, "checkpoint_path": f"{EXP}/trial_{trial}/train/checkpoint_{at}"}


def old_summary() -> dict:
    """Two trials of the second recipe-2019 training sweep's ``report.json`` (as paralib wrote
    it before the summary had a contract; the first trial as written before the trial records
    had one), with every key of the summary."""
    stopped = {
        "trial_id": "07e04a53",
        "params": {"data_mix": "both", "vocab_size": 20000, "dim": 300, "megabatch": 5,
                   "margin": 0.3, "lr": 0.004281199513207141,
                   "word_dropout": 0.37872726459596007, "lang_temperature": 2.0},
        "status": "stopped", "error": None, "epochs_planned": 3, "epochs_run": 2,
        "history": [_epoch("07e04a53", 1, 75.51092368241484, 0.5864209073809951,
                           13.892918602003192, "2026-11-26_12-30-12.302718"),
                    _epoch("07e04a53", 2, 76.53358373489846, 0.39862637340345164,
                           8.674162040999363, "2026-11-26_12-30-21.380369")],
        "selected_pairs": None, "pairs": 109629, "path": f"{EXP}/trial_07e04a53",
        "model": None}
    best_params = {"data_mix": "both", "vocab_size": 20000, "dim": 300, "megabatch": 2,
                   "margin": 0.5, "lr": 0.001729024187382051,
                   "word_dropout": 0.3211287914743064, "lang_temperature": 1.0}
    completed = {
        "version": 1, "trial_id": "8b6b4e97", "params": best_params, "status": "completed",
        "error": None, "epochs_planned": 3, "epochs_run": 3,
        "history": [_epoch("8b6b4e97", 1, 77.84477315099329, 0.8968531108797996,
                           14.46513305299959, "2026-11-26_12-32-43.779269"),
                    _epoch("8b6b4e97", 2, 79.30448059549867, 0.74843780329262,
                           10.318033691000892, "2026-11-26_12-32-54.297292"),
                    _epoch("8b6b4e97", 3, 80.0811193848278, 0.6670724885619205,
                           8.556920234001154, "2026-11-26_12-33-03.448319")],
        "selected_pairs": None, "pairs": 109629, "path": f"{EXP}/trial_8b6b4e97",
        "model": f"{EXP}/trial_8b6b4e97/model"}
    grid = {"kind": "grid", "low": None, "high": None}
    return {
        "name": "recipe-2019-training", "space": "tune/spaces/recipe-2019-training.yaml",
        "description": "2019 recipe at scale: training hyperparameters (TPE), SP 20k, data "
                       "mix both, batch 400",
        "search": "optuna", "metric": "dev_pearson", "mode": "max", "seed": 1,
        "asha": {"enabled": True, "max_t": 3, "grace_period": 1, "reduction_factor": 2.0},
        "concurrent": 1, "trial_cpus": 1.0, "worker_bundles": [{"CPU": 1.0}],
        "experiment": EXP, "seconds": 1368.9, "selects": False,
        "parameters": [{"name": "data_mix", "values": ["both"], **grid},
                       {"name": "vocab_size", "values": [20000], **grid},
                       {"name": "dim", "values": [300, 600], **grid},
                       {"name": "megabatch", "values": [2, 5, 10], **grid},
                       {"name": "margin", "values": [0.3, 0.4, 0.5], **grid},
                       {"name": "lr", "kind": "loguniform", "values": None, "low": 0.0005,
                        "high": 0.005},
                       {"name": "word_dropout", "kind": "uniform", "values": None,
                        "low": 0.1, "high": 0.5},
                       {"name": "lang_temperature", "values": [1.0, 2.0, 5.0], **grid}],
        "placement_groups_reaped": 0, "trials": [stopped, completed],
        "tensorboard": f"tensorboard --logdir {EXP}",
        "best": {"trial_id": "8b6b4e97", "params": best_params, "epoch": 3,
                 "dev_pearson": 80.0811193848278,
                 "checkpoint_path": completed["history"][2]["checkpoint_path"],
                 "status": "completed"},
        "test": {"suites": ["sts", "stsb"], "model": "best-model",
                 "results": {"sts (mean of 2012-2016 sets)": 68.1688491063163,
                             "stsb dev": 80.08111920593667, "stsb test": 74.86640082861416},
                 "report": "evaluate/report.md"},
        "files": {"json": f"{EXP}/report/report.json", "markdown": f"{EXP}/report/report.md",
                  "html": f"{EXP}/report/report.html", "plots": f"{EXP}/report/plots"},
    }


def test_an_old_summary_migrates_and_round_trips():
    raw = old_summary()
    summary = TuneSummary.load(json.loads(json.dumps(raw)))
    assert summary.version == VERSION and summary.dump() == {"version": VERSION, **raw}
    assert all(isinstance(t, TrialRecord) for t in summary.trials)
    assert [t.status for t in summary.trials] == ["stopped", "completed"]
    assert summary.asha["enabled"] and summary.selects is False and summary.seed == 1
    assert status_counts(summary) == {"completed": 1, "stopped": 1, "error": 0}
    assert best_epoch(summary.trials, "dev_pearson", "max") == raw["best"]
    again = TuneSummary.load(json.loads(json.dumps(summary.dump())))
    assert again == summary
    with pytest.raises(ContractError, match="upgrade paralib"):
        TuneSummary.load({**raw, "version": VERSION + 1})


def test_the_trial_table_shows_small_learning_rates():
    header, rows = trial_rows(TuneSummary.load(old_summary()))
    assert header[6] == "lr" and header[-2] == "best dev_pearson (epoch)"
    best, stopped = rows  # best dev first
    assert best[0] == "8b6b4e97" and best[6] == "0.00173" and best[7] == "0.321"
    assert best[5] == "0.5" and best[8] == "1" and best[-2] == "80.08 (3)"
    assert stopped[6] == "0.00428" and stopped[-1] == "stopped by ASHA after epoch 2"


def test_an_old_report_is_written_again_and_read_back(tmp_path):
    summary = TuneSummary.load(old_summary())
    files = write_report(summary, tmp_path / "report")
    assert summary.files == files and files["json"] == str(tmp_path / "report" / "report.json")
    md = (tmp_path / "report" / "report.md").read_text()
    assert "| 8b6b4e97 | both | 20000 | 300 | 2 | 0.5 | 0.00173 | 0.321 | 1 | 109629 | 3/3 " \
        "| 80.08 (3) | completed |" in md
    assert "| dev dev_pearson | 80.08 |" in md and "| test: stsb test | 74.87 |" in md
    assert "| lr | 0.00173 |" in md and "| word_dropout | 0.321 |" in md  # best config
    saved = json.loads((tmp_path / "report" / "report.json").read_text())
    assert saved == {"version": VERSION, **old_summary(), "files": files}
    assert read_best(str(tmp_path)) == old_summary()["best"]
