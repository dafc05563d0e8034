"""Tuned runs (2017 §5.5-5.7): one model per candidate, the dev-best one kept and evaluated.

The end-to-end case replaces training and evaluation by crafted numbers: each candidate's dev
score and test score are known, so the test knows which candidate must win and what the cell
must show."""

from __future__ import annotations

import copy

import pytest
from toys import TEST, TREE

from paralib import runs as service
from paralib.experiments import runner
from paralib.experiments.candidates import candidate_values, candidates, label
from paralib.experiments.render import cell_notes
from paralib.experiments.spec import ExperimentError, TuneSpec, parse_experiment
from paralib.experiments.tuned import choose
from paralib.select.steps import SelectError


def record(dev: float | None, status: str = "ok") -> dict:
    return {"status": status, "train": {"dev_pearson": dev}}


def test_choose_takes_the_dev_best_candidate():
    recs = [record(50.0), record(70.0), record(60.0)]
    assert choose(recs, "train/dev_pearson") == 1
    assert choose(recs, "train/dev_pearson", mode="min") == 0
    assert choose([record(70.0), record(70.0)], "train/dev_pearson") == 0  # first on a tie
    # failed candidates and candidates without a score are left out
    assert choose([record(99.0, "error"), record(None), record(10.0)],
                  "train/dev_pearson") == 2
    assert choose([record(None), record(1.0, "error")], "train/dev_pearson") is None


def test_candidates_from_a_space_file_and_sizes():
    tune = TuneSpec(space="tune/spaces/overlap3.yaml",
                    sizes={"small": {"overlap3_min": [0.0, 0.2], "overlap3_max": [1.0]}})
    full = candidate_values(tune, "full")
    assert full["overlap3_min"] == [0.0, 0.1, 0.2, 0.3] and len(candidates(tune, "full")) == 20
    small = candidates(tune, "small")
    assert small == [{"overlap3_min": 0.0, "overlap3_max": 1.0},
                     {"overlap3_min": 0.2, "overlap3_max": 1.0}]
    assert label({"length_range": [0, 10]}) == "length_range [0, 10]"
    assert label({"ppl_max": float("inf"), "cost_max": 0.5}) == "ppl_max none, cost_max 0.5"
    with pytest.raises(ExperimentError, match="not found"):
        candidate_values(TuneSpec(space="tune/spaces/no-such.yaml"), "full")
    with pytest.raises(ValueError, match="space file, parameters or both"):
        TuneSpec()


def test_tuned_run_keeps_the_dev_best_model(crafted, tmp_path):
    path, trained = crafted
    result = runner.run_experiment(str(path), size="smoke", out=tmp_path / "out",
                                   echo=lambda _: None)
    assert sorted(trained) == [0.1, 0.1, 0.2, 0.3]   # Fixed, then one model per candidate
    rec = result.records["Tuned"]
    assert rec.status == "ok"
    assert rec.tuned["chosen"] == "train.lr 0.2" and rec.tuned["value"] == 70.0
    assert [c["value"] for c in rec.tuned["candidates"]] == [50.0, 70.0, 60.0]
    cell = result.table.cells[("Tuned", "STS")]
    assert cell.ours == 40.0                         # the chosen model's test score
    assert cell.ours_text == "40.0 (tuned: train.lr 0.2)"
    notes = "\n".join(cell_notes(result.table, result.records))
    assert "Tuned: chose train.lr 0.2 (train/dev_pearson 70.0) of 3 candidates" in notes
    assert "train.lr 0.3: 60.0" in notes
    assert (tmp_path / "out/toy-tuned/smoke/runs/Tuned/tune/train.lr-0.2/model").is_dir()
    # the direction is checked on the tuned cell like any other
    assert result.table.directions[0].ours == pytest.approx(40.0 - 90.0)

    trained.clear()
    again = runner.run_experiment(str(path), size="smoke", out=tmp_path / "out",
                                  echo=lambda _: None)
    assert trained == [] and again.records["Tuned"].reused
    assert again.table.cells[("Tuned", "STS")].ours == 40.0


def test_failed_candidates_are_left_out(crafted, tmp_path, monkeypatch):
    path, _ = crafted
    real = service.train_model

    def failing(cfg, *args, **kwargs):
        if cfg.train.lr == 0.2:
            raise SelectError("size 400 asked but only 12 pairs pass the filters")
        return real(cfg, *args, **kwargs)

    monkeypatch.setattr(service, "train_model", failing)
    result = runner.run_experiment(str(path), size="smoke", out=tmp_path / "out2",
                                   echo=lambda _: None)
    tuned = result.records["Tuned"].tuned
    assert tuned["chosen"] == "train.lr 0.3"
    assert tuned["candidates"][1]["status"] == "error"
    assert "only 12 pairs" in tuned["candidates"][1]["message"]
    assert tuned["candidates"][1]["too_few_pairs"] and not tuned["candidates"][0]["too_few_pairs"]
    assert result.table.cells[("Tuned", "STS")].ours == 80.0


