"""One mega-batch of training: mine negatives with the current model, then one optimiser step
per mini-batch (2018 §4 "mega-batching"; 2017 §4.2 loss and regularisers).

Kept free of Ray so that it runs the same in a Ray Train worker, in a test, or in a notebook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import torch
from torch import nn

from paralib.losses import LOSSES, PairLoss
from paralib.models.model import IdsTransform, ParaphraseModel
from paralib.train.config import TrainConfig
from paralib.train.mining import negatives
from paralib.train.regularise import make_transform, penalty
from paralib.train.schedule import megabatches

# (embeddings1, embeddings2, texts1, texts2, groups) of this worker -> the same, for all
# workers, and this worker's row offset in them
Gather = Callable[[torch.Tensor, torch.Tensor, list[str], list[str], torch.Tensor | None],
                  tuple[torch.Tensor, torch.Tensor, list[str], list[str], torch.Tensor | None,
                        int]]


def build_loss(cfg: TrainConfig) -> PairLoss:
    """The configured objective."""
    if cfg.loss == "margin":
        return LOSSES["margin"](margin=cfg.margin, symmetric=cfg.symmetric)
    return LOSSES["contrastive"](margin=cfg.contrastive_margin)


def build_optimizer(model: nn.Module, lr: float) -> torch.optim.Adam:
    """Adam at ``lr`` (2017 §5.2, 2018 §5.2: 0.001) with PyTorch's fused kernel: the same
    update as its per-tensor loop (equal to float32 rounding). A WORD step, where the loop's
    update of the embedding table took half the time, runs 3x faster here; SP 1.65x, TRIGRAM
    1.1x, the recurrent encoders (bound by their backward pass) no faster
    (``benchmarks/optimizer.py``). A checkpoint keeps the setting it was made with."""
    return torch.optim.Adam(model.parameters(), lr=lr, fused=True)


@dataclass
class StepState:
    """Counters carried across mega-batches (and saved in checkpoints)."""

    step: int = 0
    megabatch: int = 0
    skipped_pairs: int = 0
    losses: list[float] = field(default_factory=list)


class MegaBatchTrainer:
    """Trains ``model`` (or its DDP wrapper ``wrapped``) on mega-batches of pairs."""

    def __init__(self, cfg: TrainConfig, model: ParaphraseModel, optimizer: torch.optim.Optimizer,
                 wrapped: nn.Module | None = None, bilingual: bool = False,
                 gather: Gather | None = None, seed: int = 0):
        self.cfg, self.model, self.optimizer = cfg, model, optimizer
        self.wrapped = wrapped if wrapped is not None else model
        self.loss = build_loss(cfg)
        self.bilingual, self.gather = bilingual, gather
        self.rng = np.random.default_rng(seed)
        self.generator = torch.Generator().manual_seed(seed)
        self.transform: IdsTransform | None = make_transform(cfg.regularisation, self.rng)
        self.initial = ([w.detach().clone() for w in model.word_embeddings()]
                        if cfg.regularisation.lambda_w else None)
        self.state = StepState()

    def _mode(self) -> str:
        if self.cfg.negatives == "mix":
            return "max" if self.state.megabatch % 2 == 0 else "rand"
        return self.cfg.negatives

    def mine(self, s1: list[str], s2: list[str], groups: np.ndarray | None = None
             ) -> tuple[list[str], list[str]]:
        """Negative sentences for every pair of the mega-batch; with ``groups`` (one id per
        pair) never one of a pair of the anchor's group."""
        mode = self._mode()
        device = next(self.model.parameters()).device
        if mode == "max" or self.gather is not None:
            was = self.model.training
            self.model.eval()
            with torch.no_grad():
                e1, e2 = self.model.embed(s1), self.model.embed(s2)
            self.model.train(was)
        else:  # random negatives need no vectors, only the pool size
            e1 = e2 = torch.empty(len(s1), 0, device=device)
        g = None if groups is None else torch.from_numpy(np.array(groups, dtype=np.int64))
        p1, p2, t1, t2, pg, offset = e1, e2, s1, s2, g, 0
        if self.gather is not None:
            p1, p2, t1, t2, pg, offset = self.gather(e1, e2, s1, s2, g)
        i1, i2 = negatives(e1, e2, mode, self.bilingual, offset, p1, p2, self.generator,
                           groups=pg)
        if self.bilingual:
            return [t2[i] for i in i1.tolist()], [t1[i] for i in i2.tolist()]
        pool = t1 + t2
        return [pool[i] for i in i1.tolist()], [pool[i] for i in i2.tolist()]

    def _batch_loss(self, batch: pd.DataFrame, n1: list[str] | None, n2: list[str] | None
                    ) -> torch.Tensor:
        s1, s2 = batch["s1"].tolist(), batch["s2"].tolist()
        texts = s1 + s2 + (n1 + n2 if n1 is not None else [])
        device = next(self.model.parameters()).device
        vecs = self.wrapped(self.model.batch(self.model.token_ids(texts), self.transform, device))
        n = len(s1)
        if self.loss.needs_negatives:
            loss = self.loss(vecs[:n], vecs[n:2 * n], vecs[2 * n:3 * n], vecs[3 * n:])
        else:
            label = torch.tensor(batch["label"].to_numpy(copy=True), device=device)
            loss = self.loss(vecs[:n], vecs[n:], label)
        extra = penalty(self.model, self.initial, self.cfg.regularisation)
        return loss if extra is None else loss + extra

    def train_megabatch(self, group: list[pd.DataFrame]) -> float:
        """Mine negatives over the whole group, then step once per mini-batch; mean loss.

        A group of fewer than two pairs has no negative to offer (the end of a shard): its
        pairs are counted in ``state.skipped_pairs`` and the mean loss is NaN."""
        group = [b for b in group if len(b)]
        if sum(map(len, group)) < 2:
            self.state.skipped_pairs += sum(map(len, group))
            return float("nan")
        n1 = n2 = None
        if self.loss.needs_negatives:
            allp = pd.concat(group, ignore_index=True)
            groups = (allp["group"].to_numpy() if self.cfg.group_negatives
                      and "group" in allp.columns else None)
            n1, n2 = self.mine(allp["s1"].tolist(), allp["s2"].tolist(), groups)
        losses, start = [], 0
        for batch in group:
            k = len(batch)
            b1 = n1[start:start + k] if n1 is not None else None
            b2 = n2[start:start + k] if n2 is not None else None
            start += k
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
        """One pass over ``batches`` (mini-batch DataFrames) in scheduled mega-batches;
        returns the pairs trained on and the mean loss of every mega-batch."""
        pairs, losses = 0, []
        for group in megabatches(batches, self.cfg.megabatch, self.state.step):
            loss = self.train_megabatch(group)
            if not np.isnan(loss):
                losses.append(loss)
                pairs += sum(len(b) for b in group)
        return pairs, losses
