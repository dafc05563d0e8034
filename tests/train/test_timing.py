"""Where a training run's time goes: the clock's laps, and the background preparation that
hands back its result or error and never holds up a process that stops without it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from paralib.train.timing import Clock, background


def test_background_hands_back_the_result_and_the_error():
    assert background(sum, [1, 2, 3]).result(timeout=10) == 6
    with pytest.raises(ZeroDivisionError):
        background(lambda: 1 / 0).result(timeout=10)


def test_a_process_that_fails_before_asking_exits_without_waiting_for_the_work():
    script = textwrap.dedent("""
        import time
        from paralib.train.timing import background
        background(time.sleep, 60)
        raise SystemExit(3)
    """)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert done.returncode == 3, done.stderr.decode()[-2000:]
    assert time.monotonic() - start < 30


def test_the_clock_records_each_lap_by_name():
    clock = Clock()
    time.sleep(0.05)
    first = clock.lap("prepare")
    second = clock.lap("train")
    assert first >= 0.04 and 0 <= second < first
    assert list(clock.laps) == ["prepare", "train"]
