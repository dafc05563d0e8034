"""Training-step time with Adam's per-tensor loop against its fused kernel, and how far apart
the two leave the weights.

Each encoder at dim 300 (2018 §5.2 settings: batch 100, margin 0.4, hardest negatives within
the mini-batch, Adam 0.001) trains ``--steps`` (20) steps of ``paralib``'s
``MegaBatchTrainer`` on Multi30k task-2 caption pairs, once with ``torch.optim.Adam`` as
PyTorch builds it on a CPU (``foreach`` off: one tensor at a time) and once with
``fused=True`` (what ``paralib.train.steps.build_optimizer`` builds). The two runs of an
encoder start from the same weights and see the same batches, and alternate ``--rounds`` (3)
times, so that load from other work falls on both; the table gives the median seconds per
step of each and their ratio. The vocabulary is fitted on ``--pairs`` (20,000) pairs as in
training (WORD and TRIGRAM keep every type up to 200,000, the size experiments 9 and 10 use).

After the timed steps the weights of the two runs are compared (largest absolute difference),
and those of two runs of the loop (``loop_rerun_difference``: training's own determinism). The
fused kernel computes the same update, so the two differ by float32 rounding. Where the
difference is larger (the LSTM), the likely cause is that rounding grows over the steps until
a near tie between two hardest negatives goes the other way; this script does not separate
that from the update itself (the test of ``build_optimizer`` in ``tests/train`` bounds the
difference for TRIGRAM after ten steps).
One torch thread (what a training worker has). Writes ``benchmarks/results/optimizer.json``.

The averaging encoders (WORD, TRIGRAM, SP) are where the optimiser step weighs; LSTM stands
for the recurrent ones (GRAN, BLSTM: ``--encoders gran,blstm``), whose step is their backward
pass.

    python -m benchmarks optimizer [--encoders word,trigram,sp,lstm] [--steps 20]
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import time

from benchmarks.common import table, write_json

ENCODERS = ["word", "trigram", "sp", "lstm"]


def setup(kind: str, pairs: int):
    """The config, pairs and an initialised model of one encoder."""
    from paralib.config import Config
    from paralib.io.context import StageContext
    from paralib.models.model import ParaphraseModel
    from paralib.train.run import prepare

    vocab = 20_000 if kind == "sp" else 200_000
    cfg = Config.model_validate({"train": {
        "sources": [{"kind": "captions", "limit": pairs}], "batch_size": 100, "margin": 0.4,
        "lr": 0.001, "megabatch": {"size": 1}, "dev": "none",
        "model": {"parts": [{"name": kind, "dim": 300, "vocab_size": vocab}]}}})
    data, _, tokenizers = prepare(cfg.train, StageContext.of(cfg))
    model = ParaphraseModel(cfg.train.model, tokenizers)
    model.initialise()
    return cfg, data, model


def timed_steps(cfg, data, model, make_optimizer, steps: int) -> tuple[float, object]:
    """Median seconds per ``MegaBatchTrainer`` step over ``steps`` steps (after one warm-up
    step) of a copy of ``model`` with the optimiser ``make_optimizer(copy)``; the copy."""
    import torch

    from paralib.train.steps import MegaBatchTrainer

    model = copy.deepcopy(model)
    trainer = MegaBatchTrainer(cfg.train, model, make_optimizer(model), seed=1)
    torch.manual_seed(1)
    batches = [data.iloc[i * 100:(i + 1) * 100] for i in range(steps + 1)]
    trainer.train_megabatch([batches[0]])
    times = []
    for batch in batches[1:]:
        t = time.perf_counter()
        trainer.train_megabatch([batch])
        times.append(time.perf_counter() - t)
    return statistics.median(times), model


def run(cfg, data, model, fused: bool, steps: int) -> tuple[float, object]:
    """:func:`timed_steps` with Adam's per-tensor loop or its fused kernel."""
    import torch

    return timed_steps(cfg, data, model, lambda m: torch.optim.Adam(
        m.parameters(), lr=cfg.train.lr, fused=fused), steps)


def step_parser(doc: str, encoders: list[str], steps: int, rounds_help: str | None = None
                ) -> argparse.ArgumentParser:
    """The options shared by the training-step benchmarks (this one and ``recurrent.py``)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--encoders", default=",".join(encoders))
    ap.add_argument("--steps", type=int, default=steps)
    ap.add_argument("--rounds", type=int, default=3, help=rounds_help)
    ap.add_argument("--pairs", type=int, default=20_000)
    return ap


def largest_difference(a, b) -> float:
    """The largest absolute difference between two models' weights."""
    return max((x - y).abs().max().item() for x, y in
               zip(a.parameters(), b.parameters(), strict=True))


def main(argv: list[str] | None = None) -> None:
    args = step_parser(__doc__, ENCODERS, 20, rounds_help="at least 2").parse_args(argv)
    import torch

    torch.set_num_threads(1)
    rows = []
    for kind in args.encoders.split(","):
        cfg, data, model = setup(kind, args.pairs)
        loop, fused, again = [], [], 0.0
        for i in range(args.rounds):
            t_loop, m_loop = run(cfg, data, model, False, args.steps)
            t_fused, m_fused = run(cfg, data, model, True, args.steps)
            loop.append(t_loop)
            fused.append(t_fused)
            if i == 0:
                first = m_loop
            else:  # the same loop run again: how deterministic training is by itself
                again = max(again, largest_difference(first, m_loop))
        diff = largest_difference(m_loop, m_fused)
        params = sum(p.numel() for p in model.parameters())
        row = {"encoder": kind, "parameters": params,
               "vocabulary": model.tokenizers[0].size,
               "loop_s_per_step": round(statistics.median(loop), 4),
               "fused_s_per_step": round(statistics.median(fused), 4),
               "speedup": round(statistics.median(loop) / statistics.median(fused), 2),
               "max_weight_difference": float(f"{diff:.3g}"),
               "loop_rerun_difference": float(f"{again:.3g}")}
        rows.append(row)
        print(f"{kind}: {row}", file=sys.stderr, flush=True)
    print(table(rows, ["encoder", "vocabulary", "parameters", "loop_s_per_step",
                       "fused_s_per_step", "speedup", "max_weight_difference",
                       "loop_rerun_difference"]))
    path = write_json("optimizer", {"args": vars(args),
                                    "load_average_at_end": os.getloadavg()[0], "rows": rows})
    print(f"wrote {path}")
