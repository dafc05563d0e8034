"""Issue 30 item 11 (the rest): a stage that makes no progress for ``ray.stall_timeout_s``
fails with a message instead of waiting forever."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from paralib.runtime import StallError, watch


def test_watch_passes_items_through_and_fails_on_a_stall():
    release = threading.Event()

    def slow():
        yield 1
        yield 2
        release.wait(30)  # a Ray iterator that never yields again
        yield 3

    got = []
    t0 = time.monotonic()
    with pytest.raises(StallError, match=r"score: no progress for 0.5 s \(2 items\); the stage "
                                         r"is stuck.*ray.stall_timeout_s"):
        for item in watch(slow(), 0.5, "score", lambda: f"{len(got)} items"):
            got.append(item)
    assert got == [1, 2] and time.monotonic() - t0 < 5
    release.set()

    def broken():
        yield 1
        raise ValueError("a bad shard")

    with pytest.raises(ValueError, match="a bad shard"):
        list(watch(broken(), 5, "score"))
    assert list(watch(iter(range(5)), 5, "score")) == [0, 1, 2, 3, 4]
    assert list(watch(iter(range(3)), None, "score")) == [0, 1, 2]


def test_a_stage_stuck_on_resources_fails_with_a_message(m30k, tmp_path):
    """Two CPUs, and the matching actor takes both: its read tasks never get a CPU, and
    Ray Data waits forever (STACK-NOTES). With a stall timeout the stage fails instead."""
    env = {**os.environ, "PARALIB_LOG_DIR": str(tmp_path / "logs")}
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "paralib", "decontaminate", "--no-progress",
         "--set", "ray.num_cpus=2", "--set", "ray.stall_timeout_s=4",
         "--set", "decontaminate.num_cpus_per_actor=2",
         "--set", f"decontaminate.output={tmp_path / 'dc'}", "--set", "bitext.shard_rows=100",
         "--set", f"bitext.inputs=[{{corpus: c, src_lang: de, src: '{m30k['val_de']}', "
                  f"en: '{m30k['val_en']}', limit: 200}}]"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 2, proc.stderr
    assert "decontaminate: no progress for 4 s (0 of 2 shards complete)" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert time.monotonic() - t0 < 90
