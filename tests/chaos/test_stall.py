"""A stage that makes no progress for ``ray.stall_timeout_s``
fails with a message instead of waiting forever: the Ray Data stages, captions (written in
the driver), Ray Train (pairs trained) and Ray Tune (trials that never start)."""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from paralib.config import Config
from paralib.corpora.captions import TASK2, write_caption_pairs
from paralib.io.context import StageContext
from paralib.io.fs import S3Options
from paralib.runtime import StallError, call_watched, ray_results, watch
from paralib.train.run import train


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


@pytest.mark.slow
def test_ray_results_come_as_tasks_finish_and_fail_on_a_stall(ray_session):
    """The wait of decontamination's repeat removal: results of finished tasks, and a task
    that no node can run (3 CPUs on a 2-CPU session) is a stall, not a wait forever."""

    def _square(x: int) -> int:  # defined here: Ray ships it by value, not by import
        return x * x

    quick = ray_session.remote(num_cpus=0.25)(_square)
    assert sorted(ray_results([quick.remote(x) for x in range(4)], 30, "squares")) == [0, 1,
                                                                                      4, 9]
    never = ray_session.remote(num_cpus=3)(_square)
    refs = [quick.remote(2), quick.remote(3), never.remote(4)]
    t0 = time.monotonic()
    with pytest.raises(StallError, match=r"repeats: no progress for 2 s \(2 of 3 done\)"):
        ray_results(refs, 2, "repeats")
    assert time.monotonic() - t0 < 30
    ray_session.cancel(refs[2], force=True)


@pytest.mark.slow
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


def test_call_watched_returns_raises_and_fails_on_a_stall():
    """The watch of a blocking call (``trainer.fit()``): progress is a value that changes;
    when it stops changing for ``timeout_s`` the work is aborted and the error names it."""
    ticks = [0]

    def busy() -> str:
        for _ in range(8):
            time.sleep(0.1)
            ticks[0] += 1
        return "done"

    assert call_watched(busy, 0.5, "train x", lambda: ticks[0], poll_s=0.05) == "done"
    assert call_watched(lambda: 7, None, "train x", lambda: 0) == 7  # no limit: unwatched

    def broken() -> None:
        raise ValueError("a worker failed")

    with pytest.raises(ValueError, match="a worker failed"):
        call_watched(broken, 5, "train x", lambda: 0, poll_s=0.05)

    release, aborted = threading.Event(), []

    def stuck() -> None:
        ticks[0] += 1
        release.wait(30)

    t0 = time.monotonic()
    with pytest.raises(StallError, match=r"train x: no progress for 0.5 s \(9 pairs\); the "
                                         r"stage is stuck: a worker hangs\..*stall_timeout_s"):
        call_watched(stuck, 0.5, "train x", lambda: ticks[0], lambda: f"{ticks[0]} pairs",
                     lambda: aborted.append(True), why="a worker hangs", poll_s=0.05)
    assert aborted == [True] and time.monotonic() - t0 < 5
    release.set()


