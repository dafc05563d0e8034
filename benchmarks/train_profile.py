"""Where a training step of the averaging encoders spends its time: the recipe of
``benchmarks/train_speed.py`` (SP 20,000 pieces, dim 300, word dropout 0.3, margin loss with
group-aware hardest negatives from the other side, batch 100, Adam 0.001) at a fixed mega-batch
size (``--m``, default 20: the end of the annealing, where mining costs most), split into the
phases of :class:`paralib.train.steps.MegaBatchTrainer`.

The real trainer runs; its phases are timed by wrapping them in this process: mining (the
model's vectors of the mega-batch, then :func:`paralib.train.mining.negatives`, then the
negatives' bags), the batch loss (word dropout, the forward ``embedding_bag`` and the margin
loss), ``backward`` (the loss's graph and the dense table gradient), the optimiser step, and
the rest (batch building, ``zero_grad``, the loop). Times are CPU seconds of this process
(``time.process_time``) with one torch thread, so that other jobs on shared cores change them
less than wall time; a phase's share is what matters. ``--sparse`` profiles ``train.sparse``
(SparseAdam) too.

    python -m benchmarks train_profile [--data output/bitext-all] [--pairs 100000]
        [--steps 600] [--m 20] [--sparse]

Writes ``benchmarks/results/train_profile.json``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from benchmarks.common import sample_pairs, table, write_json
from benchmarks.train_speed import train_config

ROOT = Path(__file__).resolve().parent.parent
PHASES = ["mine: vectors", "mine: negatives", "mine: bags", "batch loss (dropout, forward, "
          "loss)", "backward", "optimiser step", "rest"]


class Clock:
    """CPU seconds per phase, and the wrapper that charges a call to one."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent[name] = self.spent.get(name, 0.0) + time.process_time() - t0
        return timed


def profile(prepared, tree: dict, steps: int, m: int, sparse: bool) -> dict:
    """``steps`` mini-batches (after one mega-batch of warm-up) at mega-batch size ``m``."""
    import numpy as np
    import torch

    import paralib.train.steps as steps_module
    from paralib.config import Config
    from paralib.models import ParaphraseModel
    from paralib.train.batches import PairBatch, pair_batch
    from paralib.train.steps import MegaBatchTrainer, build_optimizer

    torch.set_num_threads(1)
    torch.manual_seed(1)
    tree = {"train": {**tree["train"], "megabatch": {"size": m, "start": m},
                      "sparse": sparse}}
    cfg = Config.model_validate(tree)
    model = ParaphraseModel(cfg.train.model, prepared.tokenizers)
    model.initialise()
    optimizer = build_optimizer(model, cfg.train.lr, sparse)
    trainer = MegaBatchTrainer(cfg.train, model, optimizer, bilingual=True, seed=1)
    rows = prepared.table()
    order = np.random.default_rng(1).permutation(rows.num_rows)[:(steps + m) * 100]
    chunks = [rows.take(order[i:i + 100]) for i in range(0, len(order), 100)]
    trainer.train_megabatch(chunks[:m])           # warm-up: allocator, moments, caches
    clock = Clock()
    mine, negatives = trainer.mine, steps_module.negatives
    batch_loss, step = trainer._batch_loss, optimizer.step
    backward = torch.Tensor.backward

    def timed_mine(mega):
        t0 = time.process_time()
        out = mine(mega)
        clock.spent["mine"] = clock.spent.get("mine", 0.0) + time.process_time() - t0
        return out

    trainer.mine = timed_mine
    steps_module.negatives = clock.wrap("mine: negatives", negatives)
    trainer._batch_loss = clock.wrap("batch loss (dropout, forward, loss)", batch_loss)
    optimizer.step = clock.wrap("optimiser step", step)
    torch.Tensor.backward = clock.wrap("backward", backward)
    try:
        t0 = time.process_time()
        done = 0
        for at in range(m, len(chunks) - m + 1, m):
            trainer.train_megabatch(chunks[at:at + m])
            done += m
        total = time.process_time() - t0
    finally:
        steps_module.negatives = negatives
        torch.Tensor.backward = backward
    spent = clock.spent
    mined = spent.pop("mine", 0.0)
    # mining's own parts: the negatives (timed), and the vectors and bags around them, split
    # by timing the vectors of one more mega-batch (the model forward twice, no gradient)
    model.eval()
    with torch.no_grad():
        group = PairBatch.concat([pair_batch(b, model) for b in chunks[m:2 * m]])
        t0 = time.process_time()
        for _ in range(3):
            model(group.side1), model(group.side2)
        per_mega = (time.process_time() - t0) / 3
    model.train()
    spent["mine: vectors"] = min(per_mega * done / m, mined - spent["mine: negatives"])
    spent["mine: bags"] = mined - spent["mine: negatives"] - spent["mine: vectors"]
    spent["rest"] = total - sum(spent.values())
    ms = {k: 1000 * spent[k] / done for k in PHASES}
    return {"steps": done, "megabatch": m, "sparse": sparse, "cpu_s": total,
            "ms_per_step": 1000 * total / done, "pairs_per_cpu_s": 100 * done / total,
            "phases_ms": ms}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT / "output/bitext-all"))
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--m", type=int, default=20)
    ap.add_argument("--sparse", action="store_true")
    args = ap.parse_args(argv)
    from paralib.config import Config
    from paralib.io.context import StageContext
    from paralib.train.run import prepare

    path = Path(tempfile.mkdtemp(prefix="paralib-train-profile-")) / "pairs.parquet"
    sample_pairs(Path(args.data), args.pairs, path)
    tree = train_config(str(path))
    cfg = Config.model_validate(tree)
    prepared = prepare(cfg.train, StageContext.of(cfg))
    rows = []
    for sparse in [False, True] if args.sparse else [False]:
        load = os.getloadavg()
        result = profile(prepared, tree, args.steps, args.m, sparse)
        rows.append({"setting": "train.sparse (SparseAdam)" if sparse else "dense Adam",
                     **result, "load_before": load, "load_after": os.getloadavg()})
        write_json("train_profile", {"pairs": args.pairs,
                                     "threads": 1, "rows": rows})
    for r in rows:
        print(f"\n{r['setting']}: {r['ms_per_step']:.2f} CPU ms per mini-batch of 100 pairs "
              f"({r['pairs_per_cpu_s']:,.0f} pairs per CPU second) at M = {r['megabatch']}, "
              f"load {r['load_before'][0]:.1f}")
        print(table([{"phase": k, "ms/step": f"{v:.2f}",
                      "share": f"{100 * v / r['ms_per_step']:.0f} %"}
                     for k, v in r["phases_ms"].items()], ["phase", "ms/step", "share"]))
