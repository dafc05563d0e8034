"""One invocation per experiment and size: a second one stops at once, and a killed holder
leaves nothing to clean up."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from paralib.experiments.lock import LOCK_NAME, run_lock
from paralib.experiments.spec import ExperimentError


def test_a_second_holder_stops_with_a_message(tmp_path):
    folder = tmp_path / "noise" / "full"
    held = r"experiment noise \(full\) is already running in another process \(lock .*" \
        r"noise/full/\.run\.lock\)"
    with run_lock(folder, "experiment noise (full)"), pytest.raises(ExperimentError, match=held), \
            run_lock(folder, "experiment noise (full)"):
        pass
    with run_lock(folder, "experiment noise (full)"):  # released on exit
        pass
    # other sizes run side by side
    with run_lock(tmp_path / "noise" / "small", "small"), run_lock(folder, "full"):
        pass


def test_the_lock_goes_with_a_killed_process(tmp_path):
    folder = tmp_path / "x" / "full"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from paralib.experiments.lock import run_lock\n"
         f"with run_lock(Path({str(folder)!r}), 'x'):\n"
         "    print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
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
