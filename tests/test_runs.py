"""The runner's record of a run's training time, resumed runs included."""

from __future__ import annotations

import pytest

from paralib.runs import train_seconds

HISTORY = [{"epoch": 1, "seconds": 100.0}, {"epoch": 2, "seconds": 120.0},
           {"epoch": 3, "seconds": 130.0}]


def test_a_run_made_in_one_call_counts_its_wall_time():
    assert train_seconds(400.0, {"history": HISTORY, "resumed_from_epoch": 0}) == 400.0
    assert train_seconds(400.0, {"history": HISTORY}) == 400.0  # the local trainer's summary


def test_a_resumed_run_adds_the_epochs_made_before_the_resume():
    # Ray Train resumed after epoch 2: this call trained epoch 3 only
    assert train_seconds(150.0, {"history": HISTORY, "resumed_from_epoch": 2}) == \
        pytest.approx(150.0 + 100.0 + 120.0)


def _config(tmp_path):
    from paralib.config import Config

    return Config.model_validate({"train": {
        "storage_path": str(tmp_path / "ray-train"), "name": "exp-run",
        "output": str(tmp_path / "run" / "model")}})


def test_another_configs_checkpoints_are_deleted_only_when_paralib_train_made_them(
        tmp_path, monkeypatch):
    """A run folder kept for another config is started over, but only a folder with
    ``paralib train``'s marker is deleted; a folder paralib did not make stops the run."""
    from paralib.contracts import TrainingSummary
    from paralib.runs import KEY_FILE, train_model
    from paralib.train import identity, run
    from paralib.train.identity import RunIdentityError

    cfg = _config(tmp_path)
    (tmp_path / "run").mkdir()
    run_dir = tmp_path / "ray-train" / "exp-run"
    run_dir.mkdir(parents=True)
    (run_dir / "someone-elses.txt").write_text("keep me")
    monkeypatch.setattr(run, "train", lambda section, ctx, **kw: TrainingSummary())
    with pytest.raises(RunIdentityError, match="was not made by paralib train"):
        train_model(cfg, train_key="key-b")
    assert (run_dir / "someone-elses.txt").read_text() == "keep me"

    (run_dir / "someone-elses.txt").unlink()
    run_dir.rmdir()
    identity.check_run(cfg.train, str(run_dir))  # as paralib train marks its run folder
    (run_dir / "checkpoint_000001").mkdir()
    (tmp_path / "run" / KEY_FILE).write_text("key-a")
    train_model(cfg, train_key="key-b")
    assert not (run_dir / "checkpoint_000001").exists()
