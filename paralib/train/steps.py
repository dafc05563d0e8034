"""One mega-batch of training: mine negatives with the current model, then one optimiser step
per mini-batch (2018 §4 "mega-batching"; 2017 §4.2 loss and regularisers).

Kept free of Ray so that it runs the same in a Ray Train worker, in a test, or in a notebook.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import torch
from torch import nn

from paralib.losses import LOSSES, PairLoss
from paralib.models.bags import Bags
from paralib.models.model import ParaphraseModel
from paralib.train.batches import PairBatch, pair_batch
from paralib.train.config import TrainConfig
from paralib.train.memory import keep_freed_memory
from paralib.train.mining import negatives
from paralib.train.regularise import penalty
from paralib.train.schedule import megabatches

# (embeddings1, embeddings2, bags1, bags2, groups) of this worker -> the same, for all
# workers, and this worker's row offset in them
Gather = Callable[[torch.Tensor, torch.Tensor, list[Bags], list[Bags], torch.Tensor | None],
                  tuple[torch.Tensor, torch.Tensor, list[Bags], list[Bags], torch.Tensor | None,
                        int]]


class Optimizers:
    """Several optimisers stepped as one (sparse embedding tables and dense parameters)."""

    def __init__(self, optimizers: list[torch.optim.Optimizer]):
        self.optimizers = optimizers

    def zero_grad(self, set_to_none: bool = True) -> None:
        for o in self.optimizers:
            o.zero_grad(set_to_none=set_to_none)

    def step(self) -> None:
        for o in self.optimizers:
            o.step()

    def state_dict(self) -> dict:
        return {str(i): o.state_dict() for i, o in enumerate(self.optimizers)}

    def load_state_dict(self, state: dict) -> None:
        """The state of :meth:`state_dict`, or one optimiser's own state (checkpoints made
        before sparse training, of one dense Adam)."""
        if "param_groups" in state and len(self.optimizers) == 1:
            self.optimizers[0].load_state_dict(state)
            return
        if set(state) != {str(i) for i in range(len(self.optimizers))}:
            raise ValueError("the checkpoint's optimiser state was made with another "
                             "train.sparse setting or model; start the run fresh")
        for i, o in enumerate(self.optimizers):
            o.load_state_dict(state[str(i)])


def use_sparse(cfg: TrainConfig, nccl: bool = False) -> bool:
    """Whether training uses sparse embedding gradients: ``train.sparse``, unless the
    ``lambda_w`` penalty makes the table's gradient dense or DDP all-reduces over NCCL (which
    has no sparse all-reduce)."""
    return cfg.sparse and not cfg.regularisation.lambda_w and not nccl


def build_optimizer(model: ParaphraseModel, lr: float, sparse: bool = False) -> Optimizers:
    """Adam at ``lr`` (2017 §5.2, 2018 §5.2: 0.001).

    With ``sparse`` the averaging encoders' embedding tables get sparse gradients (only the
    rows of a batch's tokens) and ``torch.optim.SparseAdam`` (Adam's moments updated for
    those rows only, "lazy" Adam), so a step's cost follows the batch, not the vocabulary;
    this sets ``sparse`` on those encoders. Every other parameter gets PyTorch's fused Adam
    (the same update as its per-tensor loop to float32 rounding; ``benchmarks/optimizer.py``)."""
    tables = []
    for enc in model.parts:
        enc.sparse = sparse and enc.name == "avg"
        if enc.sparse:
            tables.append(enc.embedding.weight)
    table_ids = {id(t) for t in tables}
    dense = [p for p in model.parameters() if id(p) not in table_ids]
    opts: list[torch.optim.Optimizer] = []
    if dense:
        opts.append(torch.optim.Adam(dense, lr=lr, fused=True))
    if tables:
        opts.append(torch.optim.SparseAdam(tables, lr=lr))
    return Optimizers(opts)


@dataclass
class StepState:
    """Counters carried across mega-batches (and saved in checkpoints)."""

    step: int = 0
    megabatch: int = 0
    skipped_pairs: int = 0
    losses: list[float] = field(default_factory=list)


class MegaBatchTrainer:
    """Trains ``model`` (or its DDP wrapper ``wrapped``) on mega-batches of pairs."""

    def __init__(self, cfg: TrainConfig, model: ParaphraseModel, optimizer: Optimizers,
                 wrapped: nn.Module | None = None, bilingual: bool = False,
                 gather: Gather | None = None, seed: int = 0):
        self.cfg, self.model, self.optimizer = cfg, model, optimizer
        self.wrapped = wrapped if wrapped is not None else model
        self.loss: PairLoss = (LOSSES["margin"](margin=cfg.margin, symmetric=cfg.symmetric)
                               if cfg.loss == "margin"
                               else LOSSES["contrastive"](margin=cfg.contrastive_margin))
        self.bilingual, self.gather = bilingual, gather
        self.rng = np.random.default_rng(seed)
        self.generator = torch.Generator().manual_seed(seed)
        self.initial = ([w.detach().clone() for w in model.word_embeddings()]
                        if cfg.regularisation.lambda_w else None)
        self.state = StepState()
        keep_freed_memory()   # the table's gradient is reused, not faulted in, every step

    def mine(self, mega: PairBatch) -> tuple[list[Bags], list[Bags]]:
        """The negatives of every pair of the mega-batch, as bags aligned with its rows; with
        groups never a sentence of a pair of the anchor's group."""
        mode = self.cfg.negatives
        if mode == "mix":  # alternate by mega-batch
            mode = "max" if self.state.megabatch % 2 == 0 else "rand"
        device = next(self.model.parameters()).device
        if mode in ("max", "semihard") or self.gather is not None:
            was = self.model.training
            self.model.eval()
            with torch.no_grad():
                e1, e2 = self.model(mega.side1), self.model(mega.side2)
            self.model.train(was)
        else:  # random negatives need no vectors, only the pool size
            e1 = e2 = torch.empty(len(mega), 0, device=device)
        g = None if mega.groups is None else torch.from_numpy(
            np.array(mega.groups, dtype=np.int64))
        p1, p2, b1, b2, pg, offset = e1, e2, mega.side1, mega.side2, g, 0
        if self.gather is not None:
            p1, p2, b1, b2, pg, offset = self.gather(e1, e2, mega.side1, mega.side2, g)
        i1, i2 = negatives(e1, e2, mode, self.bilingual, offset, p1, p2, self.generator,
                           groups=pg)
        i1, i2 = i1.cpu().numpy(), i2.cpu().numpy()
        if self.bilingual:
            return [b.take(i1) for b in b2], [b.take(i2) for b in b1]
        pool = [Bags.concat([x, y]) for x, y in zip(b1, b2, strict=True)]
        return [b.take(i1) for b in pool], [b.take(i2) for b in pool]

    def _batch_loss(self, batch: PairBatch, n1: list[Bags] | None, n2: list[Bags] | None
                    ) -> torch.Tensor:
        device = next(self.model.parameters()).device
        reg = self.cfg.regularisation
        streams = []
        for k in range(len(batch.side1)):
            parts = [batch.side1[k], batch.side2[k]]
            if n1 is not None and n2 is not None:
                parts += [n1[k], n2[k]]
            bags = Bags.concat(parts)
            if reg.word_dropout or reg.scramble_rate:
                bags = bags.noised(reg.word_dropout, reg.scramble_rate, self.rng)
            streams.append(bags)
        vecs = self.wrapped(streams)
        # one unbind instead of slices: its backward stacks the parts' gradients in one
        # tensor, where every slice's backward fills a zero tensor of all rows and adds
        parts = vecs.unflatten(0, (len(streams[0]) // len(batch), len(batch))).unbind(0)
        if self.loss.needs_negatives:
            loss = self.loss(*parts)
        else:
            if batch.labels is None:
                raise ValueError("the contrastive loss needs labelled pairs (a 'label' column)")
            label = torch.from_numpy(np.array(batch.labels, dtype=np.int64)).to(device)
            loss = self.loss(*parts, label)
        extra = penalty(self.model, self.initial, self.cfg.regularisation)
        return loss if extra is None else loss + extra

    def train_megabatch(self, group: Sequence[pd.DataFrame | pa.Table | PairBatch]) -> float:
        """Mine negatives over the whole group, then step once per mini-batch; mean loss.

        Mini-batches are Ray Data Arrow batches with id columns, DataFrames of texts
        (tokenised here) or :class:`PairBatch` es. A group of fewer than two pairs has no
        negative to offer (the end of a shard): its pairs are counted in
        ``state.skipped_pairs`` and the mean loss is NaN."""
        batches = [b if isinstance(b, PairBatch)
                   else pair_batch(b, self.model, self.cfg.group_negatives)
                   for b in group if len(b)]
        if sum(map(len, batches)) < 2:
            self.state.skipped_pairs += sum(map(len, batches))
            return float("nan")
        mega = PairBatch.concat(batches)
        n1 = n2 = None
        if self.loss.needs_negatives:
            n1, n2 = self.mine(mega)
        losses, start = [], 0
        for batch in batches:
            stop = start + len(batch)
            b1 = None if n1 is None else [b.slice(start, stop) for b in n1]
            b2 = None if n2 is None else [b.slice(start, stop) for b in n2]
            start = stop
            self.optimizer.zero_grad(set_to_none=True)
            loss = self._batch_loss(batch, b1, b2)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss became {loss.item()} at step {self.state.step}")
            loss.backward()
            self.optimizer.step()
            losses.append(float(loss.detach()))
            self.state.step += 1
        self.state.megabatch += 1
        self.state.losses += losses
        return float(np.mean(losses))

    def train_epoch(self, batches) -> tuple[int, list[float]]:
        """One pass over ``batches`` (mini-batches, as :meth:`train_megabatch` takes them) in
        scheduled mega-batches; returns the pairs trained on and the mean loss of every
        mega-batch."""
        pairs, losses = 0, []
        for group in megabatches(batches, self.cfg.megabatch, self.state.step):
            loss = self.train_megabatch(group)
            if not np.isnan(loss):
                losses.append(loss)
                pairs += sum(len(b) for b in group)
        return pairs, losses
