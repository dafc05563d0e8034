"""The one training loop (:func:`worker`) of both engines: Ray Train's workers (DDP over
workers, each reading its slice of the pairs from the object store, a checkpoint per epoch,
resume from the latest) and the in-process engine (one worker, no Ray). What differs between
them is a :class:`Session`: rank and world, device, where the batches come from and where an
epoch's result goes (2018 §5.2 setup: Adam 0.001, batch 100)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import torch
from torch import nn

from paralib.errors import InputError
from paralib.models.bags import Bags
from paralib.models.model import ParaphraseModel
from paralib.models.tokenizers import Tokenizer
from paralib.train.config import TrainConfig
from paralib.train.dev import dev_label, load_dev, score_dev
from paralib.train.epoch import collapse_warning, epoch_record, improves
from paralib.train.steps import MegaBatchTrainer, Optimizers, StepState, build_optimizer, use_sparse

STATE = "train_state.pt"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoopConfig:
    """What every worker of a run gets (Ray Train's ``train_loop_config``; it pickles): the
    ``train`` section, the fitted tokenisers, whether negatives come from the other language,
    the pairs' languages and count, torch threads per worker, whether to train on a GPU, the
    pairs' Arrow table (a Ray object ref under Ray Train, the table itself in process) and
    the driver's progress tally (an actor handle, or ``None``)."""

    train: TrainConfig
    tokenizers: list[Tokenizer]
    bilingual: bool
    languages: list[str]
    pairs: int
    threads: int = 1
    use_gpu: bool = False
    data: Any = None
    tally: Any = None


@dataclass(frozen=True)
class Epoch:
    """A finished epoch, as a worker reports it: its history record, its dev score (``None``
    without a dev set), a collapse warning, the best dev score so far, every epoch's record
    and the epoch this call of the loop resumed after."""

    metrics: dict[str, Any]
    score: float | None
    warning: str | None
    best: float | None
    history: list[dict[str, Any]]
    resumed_from: int


class Session(Protocol):
    """Where a worker runs: :class:`paralib.train.session.RaySession` (a Ray Train worker) or
    :class:`paralib.train.session.LocalSession` (this process)."""

    rank: int
    world: int
    device: torch.device

    def wrap(self, model: ParaphraseModel) -> nn.Module:
        """The model on this worker's device, wrapped for data parallelism if any."""

    def resume(self) -> dict | None:
        """The training state to resume from (:func:`read_state`), or ``None``."""

    def started(self, epoch: int) -> None:
        """Training starts after ``epoch`` epochs."""

    def batches(self, epoch: int) -> Iterable[pa.Table]:
        """This worker's mini-batches of epoch ``epoch`` (from 0)."""

    def report(self, epoch: Epoch, model: ParaphraseModel, optimizer: Optimizers,
               state: StepState) -> None:
        """A finished epoch: keep what the run keeps of it."""


def gather_all(e1: torch.Tensor, e2: torch.Tensor, b1: list[Bags], b2: list[Bags],
               groups: torch.Tensor | None = None):
    """Mega-batch vectors, token bags and groups of every worker (2018 mega-batching across
    workers)."""
    import torch.distributed as dist

    parts: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(parts, (e1.cpu(), e2.cpu(), b1, b2,
                                   None if groups is None else groups.cpu()))
    rank = dist.get_rank()
    offset = sum(len(p[2][0]) for p in parts[:rank])
    p1 = torch.cat([p[0] for p in parts]).to(e1.device)
    p2 = torch.cat([p[1] for p in parts]).to(e1.device)
    g = None if any(p[4] is None for p in parts) else torch.cat([p[4] for p in parts])
    streams = range(len(b1))
    return (p1, p2, [Bags.concat([p[2][k] for p in parts]) for k in streams],
            [Bags.concat([p[3][k] for p in parts]) for k in streams], g, offset)


class CheckpointError(InputError, ValueError):
    """A training checkpoint that cannot be resumed from."""


def read_state(path: Path) -> dict:
    """A checkpoint's training state, loaded as weights only: tensors and plain types, never
    an arbitrary pickled object (a planted checkpoint cannot run code on resume)."""
    import pickle

    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        raise CheckpointError(
            f"{path}: refused to resume from this checkpoint: it holds objects other than "
            f"tensors and plain values ({str(e).splitlines()[0]}); start fresh with a new "
            "train.name") from e


def minibatches(shard, cfg: TrainConfig, epoch: int, window: int = 20, reads: int = 25
                ) -> Iterator[pa.Table]:
    """This worker's mini-batches for one epoch: windows of ``window`` mini-batches, each
    shuffled with a seeded permutation (the pairs were shuffled once before training) and cut
    into ``batch_size`` rows. One Arrow ``take`` per window instead of Ray Data's row-level
    local shuffle buffer, which cost about half of the training throughput of the averaging
    encoders.

    The shard is read ``reads`` windows at a time (one Ray Data batch of 50,000 rows at the
    defaults instead of 25 of 2,000) and cut into the same windows here, so the order is the
    one that reading window by window gives, with a 25th of Ray Data's per-batch work."""
    rng = np.random.default_rng(cfg.seed + epoch)
    size = window * cfg.batch_size
    for read in shard.iter_batches(batch_size=reads * size, batch_format="pyarrow"):
        for at in range(0, read.num_rows, size):
            block = read.slice(at, size)
            block = block.take(rng.permutation(block.num_rows))
            for start in range(0, block.num_rows, cfg.batch_size):
                yield block.slice(start, cfg.batch_size)


def card(cfg: TrainConfig, info: dict) -> str:
    """The model card written into every checkpoint's model folder."""
    parts = ", ".join(f"{p.encoder}({p.tokens}, dim {p.dim})" for p in cfg.model.parts)
    lines = [f"# paralib encoder: {parts}", "",
             f"- combine: {cfg.model.combine}; languages: {', '.join(info['languages'])}",
             f"- trained with `paralib train`: loss {cfg.loss} (margin {cfg.margin}), "
             f"negatives {cfg.negatives}, mega-batch {cfg.megabatch.size} "
             f"(anneal every {cfg.megabatch.anneal_every}), batch {cfg.batch_size}, "
             f"Adam {cfg.lr}, {info['workers']} worker(s)",
             f"- training pairs: {info['pairs']} from "
             f"{', '.join(s.kind for s in cfg.sources)}",
             "- decontaminated: pairs sharing a side with an evaluation set of `paralib "
             "evaluate` were removed before training (counts in `training.json`)"
             if cfg.decontaminate else
             "- **not decontaminated** (`train.decontaminate: false`): the training pairs may "
             "hold sentences of the evaluation sets, so its scores on them may be inflated",
             f"- epoch {info['epoch']} of {cfg.epochs}; dev ({cfg.dev}) {dev_label(cfg.dev)}: "
             f"{info['dev']:.2f}" if info.get("dev") is not None else
             f"- epoch {info['epoch']} of {cfg.epochs}; no dev set",
             "", "Load with `paralib.load(path).encode(sentences)`."]
    return "\n".join(lines) + "\n"


def epochs(cfg: TrainConfig, trainer: MegaBatchTrainer, model: ParaphraseModel, dev,
           batches: Callable[[int], Iterable], start: int = 0, world: int = 1,
           warn: bool = True) -> Iterator[tuple[dict, float | None, str | None]]:
    """The one epoch loop of both trainers (Ray Train's workers and the in-process ``local``
    engine): epochs ``start + 1`` to ``cfg.epochs`` over ``batches(epoch)`` in mega-batches
    (2018 §4), each scored on dev (2018 §5.2). Yields each epoch's history record, its dev
    score (``None`` without a dev set) and a collapse warning, logged when ``warn``."""
    for epoch in range(start, cfg.epochs):
        t0 = time.perf_counter()
        pairs, losses = trainer.train_epoch(batches(epoch))
        record = epoch_record(epoch + 1, losses, pairs, time.perf_counter() - t0,
                              trainer.state, score_dev(model, dev), world)
        warning = collapse_warning(record, cfg)
        if warning and warn:
            log.warning("%s: %s", cfg.name, warning)
        yield record, None if dev is None else record["dev_score"], warning


def worker(config: LoopConfig, session: Session) -> None:
    """The one training loop of both engines, for one worker: the model on
    ``session.device``, resumed from the session's checkpoint, trained epoch by epoch on
    ``session.batches`` (:func:`epochs`), every epoch reported to the session (which keeps
    the best epoch: a checkpoint under Ray Train, the weights in memory in process)."""
    cfg = config.train
    rank, world = session.rank, session.world
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(config.threads)
    model = ParaphraseModel(cfg.model, config.tokenizers)
    model.initialise()
    optimizer = build_optimizer(model, cfg.lr, use_sparse(
        cfg, nccl=world > 1 and session.device.type == "cuda"))
    wrapped = session.wrap(model)
    gather = gather_all if cfg.megabatch.across_workers and world > 1 else None
    trainer = MegaBatchTrainer(cfg, model, optimizer, wrapped, config.bilingual, gather,
                               seed=cfg.seed + rank)
    start, best, history = 0, None, []
    saved = session.resume()
    if saved is not None:
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        trainer.state.step, trainer.state.megabatch = saved["step"], saved["megabatch"]
        start, best, history = saved["epoch"], saved["best"], saved["history"]
    dev = load_dev(cfg.dev)
    session.started(start)
    for metrics, score, warning in epochs(cfg, trainer, model, dev, session.batches, start,
                                          world, warn=rank == 0):
        history.append(metrics)
        if improves(score, best):
            best = score
        session.report(Epoch(metrics, score, warning, best, history, start), model,
                       optimizer, trainer.state)

