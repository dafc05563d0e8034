"""``paralib tune``'s parser, the base configuration it builds, resource fitting, and bad
input reported before anything starts (exit status 2)."""

from __future__ import annotations

import argparse

import pytest

from paralib.cli import main
from paralib.tune import cli
from paralib.tune.runner import ResourceError, fit_concurrency, trial_bundles
from paralib.tune.space import SpaceError


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="paralib")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["tune", *argv])


def test_parser_options():
    args = _parse("--space", "s.yaml", "--config", "c.yaml", "--set", "train.epochs=3",
                  "--set", "select.size=100", "--search", "optuna", "--samples", "8",
                  "--storage-path", "s3://bucket/tune", "--name", "x", "--concurrent", "2",
                  "--suite", "sts,stsb", "--suite", "sick", "--no-asha", "--seed", "4",
                  "--no-progress")
    assert (args.space, args.config, args.overrides) == \
        ("s.yaml", "c.yaml", ["train.epochs=3", "select.size=100"])
    assert (args.search, args.samples, args.storage_path, args.name, args.concurrent) == \
        ("optuna", 8, "s3://bucket/tune", "x", 2)
    assert cli._suites(args.suite) == ["sts", "stsb", "sick"] and args.no_asha
    assert args.no_progress and _parse("--space", "x", "-c", "c.yaml").config == "c.yaml"
    assert cli._suites(["none"]) == [] and cli._suites(None) is None
    defaults = _parse("--space", "s.yaml")
    assert (defaults.search, defaults.samples, defaults.suite, defaults.no_asha) == \
        (None, None, None, False)
    with pytest.raises(SystemExit):
        _parse("--space", "s.yaml", "--search", "annealing")
    with pytest.raises(SystemExit):
        _parse("--config", "c.yaml")  # --space is required


def test_base_config_space_set_then_command_line(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("train: {epochs: 9, lr: 0.01}\nselect: {size: 50}\n")
    args = _parse("--space", "s.yaml", "--config", str(config), "--set", "train.epochs=3")
    cfg = cli.build_config(args, {"train.epochs": 5, "select.bounds": [
        {"column": "len_trans", "upper": 30}], "select.hypotheses": "all",
        "train.model": {"parts": [{"name": "sp", "dim": 8}]}})
    assert cfg.train.epochs == 3  # --set wins over the space's set
    assert cfg.train.lr == 0.01 and cfg.select.size == 50  # the file's other values stay
    assert cfg.select.hypotheses == "all" and cfg.select.bounds[0].upper == 30
    assert cfg.train.model.parts[0].dim == 8


def test_bad_space_exits_2_before_starting(tmp_path, capsys):
    space = tmp_path / "bad.yaml"
    space.write_text("parameters:\n  length_range: {grid: []}\n")
    with pytest.raises(SpaceError, match="empty range"):
        cli.run(_parse("--space", str(space)))
    assert main(["tune", "--space", str(space)]) == 2  # one message, no traceback
    err = capsys.readouterr().err
    assert "paralib: error:" in err and str(space) in err and "empty range" in err
    assert "hint:" in err and "Traceback" not in err


def test_resources_fit_two_cores():
    # a 1-CPU trial, a 0.5-CPU worker and the data task's CPU: one trial at a time on 2 CPUs
    assert fit_concurrency(2, 1, 0.5) == 1
    assert fit_concurrency(16, 1, 0.5) == 10
    assert fit_concurrency(4, 1, 1.0) == 2
    assert fit_concurrency(2, 1, 0.5, asked=3) == 3
    with pytest.raises(ResourceError, match="lower train.cpus_per_worker"):
        fit_concurrency(2, 1, 1.5)
    from paralib.config import Config

    cfg = Config.model_validate({"train": {"workers": 2, "cpus_per_worker": 0.5}})
    assert trial_bundles(cfg, False) == [{"CPU": 0.5}, {"CPU": 0.5}]
    assert trial_bundles(cfg, True) == [{"CPU": 0.5, "GPU": 1.0}] * 2


def test_tune_run_entrypoint_starts():
    """``ray job submit -- python tune/run.py ...`` starts ``paralib tune`` (needs the
    ``tune`` subcommand wired into ``paralib.cli``)."""
    import subprocess
    import sys

    from paralib.paths import PROJECT_ROOT

    proc = subprocess.run([sys.executable, "tune/run.py", "--help"], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "--space" in proc.stdout and "--search" in proc.stdout


def test_unreachable_ray_address_exits_2_before_starting(tmp_path, scored_captions, capsys):
    """A valid search aimed at a cluster nobody serves: a clear error within seconds, with
    no trial started (``ray.init`` itself would wait about a minute)."""
    import time

    from paralib.cluster.local import free_port

    space = tmp_path / "lengths.yaml"
    space.write_text("parameters:\n  length_range: [[0, 14], [12, 100]]\n")
    port = free_port()
    t0 = time.monotonic()
    status = main(["tune", "--space", str(space), "--set", f"select.input={scored_captions}",
                   "--set", f"ray.address=127.0.0.1:{port}",
                   "--storage-path", str(tmp_path / "tune")])
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"cannot connect to 127.0.0.1:{port}" in err and "paralib: error:" in err
    assert time.monotonic() - t0 < 30
    assert not (tmp_path / "tune").exists()  # nothing started, nothing written