def test_a_candidate_failing_for_another_reason_fails_the_tuned_run(crafted, tmp_path,
                                                                    monkeypatch):
    path, _ = crafted
    real = service.train_model

    def full_disk(cfg, *args, **kwargs):
        if cfg.train.lr == 0.2:
            raise OSError(28, "No space left on device")
        return real(cfg, *args, **kwargs)

    monkeypatch.setattr(service, "train_model", full_disk)
    kept = tmp_path / "kept"
    result = runner.run_experiment(str(path), size="smoke", out=tmp_path / "out3",
                                   records=kept, echo=lambda _: None)
    rec = result.records["Tuned"]
    assert rec.status == "error" and "train.lr 0.2 (OSError" in rec.message
    assert not (kept / "toy-tuned/smoke/Tuned.json").exists()      # made again next time
    assert (kept / "toy-tuned/smoke/Tuned/tune/train.lr-0.3.json").is_file()


def test_a_tuned_grid_fragment_merges():
    tree = copy.deepcopy(TREE)
    del tree["runs"]
    tree["ours"]["run"] = "{row} x"
    tree["grid"] = {"name": "{kind} {size}", "axes": {
        "kind": {"Fixed": {}, "Tuned": {"tune": {"parameters": {"train.lr": [0.1]}}}},
        "size": {"x": {"set": {"train.epochs": 2}}}}}
    exp = parse_experiment(tree, "toy")
    runs = exp.all_runs()
    assert runs["Tuned x"].tune is not None and runs["Fixed x"].tune is None
    assert runs["Tuned x"].set == {"train.epochs": 2}


def test_command_line_overrides_come_after_the_runs_and_before_the_candidates(crafted,
                                                                             tmp_path):
    path, trained = crafted
    runner.run_experiment(str(path), size="smoke", out=tmp_path / "out", echo=lambda _: None)
    trained.clear()
    result = runner.run_experiment(str(path), size="smoke", out=tmp_path / "out",
                                   echo=lambda _: None, overrides=["train.lr=0.3"])
    # Fixed's own lr (0.1) is overridden, so it trains again; each candidate still sets its
    # tuned lr, so its config is unchanged and its model reused
    assert trained == [0.3]
    assert not result.records["Fixed"].reused
    assert result.records["Tuned"].reused
    assert result.table.cells[("Fixed", "STS")].ours == TEST[0.3]
    book = (tmp_path / "out/toy-tuned/smoke/RESULTS.md").read_text()
    assert f"Command: `paralib experiment {path} --smoke --out {tmp_path / 'out'} --set " \
        "train.lr=0.3`" in book


def test_command_line_overrides_reach_every_config_and_are_validated(tmp_path):
    from paralib.experiments.plan import plan_runs

    exp = parse_experiment(copy.deepcopy(TREE), "toy-tuned.yaml")
    plans = plan_runs(exp, "smoke", tmp_path, {"train.epochs": 3, "train.workers": 2})
    configs = [plans[0].config] + [c.config for c in plans[1].candidates]
    assert len(configs) == 4
    assert all(c.train.epochs == 3 and c.train.workers == 2 for c in configs)
    assert [c.train.lr for c in configs] == [0.1, 0.1, 0.2, 0.3]
    with pytest.raises(ExperimentError, match=r"--set train\.epochz makes an invalid config "
                                              r"\(the experiment's own is valid\):\n  "
                                              r"train\.epochz: unknown key"):
        plan_runs(exp, "smoke", tmp_path, {"train.epochz": 3})
    with pytest.raises(ExperimentError, match=r"\(smoke\): --set train\.lr\.x: train\.lr is a "
                                              r"value \(0\.1\); expected a section"):
        plan_runs(exp, "smoke", tmp_path, {"train.lr.x": 3})


def test_a_second_invocation_of_the_same_size_trains_nothing(crafted, tmp_path):
    from paralib.experiments.lock import run_lock

    path, trained = crafted
    first = run_lock(tmp_path / "out" / "toy-tuned", "the first invocation")
    with first, pytest.raises(ExperimentError, match="already running in another process"):
        runner.run_experiment(str(path), size="smoke", out=tmp_path / "out",
                              echo=lambda _: None)
    assert trained == []


def test_overrides_parse_in_order_and_keep_off_the_runners_paths():
    assert runner.parse_overrides(["train.lr=1", "train={lr: 2}", "train.lr=3"]) == \
        {"train": {"lr": 2}, "train.lr": 3}  # a repeated key takes its last place
    for key in sorted(runner.RUNNER_KEYS):
        with pytest.raises(ExperimentError, match=f"--set {key}: the runner sets this"):
            runner.parse_overrides([f"{key}=/elsewhere"])
    with pytest.raises(ExperimentError, match="--set expects key=value, got 'train.lr'"):
        runner.parse_overrides(["train.lr"])
    assert runner.command_line("noise", "small", "output/experiments", None, "p q",
                               ["train.lr=0.01", "select.size=`x`"]) == \
        "paralib experiment noise --size small --plots 'p q' --set train.lr=0.01 --set " \
        "'select.size=`x`'"
