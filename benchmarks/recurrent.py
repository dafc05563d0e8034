"""Training-step time of the recurrent encoders with PyTorch's packed LSTM/GRU kernel against
``paralib``'s unrolled recurrence (``paralib.models.encoders.unrolled``), on the CPU.

Each encoder at dim 300 (2018 §5.2 settings: batch 100, margin 0.4, hardest negatives within
the mini-batch, fused Adam 0.001) trains ``--steps`` (10) steps of ``MegaBatchTrainer`` on
Multi30k task-2 caption pairs (the vocabulary fitted on ``--pairs`` of them), once through
``nn.LSTM``/``nn.GRU`` on packed sequences (``UNROLL_ON_CPU = False``) and once unrolled, from
the same weights on the same batches. The two alternate ``--rounds`` (3) times so that load
from other work falls on both; the table gives the median seconds per step and their ratio.

After the timed steps the weights of the two runs are compared (largest absolute
difference): the unrolled recurrence is the same arithmetic, so they differ by float32
rounding, grown over the steps. ``sentence_difference`` is the largest difference between the
two paths' sentence vectors for one batch of 200 sentences from the same weights (no
training in between). ``encode_*_per_s`` is inference, not training: sentences per second of
``model.embed`` in evaluation mode under ``torch.inference_mode`` over the first
``--encode`` (4,000) caption sentences in batches of 128, median of the rounds. One torch
thread (what a training worker has). Writes ``benchmarks/results/recurrent.json``.

    python -m benchmarks recurrent [--encoders lstm,blstm,gran,gran-gru] [--steps 10]
"""

from __future__ import annotations

import copy
import os
import statistics
import sys
import time

from benchmarks.common import table, write_json
from benchmarks.optimizer import largest_difference, setup, step_parser, timed_steps

ENCODERS = ["lstm", "blstm", "gran", "gran-gru"]


def run(cfg, data, model, unrolled: bool, steps: int) -> tuple[float, object]:
    """:func:`timed_steps` with PyTorch's packed kernel or the unrolled recurrence, and the
    fused Adam of training."""
    from paralib.models.encoders import recurrent
    from paralib.train.steps import build_optimizer

    recurrent.UNROLL_ON_CPU = unrolled
    return timed_steps(cfg, data, model, lambda m: build_optimizer(m, cfg.train.lr), steps)


def encode_rate(model, texts: list[str], unrolled: bool) -> float:
    """Sentences per second of ``model.embed`` in batches of 128, in evaluation mode under
    ``torch.inference_mode`` (as ``SentenceEncoder.encode`` runs it)."""
    import torch

    from paralib.models.encoders import recurrent

    recurrent.UNROLL_ON_CPU = unrolled
    model = copy.deepcopy(model).eval()  # the rounds after this train the original
    start = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(texts), 128):
            model.embed(texts[i:i + 128])
    return len(texts) / (time.perf_counter() - start)


def sentence_difference(model, data) -> float:
    """Largest difference between the two paths' vectors for the same 200 sentences."""
    from paralib.models.encoders import recurrent

    texts = data["s1"].iloc[:100].tolist() + data["s2"].iloc[:100].tolist()
    vecs = []
    for unrolled in (False, True):
        recurrent.UNROLL_ON_CPU = unrolled
        vecs.append(model.embed(texts))
    return (vecs[0] - vecs[1]).abs().max().item()


def main(argv: list[str] | None = None) -> None:
    ap = step_parser(__doc__, ENCODERS, 10)
    ap.add_argument("--encode", type=int, default=4_000)
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    rows = []
    for kind in args.encoders.split(","):
        cfg, data, model = setup(kind, args.pairs)
        texts = data["s1"].iloc[:args.encode].tolist()
        packed, unrolled, enc_packed, enc_unrolled = [], [], [], []
        for _ in range(args.rounds):
            t_packed, m_packed = run(cfg, data, model, False, args.steps)
            t_unrolled, m_unrolled = run(cfg, data, model, True, args.steps)
            packed.append(t_packed)
            unrolled.append(t_unrolled)
            enc_packed.append(encode_rate(model, texts, False))
            enc_unrolled.append(encode_rate(model, texts, True))
        row = {"encoder": kind, "parameters": sum(p.numel() for p in model.parameters()),
               "packed_s_per_step": round(statistics.median(packed), 4),
               "unrolled_s_per_step": round(statistics.median(unrolled), 4),
               "speedup": round(statistics.median(packed) / statistics.median(unrolled), 2),
               "encode_packed_per_s": round(statistics.median(enc_packed)),
               "encode_unrolled_per_s": round(statistics.median(enc_unrolled)),
               "sentence_difference": float(f"{sentence_difference(model, data):.3g}"),
               "max_weight_difference":
                   float(f"{largest_difference(m_packed, m_unrolled):.3g}")}
        rows.append(row)
        print(f"{kind}: {row}", file=sys.stderr, flush=True)
    print(table(rows, ["encoder", "parameters", "packed_s_per_step", "unrolled_s_per_step",
                       "speedup", "encode_packed_per_s", "encode_unrolled_per_s",
                       "sentence_difference", "max_weight_difference"]))
    path = write_json("recurrent", {"args": vars(args),
                                    "load_average_at_end": os.getloadavg()[0], "rows": rows})
    print(f"wrote {path}")
