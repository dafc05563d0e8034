"""The one training engine: a typed loop config that pickles, each worker's equal slice of the
pairs, the device a worker trains on (the GPU path, checked on CPU), and the in-process mode's
summary, which is the Ray mode's."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pytest
import torch

from paralib.config import Config
from paralib.io.context import StageContext
from paralib.models.model import ParaphraseModel, fit_tokenizers
from paralib.train.config import TrainConfig
from paralib.train.loop import LoopConfig, minibatches
from paralib.train.session import LocalSession, TableShard, shard_of, train_device

TEXTS = ["a man plays a guitar", "a woman is slicing an onion", "the cat sleeps on a mat",
         "two dogs run in the park", "a child reads a book"] * 40


def _loop_config(use_gpu: bool = False) -> LoopConfig:
    train = TrainConfig(model={"parts": [{"name": "sp", "vocab_size": 60, "dim": 8}]},
                        batch_size=4, dev="none")
    return LoopConfig(train=train, tokenizers=fit_tokenizers(train.model, TEXTS),
                      bilingual=False, languages=["en"], pairs=10, threads=1,
                      use_gpu=use_gpu, data=pa.table({"group": list(range(10))}))


def test_the_loop_config_is_typed_and_pickles():
    config = _loop_config()
    again = pickle.loads(pickle.dumps(config))
    assert isinstance(again, LoopConfig) and isinstance(again.train, TrainConfig)
    assert again.train == config.train and again.languages == ["en"]
    assert again.tokenizers[0].encode(["a cat"]) == config.tokenizers[0].encode(["a cat"])
    assert again.data.equals(config.data)
    with pytest.raises(AttributeError):
        config.pairs = 3   # frozen: every worker gets the same config


def test_every_worker_gets_an_equal_contiguous_slice():
    table = pa.table({"group": list(range(103))})
    for world in (1, 2, 4):
        parts = [shard_of(table, rank, world) for rank in range(world)]
        assert {p.num_rows for p in parts} == {103 // world}
        rows = [g for p in parts for g in p["group"].to_pylist()]
        assert rows == list(range(103 // world * world))


def test_a_table_shard_reads_as_a_ray_data_shard_does():
    """One worker's slice cut into the windows Ray Data's single shard gave: the same
    mini-batches, so a one-worker run trains on the same batches as before."""
    table = pa.table({"group": list(range(2_345))})

    class RayDataShard:
        def iter_batches(self, batch_size, batch_format):
            for start in range(0, table.num_rows, batch_size):
                yield table.slice(start, batch_size)

    cfg = TrainConfig(batch_size=100)
    ours = [b["group"].to_pylist() for b in minibatches(TableShard(table), cfg, 3, window=4)]
    theirs = [b["group"].to_pylist() for b in minibatches(RayDataShard(), cfg, 3, window=4)]
    assert ours == theirs and len(ours) == 24
    with pytest.raises(ValueError, match="pyarrow"):
        next(TableShard(table).iter_batches(10, batch_format="pandas"))


def test_the_device_is_the_cpu_or_the_workers_gpu(monkeypatch):
    assert train_device(False) == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="use_gpu is true but torch sees no GPU"):
        train_device(True)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert train_device(True) == torch.device("cuda", 0)
    assert train_device(True, local_rank=3) == torch.device("cuda", 1)  # DDP: GPU per rank


def test_the_session_moves_the_model_to_its_device(monkeypatch):
    """A worker's model (and so the bags its encoders read) lives on the session's device:
    here the ``meta`` device stands in for a GPU."""
    import paralib.train.session as session

    monkeypatch.setattr(session, "train_device", lambda use_gpu, rank=0: torch.device("meta"))
    config = _loop_config(use_gpu=True)
    local = LocalSession(config)
    model = ParaphraseModel(config.train.model, config.tokenizers)
    wrapped = local.wrap(model)
    assert {p.device.type for p in wrapped.parameters()} == {"meta"}
    assert local.device == torch.device("meta") and local.model is model


def test_scaling_asks_ray_train_for_a_gpu_per_worker():
    from paralib.train.run import scaling_config

    tcfg = TrainConfig(workers=4, cpus_per_worker=2)
    gpu = scaling_config(tcfg, use_gpu=True)
    assert gpu.use_gpu and gpu.num_workers == 4
    assert gpu.resources_per_worker == {"CPU": 2, "GPU": 1}
    cpu = scaling_config(tcfg, use_gpu=False)
    assert not cpu.use_gpu and cpu.resources_per_worker == {"CPU": 2}


def _cfg(tmp_path, **train) -> tuple[TrainConfig, StageContext]:
    cfg = Config.model_validate({"train": {
        "sources": [{"kind": "sts"}], "decontaminate": False, "epochs": 1,
        "model": {"parts": [{"name": "sp", "vocab_size": 800, "dim": 16}]},
        "output": str(tmp_path / "model"), "name": "engine", **train}})
    return cfg.train, StageContext.of(cfg)


def test_in_process_training_writes_the_one_summary(tmp_path):
    from paralib.train.run import train

    summary = train(*_cfg(tmp_path), engine="local")
    dumped = summary.dump()
    assert summary.engine == "local" and summary.trained and summary.workers == 1
    assert dumped["decontaminated"] == "off (train.decontaminate: false)"
    assert dumped["resumed_from_epoch"] == 0 and dumped["run"] is None
    assert list(summary.timings) == ["prepare", "train"]
    assert [h["epoch"] for h in summary.history] == [1] and summary.best_epoch == 1
    assert (tmp_path / "model" / "training.json").is_file()


def test_an_untrained_model_is_written_in_process_only(tmp_path):
    from paralib.train.run import train

    summary = train(*_cfg(tmp_path), engine="local", trained=False)
    assert not summary.trained and summary.history == [] and summary.best_epoch == 0
    assert (tmp_path / "model" / "config.json").is_file()
    assert not (tmp_path / "model" / "training.json").exists()
    with pytest.raises(ValueError, match="engine='local'"):
        train(*_cfg(tmp_path / "ray"), trained=False)


def test_the_in_process_engine_trains_where_ray_cannot_be_imported(tmp_path):
    """``engine: local`` (and so :func:`paralib.fit`) is Ray-free: in a fresh interpreter
    where every ``import ray`` fails, it trains a model that encodes."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import sys

        class NoRay:
            def find_spec(self, name, path=None, target=None):
                if name == "ray" or name.startswith("ray."):
                    raise ImportError("ray is not installed here")

        sys.meta_path.insert(0, NoRay())
        import paralib
        pairs = [(f"the {{w}} walks along river {{i}}", f"a {{w}} is walking by river {{i}}")
                 for i in range(20) for w in ("heron", "otter")]
        model = paralib.fit(pairs, {str(tmp_path / "model")!r}, epochs=1, dev="none",
                            batch_size=10, model={{"parts": [{{"dim": 8, "vocab_size": 100}}]}})
        print(model.encode("A dog.").shape, "ray" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["(8,)", "False"]