def _black_hole() -> socket.socket:
    """A TCP server that accepts connections (the kernel does) and never answers: an S3
    endpoint that hangs."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    return server


def test_captions_writing_to_a_store_that_hangs_fails(tmp_path):
    base = tmp_path / TASK2
    base.mkdir(parents=True)
    for k in range(1, 6):
        (base / f"train.{k}.en.gz").write_bytes(gzip.compress(b"a dog runs\na cat sleeps\n"))
    server = _black_hole()
    s3 = S3Options(f"http://127.0.0.1:{server.getsockname()[1]}", access_key="testing",
                   secret_key="testing", max_attempts=3)
    t0 = time.monotonic()
    try:
        with pytest.raises(StallError, match=r"captions: no progress for 1 s \(0 of 1 shards "
                                             r"written by this run\); the stage is stuck: "
                                             r"writing its output does not return"):
            write_caption_pairs("s3://paralib-hangs/pairs", "train", s3=s3, root=tmp_path,
                                stall_s=1)
        assert time.monotonic() - t0 < 10
    finally:
        server.close()


@pytest.mark.slow
def test_training_whose_workers_never_start_fails_and_is_aborted(ray_session, tmp_path,
                                                                   monkeypatch):
    """Another job holds one of the two CPUs and the worker asks for both: Ray Train retries
    its worker group without end. With a stall timeout the run fails naming it and how far
    it got, and its controller (started after the driver gave up, on this busy machine, or
    while it waits for the workers) aborts: no placement group, no model, nothing trains."""
    from ray._private.state import actors
    from ray.util.placement_group import placement_group, remove_placement_group

    # Ray Train's wait for a worker group, short so that its controller answers an abort soon
    monkeypatch.setenv("RAY_TRAIN_WORKER_GROUP_START_TIMEOUT_S", "1")
    cfg = Config.model_validate({
        "ray": {"num_cpus": 2, "stall_timeout_s": 4},
        "train": {"sources": [{"kind": "sts"}], "decontaminate": False, "max_pairs": 200,
                  "dev": "none", "model": {"parts": [{"name": "sp", "vocab_size": 300,
                                                      "dim": 16}]},
                  "epochs": 1, "workers": 1, "cpus_per_worker": 2,
                  "output": str(tmp_path / "model"), "storage_path": str(tmp_path / "runs"),
                  "name": "stuck"}})
    busy = placement_group([{"CPU": 1}])  # another job's reservation
    ray_session.get(busy.ready(), timeout=60)
    before = {k for k, a in actors().items() if a["ActorClassName"] == "TrainController"}
    try:
        with pytest.raises(StallError, match=r"train stuck: no progress for 4 s \(0 of 200 "
                                             r"pairs trained, epoch 0 of 1 finished\); the "
                                             r"stage is stuck: its data or its workers wait"):
            train(cfg.train, StageContext.of(cfg, progress=False))
    finally:
        remove_placement_group(busy)  # the CPUs the run waited for are free now

    def controllers() -> list[str]:
        return [a["State"] for k, a in actors().items()
                if a["ActorClassName"] == "TrainController" and k not in before]

    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and controllers() != ["DEAD"]:
        time.sleep(0.5)
    assert controllers() == ["DEAD"]
    assert not [p for p in ray_session.util.placement_group_table().values()
                if p["state"] in ("PENDING", "CREATED", "RESCHEDULING")]
    assert not (tmp_path / "model").exists()


@pytest.mark.slow
def test_tune_trials_that_never_start_fail_the_run(ray_session):
    """Another job holds both CPUs: Tune waits forever for a trial's CPU. The stall watch
    raises out of ``Tuner.fit()``; Tune stops the trial, nothing is left waiting."""
    from ray import tune
    from ray.util.placement_group import placement_group, remove_placement_group

    from paralib.tune.stall import StallWatch

    busy = placement_group([{"CPU": 2}])
    ray_session.get(busy.ready(), timeout=60)
    tuner = tune.Tuner(
        tune.with_resources(lambda config: {"score": 1}, {"CPU": 1}),
        tune_config=tune.TuneConfig(num_samples=1),
        run_config=tune.RunConfig(callbacks=[StallWatch(3, "tune waiting", 1)], verbose=0))
    t0 = time.monotonic()
    try:
        with pytest.raises(StallError, match=r"tune waiting: no progress for 3 s \(0 of 1 "
                                             r"trials finished, 1 waiting to start, none "
                                             r"running\)"):
            tuner.fit()
        assert time.monotonic() - t0 < 60
    finally:
        remove_placement_group(busy)


def test_a_watch_whose_consumer_left_lets_go_of_its_items():
    """The consumer stops (an error on its side) while the watched items are still running
    and then fail: the watching thread ends instead of waiting forever to hand the failure
    over, so that it lets go of the items (a Ray Data iterator and its actors)."""
    release, waiting = threading.Event(), threading.Event()

    def items():
        yield 1
        yield 2  # one item ahead: the hand-over box is full from here on
        waiting.set()
        release.wait(5)
        raise OSError("a late failure")

    gen = watch(items(), 5, "consumer-left")
    assert next(gen) == 1
    assert waiting.wait(5)
    gen.close()
    release.set()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(
            t.name == "paralib-watch-consumer-left" for t in threading.enumerate()):
        time.sleep(0.05)
    assert not any(t.name == "paralib-watch-consumer-left" for t in threading.enumerate())
