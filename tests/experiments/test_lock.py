"""One invocation per experiment: a second one stops at once, and a killed holder leaves
nothing to clean up."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from paralib.experiments.lock import LOCK_NAME, ExperimentBusy, run_lock
from paralib.experiments.spec import ExperimentError


def test_a_second_holder_stops_with_a_message(tmp_path):
    folder = tmp_path / "noise"
    held = r"experiment noise is already running in another process \(lock .*" \
        r"noise/\.run\.lock\); wait for it to end"
    with run_lock(folder, "experiment noise"), pytest.raises(ExperimentBusy, match=held), \
            run_lock(folder, "experiment noise"):
        pass
    with run_lock(folder, "experiment noise"):  # released on exit
        pass
    # other experiments run side by side
    with run_lock(tmp_path / "folds", "folds"), run_lock(folder, "noise"):
        pass


def _wait_for(path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} did not appear in {seconds} s"
        time.sleep(0.05)


def test_the_lock_goes_with_a_killed_process(tmp_path):
    folder, ready = tmp_path / "x", tmp_path / "ready"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; from pathlib import Path; "
         "from paralib.experiments.lock import run_lock\n"
         f"with run_lock(Path({str(folder)!r}), 'x'):\n"
         f"    Path({str(ready)!r}).touch(); time.sleep(60)"])
    try:
        _wait_for(ready)
        with pytest.raises(ExperimentError, match="already running"), run_lock(folder, "x"):
            pass
    finally:
        holder.kill()
        holder.wait(10)
    deadline = time.monotonic() + 10
    while True:
        try:
            with run_lock(folder, "x"):
                break
        except ExperimentError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    assert (folder / LOCK_NAME).is_file()


def test_the_command_line_names_the_lock_and_how_to_run_beside_it(tmp_path, capsys):
    from paralib.cli import main

    with run_lock(tmp_path / "noise", "experiment noise"):
        assert main(["experiment", "noise", "--smoke", "--out", str(tmp_path),
                     "--log-dir", str(tmp_path / "logs")]) == 2
    err = capsys.readouterr().err
    assert "experiment noise is already running in another process" in err
    assert "hint: one invocation per experiment and output folder" in err
    assert "its own --out" in err and "Traceback" not in err
