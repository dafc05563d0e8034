"""The two places the training loop (:func:`paralib.train.loop.worker`) runs: a Ray Train
worker (:class:`RaySession`) and this process (:class:`LocalSession`, the Ray-free mode of
the same engine).

Under Ray Train the driver puts the pairs' Arrow table (token ids, groups, labels) into the
object store once; each worker maps it (no copy on its node) and trains on its own contiguous,
equal slice of it (:func:`shard_of`), so no Ray Data pipeline starts and no batch passes
through one. With one worker the slice is the whole table, read in the order Ray Data's
single shard gave, so the batches (and the model) are the same as with a Ray Data shard.
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa
import torch
from torch import nn

from paralib.models.model import ParaphraseModel
from paralib.models.pretrained import save_model
from paralib.train.epoch import improves
from paralib.train.loop import (
    STATE,
    Epoch,
    LoopConfig,
    card,
    minibatches,
    read_state,
    worker,
)
from paralib.train.progress import counted
from paralib.train.steps import Optimizers, StepState


def train_device(use_gpu: bool, local_rank: int = 0) -> torch.device:
    """The device a worker trains on: GPU ``local_rank`` of its node when ``use_gpu`` (an
    error when this machine has none), else the CPU."""
    if not use_gpu:
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise RuntimeError("train.use_gpu is true but torch sees no GPU on this machine "
                           "(torch.cuda.is_available() is False); set train.use_gpu: false")
    return torch.device("cuda", local_rank % torch.cuda.device_count())


def shard_of(table: pa.Table, rank: int, world: int) -> pa.Table:
    """Worker ``rank``'s slice of ``table``: contiguous, and the same size for every worker
    (the last ``len % world`` rows are left out, as Ray Data's equal split leaves them), so
    that every DDP worker takes the same number of steps."""
    size = table.num_rows // world
    return table.slice(rank * size, size)


class TableShard:
    """An Arrow table read as a Ray Data shard is (:func:`paralib.train.loop.minibatches`):
    ``iter_batches`` of ``batch_size`` rows, zero-copy slices."""

    def __init__(self, table: pa.Table):
        self.table = table

    def iter_batches(self, batch_size: int, batch_format: str = "pyarrow") -> Iterator[pa.Table]:
        if batch_format != "pyarrow":
            raise ValueError(f"batch_format {batch_format!r}: a table shard gives pyarrow")
        for start in range(0, self.table.num_rows, batch_size):
            yield self.table.slice(start, batch_size)


class RaySession:
    """A Ray Train worker: its rank, device and slice of the pairs; every epoch a checkpoint
    (rank 0 writes it) and its metrics to ``ray.train.report``; progress to the tally."""

    def __init__(self, config: LoopConfig):
        import ray
        import ray.train

        ctx = ray.train.get_context()
        self.config = config
        self.rank, self.world = ctx.get_world_rank(), ctx.get_world_size()
        self.device = train_device(config.use_gpu, ctx.get_local_rank())
        table = config.data if isinstance(config.data, pa.Table) else ray.get(config.data)
        self.shard = TableShard(shard_of(table, self.rank, self.world))

    def wrap(self, model: ParaphraseModel) -> nn.Module:
        import ray.train.torch

        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)
        return ray.train.torch.prepare_model(model, move_to_device=self.device)

    def resume(self) -> dict | None:
        import ray.train

        checkpoint = ray.train.get_checkpoint()
        if not checkpoint:
            return None
        with checkpoint.as_directory() as d:
            return read_state(Path(d) / STATE)

    def started(self, epoch: int) -> None:
        tally = self.config.tally
        if tally is not None and self.rank == 0 and epoch:
            tally.add.remote(epoch * self.config.pairs)

    def batches(self, epoch: int) -> Iterable[pa.Table]:
        return counted(minibatches(self.shard, self.config.train, epoch), self.config.tally)

    def report(self, epoch: Epoch, model: ParaphraseModel, optimizer: Optimizers,
               state: StepState) -> None:
        import ray.train

        tally = self.config.tally
        if tally is not None and self.rank == 0:
            tally.end_epoch.remote(epoch.metrics, epoch.warning)
        with tempfile.TemporaryDirectory() as tmp:
            ckpt = None
            if self.rank == 0:  # the training state to resume from and the model folder
                n, config = epoch.metrics["epoch"], self.config
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "epoch": n, "step": state.step, "megabatch": state.megabatch,
                            "best": epoch.best, "history": epoch.history}, Path(tmp) / STATE)
                info = {"languages": config.languages, "workers": self.world,
                        "pairs": config.pairs, "epoch": n, "dev": epoch.score,
                        "history": epoch.history, "resumed_from": epoch.resumed_from}
                save_model(model, Path(tmp) / "model", tuple(config.languages), info,
                           card(config.train, info))
                ckpt = ray.train.Checkpoint.from_directory(tmp)
            ray.train.report(epoch.metrics, checkpoint=ckpt)


class LocalSession:
    """This process, one worker, no Ray: the pairs reshuffled every epoch (the whole table
    in a new seeded order), the best epoch's weights kept in memory (the last epoch's
    without a dev set)."""

    rank, world = 0, 1

    def __init__(self, config: LoopConfig):
        self.config = config
        self.table: pa.Table = config.data
        self.device = train_device(config.use_gpu)
        self.best_epoch, self.best_score = 0, None
        self.best_state: dict | None = None
        self.history: list[dict] = []
        self.model: ParaphraseModel | None = None

    def wrap(self, model: ParaphraseModel) -> nn.Module:
        self.model = model.to(self.device)
        return self.model

    def resume(self) -> dict | None:
        return None

    def started(self, epoch: int) -> None:
        """Nothing to tell: no progress bar follows an in-process run."""

    def batches(self, epoch: int) -> list[pa.Table]:
        cfg = self.config.train
        # the row order pandas gives a frame of these rows, without copying one
        order = pd.RangeIndex(self.table.num_rows).to_series().sample(
            frac=1.0, random_state=cfg.seed + epoch).to_numpy()
        return [self.table.take(order[i:i + cfg.batch_size])
                for i in range(0, len(order), cfg.batch_size)]

    def report(self, epoch: Epoch, model: ParaphraseModel, optimizer: Optimizers,
               state: StepState) -> None:
        self.history = epoch.history
        if epoch.score is None or self.best_state is None or improves(epoch.score, self.best_score):
            self.best_epoch, self.best_score = epoch.metrics["epoch"], epoch.score
            self.best_state = copy.deepcopy(model.state_dict())


def train_loop(config: LoopConfig) -> None:
    """``train_loop_per_worker`` of the :class:`ray.train.torch.TorchTrainer`."""
    worker(config, RaySession(config))
