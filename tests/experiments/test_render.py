"""The results book says where runs were made: a GPU-trained run's time is marked, and the
wall-time sentence names the machines of reused runs whose records say."""

from __future__ import annotations

from paralib.contracts import Made
from paralib.experiments import runner
from paralib.experiments.render import RunInfo, runs_table, wall_time

H100 = "16 CPU cores and an NVIDIA H100 80GB HBM3"


def record(gpu: bool) -> dict:
    return {"status": "ok", "reused": True, "setup": {"parts": ["lstm(word, 300)"], "epochs": 5,
                                                      "megabatch": 20, "trained": True},
            "train": {"pairs": 116000, "best_epoch": 4, "dev_pearson": 80.1, "gpu": gpu},
            "seconds": {"train": 152.5, "evaluate": 3.0}}


def test_a_gpu_trained_run_is_marked_in_the_runs_table():
    lines = runs_table({"LSTM M=20": record(True), "LSTM M=1": record(False)})
    assert "| 152.5 (GPU) |" in lines[2]
    assert "| 152.5 |" in lines[3] and "GPU" not in lines[3]


def test_the_wall_time_names_the_machines_the_reused_runs_were_made_on():
    made = [Made(at="2026-11-22 10:00 UTC", load=2.0),
            Made(at="2026-11-22 19:00 UTC", load=0.1, machine=H100),
            Made(at="2026-11-22 19:05 UTC", load=0.2, machine=H100)]
    info = RunInfo(size="full", command="paralib experiment mega-batching", seconds=4.0,
                   started="2026-11-22 20:00 UTC", cpus=2, load=1.0, made=0, reused=3,
                   reused_seconds=900.0, reused_made=made)
    text = wall_time(info)
    assert ("(2026-11-22 10:00 UTC to 2026-11-22 19:05 UTC, load average 0.1 to 2.0; "
            f"2 on {H100}, 1 on a machine their records do not name)") in text


def test_a_run_made_here_records_this_machine(monkeypatch):
    monkeypatch.setattr(runner, "_gpu", lambda: "NVIDIA H100 80GB HBM3")
    monkeypatch.setattr(runner.os, "cpu_count", lambda: 16)
    now = runner._now()
    assert now["machine"] == H100 and now["gpu"] == "NVIDIA H100 80GB HBM3"
    info = RunInfo(size="full", command="c", seconds=60.0, started=now["at"], cpus=16,
                   load=0.5, made=2, reused=0, reused_seconds=0.0, gpu=now["gpu"])
    assert "on 16 CPU core(s) and an NVIDIA H100 80GB HBM3 shared" in wall_time(info)


def test_a_run_whose_kept_epoch_collapsed_is_marked():
    gone = record(False)
    gone["train"]["history"] = [{"epoch": e, "collapsed": e == 4} for e in range(1, 6)]
    kept_fine = record(False)
    kept_fine["train"]["history"] = [{"epoch": e, "collapsed": e == 5} for e in range(1, 6)]
    lines = runs_table({"LSTM": gone, "WORD": kept_fine, "old record": record(False)})
    assert "| 80.1 (collapsed) |" in lines[2]
    assert "| 80.1 |" in lines[3] and "| 80.1 |" in lines[4]
