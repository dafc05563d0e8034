"""Ray Train: 2-worker DDP on CPU (gloo) trains, checkpoints every epoch, keeps the best epoch
as a model folder and on disk only the best and the latest checkpoints, and a rerun of the
same run resumes from its latest checkpoint."""

from __future__ import annotations

import json

import pytest

import paralib
from paralib.config import Config
from paralib.io.context import StageContext
from paralib.train.config import TrainConfig
from paralib.train.run import train


def _cfg(tmp_path, epochs: int) -> tuple[TrainConfig, StageContext]:
    cfg = Config.model_validate({
        "ray": {"num_cpus": 2},
        "train": {
            "sources": [{"kind": "sts"}], "decontaminate": False,  # STSB train, kept
            "model": {"parts": [{"name": "sp", "vocab_size": 1500, "dim": 32}]},
            "megabatch": {"size": 2, "across_workers": True},
            "epochs": epochs, "workers": 2, "cpus_per_worker": 0.5,
            "output": str(tmp_path / "model"), "storage_path": str(tmp_path / "runs"),
            "name": "ddp"}})
    return cfg.train, StageContext.of(cfg, progress=False)


@pytest.mark.slow
def test_two_workers_checkpoint_and_resume(ray_session, tmp_path):
    first = train(*_cfg(tmp_path, 1))
    assert [h["epoch"] for h in first.history] == [1]
    assert first.resumed_from_epoch == 0
    assert first.workers == 2 and first.pairs > 1000
    assert len(list((tmp_path / "runs" / "ddp").glob("checkpoint_2*"))) == 1
    # the same run asked for three epochs: it resumes after epoch 1 instead of starting over
    second = train(*_cfg(tmp_path, 3))
    # every epoch's record, whichever epoch is kept, and where this call took over
    assert [h["epoch"] for h in second.history] == [1, 2, 3]
    assert second.resumed_from_epoch == 1
    assert second.history[0] == first.history[0]
    best = max(second.history, key=lambda h: h["dev_pearson"])
    # keep_checkpoints 1: the best epoch's checkpoint and the latest stay, the others go
    kept = list((tmp_path / "runs" / "ddp").glob("checkpoint_2*"))
    assert len(kept) == (1 if best["epoch"] == 3 else 2)
    assert second.best_epoch == best["epoch"]
    enc = paralib.load(tmp_path / "model")
    vecs = enc.encode(["A man is playing a guitar.", "A man plays the guitar."])
    assert vecs.shape == (2, 32)
    info = json.loads((tmp_path / "model" / "training.json").read_text())
    assert info["dev_pearson"] == best["dev_pearson"]
    assert (tmp_path / "model" / "training.png").stat().st_size > 0


def test_minibatches_cover_the_shard_once_per_epoch_in_a_new_order():
    """The worker's windowed shuffle: every pair once per epoch, batch-size pieces, a
    different order each epoch, the same order for the same seed and epoch."""
    import pyarrow as pa

    from paralib.train.config import TrainConfig
    from paralib.train.loop import minibatches

    class Shard:
        def iter_batches(self, batch_size, batch_format):
            assert batch_format == "pyarrow"
            rows = pa.table({"group": list(range(2_345))})
            for start in range(0, rows.num_rows, batch_size):
                yield rows.slice(start, batch_size)

    cfg = TrainConfig(batch_size=100)

    def epoch(n: int) -> list[int]:
        batches = list(minibatches(Shard(), cfg, n, window=4))
        assert all(b.num_rows <= 100 for b in batches)
        return [g for b in batches for g in b["group"].to_pylist()]

    first, second = epoch(0), epoch(1)
    assert sorted(first) == sorted(second) == list(range(2_345))
    assert first != second and first == epoch(0)
    assert first[:400] != list(range(400)) and set(first[:400]) == set(range(400))
    # reading several windows at a time cuts the same windows as reading them one by one
    for reads in (1, 2, 3):
        batches = list(minibatches(Shard(), cfg, 0, window=4, reads=reads))
        assert [g for b in batches for g in b["group"].to_pylist()] == first


class _Planted:
    """An object whose unpickling runs a command (what a planted checkpoint would hold)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))


def test_a_planted_checkpoint_is_refused_and_runs_nothing(tmp_path):
    import torch

    from paralib.train.loop import CheckpointError, read_state

    marker = tmp_path / "ran"
    torch.save({"model": {"w": torch.zeros(2)}, "epoch": 1, "x": _Planted(marker)},
               tmp_path / "train_state.pt")
    with pytest.raises(CheckpointError, match="refused to resume"):
        read_state(tmp_path / "train_state.pt")
    assert not marker.exists()
    torch.save({"model": {"w": torch.ones(2)}, "epoch": 2, "best": None,
                "history": [{"epoch": 1, "dev_pearson": 70.5, "collapsed": False}]},
               tmp_path / "good.pt")
    assert read_state(tmp_path / "good.pt")["history"][0]["dev_pearson"] == 70.5


def test_a_reused_name_with_another_config_is_refused(tmp_path):
    """``train.name`` reused with a different model: refused before training, naming the
    keys that differ; the same config records nothing new; ``fresh`` starts over; a folder
    paralib train did not make is never deleted."""
    from paralib.train.config import TrainConfig
    from paralib.train.identity import IDENTITY, RunIdentityError, check_run

    run = str(tmp_path / "runs" / "sp")
    first = TrainConfig(name="sp", model={"parts": [{"name": "sp", "dim": 300}]})
    check_run(first, run)
    check_run(first.model_copy(update={"epochs": 20}), run)   # more epochs: resumes
    other = TrainConfig(name="sp", model={"parts": [{"name": "sp", "dim": 64}]})
    with pytest.raises(RunIdentityError, match=r"model\.parts\.0\.dim: 300 -> 64.*--fresh"):
        check_run(other, run)
    (tmp_path / "runs" / "sp" / "checkpoint_1").mkdir()
    check_run(other, run, fresh=True)                         # starts over
    assert not (tmp_path / "runs" / "sp" / "checkpoint_1").exists()
    check_run(other, run)
    foreign = tmp_path / "runs" / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep")
    with pytest.raises(RunIdentityError, match=f"no {IDENTITY}"):
        check_run(other, str(foreign), fresh=True)
    assert (foreign / "notes.txt").read_text() == "keep"
    with pytest.raises(ValueError, match="not a folder name"):
        TrainConfig(name="..")
