"""Training speed: pairs/s of every encoder on Ray Train with 1 and 2 workers, and the time of
mining negatives vectorised vs a per-row Python loop like the reference code.

**Training.** ``paralib.train.run.train(cfg)``, the function behind ``paralib train``, on
Multi30k task-2 caption pairs (``{kind: captions, limit: N}``: independent English captions
of one image, real human paraphrases), dev ``none``, Adam 0.001, batch 100, margin loss with
hardest negatives in mega-batches of ``--megabatch`` (10) mini-batches, ``--epochs`` (2)
epochs. Encoders at dim 300 (LSTM/BLSTM/GRAN hidden 300), vocabularies fitted on the pairs
(SP 20,000 pieces; WORD and TRIGRAM up to 200,000 types, i.e. all the captions have).
Averaging encoders train on ``--pairs-avg`` pairs, recurrent ones on ``--pairs-rnn`` (they are
30-100x slower per pair), so that an epoch takes several seconds for each. Workers: 1 worker with
1 CPU, or 2 workers with 0.5 CPU each (the 2-core machine; each worker runs one torch thread,
so 1 worker uses one core and 2 workers both). Ray is started once (``num_cpus=2``) before
anything is timed. The rate is the per-epoch ``pairs_per_s`` of the training history (pairs of
all workers / seconds of the epoch's mega-batch loop: mining, forward, backward, DDP
all-reduce, optimiser; not the dev score or checkpoint); the last epoch is the steady state,
the first one includes the data pipeline's start.

**Mining.** M=40 mini-batches of 100 pairs (4,000 pairs, d=300, float32, Gaussian vectors:
the time does not depend on the values). Vectorised: ``paralib.train.mining.negatives(e1, e2,
"max", bilingual=False)`` (one matrix product per side, own pair masked), and the same with
``groups`` (groups of 4 pairs masked block by block: ``group_aware_vs_plain``, goal at most
1.1), timed alternately. Against:

- the per-row Python loop of the papers' reference code (``getPairMax`` in Wieting et al.'s
  released code: for each sentence, a Python loop over every other sentence of the batch, one
  cosine each, its own pair skipped): ``mining_speedup_vs_loop``. Timed on ``--loop-sample``
  sentences (their rows cost the same) and scaled to all 8,000;
- Wieting's later ``getPairsFast`` as published (``scipy.spatial.distance.pdist(X, "cosine")``,
  ``squareform``, a per-row Python loop masking the own pair, ``argmin``), in full;
- a per-row loop with a numpy inner product (one vector-matrix product per sentence over the
  interleaved pool ``[s1_0, s2_0, s1_1, ...]``), in full: the same multiply-adds as the matrix
  product, so it measures only GEMM against GEMV.

All with ``--mining-threads`` (1: what a training worker has) BLAS and torch threads. The indices
of every method are compared with paralib's. Writes ``benchmarks/results/train.json``.

Measured here: about 18 minutes for the 12 fits on the shared 2-core machine (load 10-15);
40-60 s of each fit is Ray Train's start, tokeniser fitting, the per-epoch checkpoints and the
training report, not training. ``--quick`` (SP and LSTM, 4 fits) takes about a third.

    python -m benchmarks train [--quick] [--encoders sp,lstm] [--skip-training]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import RESULTS, table, write_json

ENCODERS = ["word", "trigram", "sp", "lstm", "blstm", "gran"]
RECURRENT = {"lstm", "blstm", "gran"}
VOCAB = {"sp": 20_000, "word": 200_000, "trigram": 200_000}


# ---------------------------------------------------------------------------------- mining

def loop_negatives(e1: np.ndarray, e2: np.ndarray) -> np.ndarray:
    """Hardest negative of every sentence, one sentence at a time (``getPairsFast``'s pool).

    The pool interleaves the pairs, ``X[2i] = e1[i]``, ``X[2i+1] = e2[i]``; returns the index
    into ``X`` of each row's most cosine-similar sentence other than itself and its partner."""
    n = len(e1)
    X = np.empty((2 * n, e1.shape[1]), dtype=e1.dtype)
    X[0::2], X[1::2] = e1, e2
    norms = np.sqrt((X * X).sum(1))
    best = np.empty(2 * n, dtype=np.int64)
    for i in range(2 * n):
        sims = (X @ X[i]) / (norms * norms[i])
        sims[i] = -np.inf
        sims[i + 1 if i % 2 == 0 else i - 1] = -np.inf
        best[i] = int(np.argmax(sims))
    return best


def get_pairs_fast(e1: np.ndarray, e2: np.ndarray) -> np.ndarray:
    """The published ``getPairsFast`` ("MAX"): ``pdist`` cosine distances, own pair set to 1,
    ``argmin`` per row; returns indices into the interleaved pool."""
    from scipy.spatial.distance import pdist, squareform

    X = []
    for i in range(len(e1)):
        X.append(e1[i])
        X.append(e2[i])
    arr = squareform(pdist(X, "cosine"))
    for i in range(len(arr)):
        arr[i, i] = 1
        if i % 2 == 0:
            arr[i, i + 1] = 1
        else:
            arr[i, i - 1] = 1
    return np.argmin(arr, axis=1)


def reference_loop_rows(e1: np.ndarray, e2: np.ndarray, rows: list[int]) -> np.ndarray:
    """The reference code's per-row loop (``getPairMax``) for some rows of the interleaved
    pool: for each row a Python loop over the pool, one cosine per pair, own pair skipped."""
    n = len(e1)
    X = [e1[i // 2] if i % 2 == 0 else e2[i // 2] for i in range(2 * n)]
    norms = [float(np.sqrt(np.dot(x, x))) for x in X]
    out = []
    for i in rows:
        partner = i + 1 if i % 2 == 0 else i - 1
        best, best_sim = -1, -np.inf
        for j in range(2 * n):
            if j in (i, partner):
                continue
            sim = float(np.dot(X[i], X[j])) / (norms[i] * norms[j])
            if sim > best_sim:
                best, best_sim = j, sim
        out.append(best)
    return np.asarray(out)


def to_paralib(idx: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Interleaved-pool answers as paralib's ``(i1, i2)``: pool ``[side 1; side 2]``."""
    mapped = np.where(idx % 2 == 0, idx // 2, n + idx // 2)
    return mapped[0::2], mapped[1::2]


def mining(m: int, batch: int, dim: int, threads: int, loop_sample: int) -> dict:
    import torch
    from threadpoolctl import threadpool_limits

    from paralib.train.mining import negatives

    torch.set_num_threads(threads)
    n = m * batch
    rng = np.random.default_rng(0)
    e1 = rng.standard_normal((n, dim), dtype=np.float32)
    e2 = rng.standard_normal((n, dim), dtype=np.float32)
    t1, t2 = torch.from_numpy(e1), torch.from_numpy(e2)
    # group-aware mining: groups of 4 pairs (the caption pairs of one image), the group mask
    # applied block by block; timed alternately with the plain mining so load hits both alike
    groups = torch.arange(n) // 4
    negatives(t1, t2, "max", bilingual=False)  # warm-up
    negatives(t1, t2, "max", bilingual=False, groups=groups)
    times, grouped_times = [], []
    for _ in range(7):
        t = time.perf_counter()
        i1, i2 = negatives(t1, t2, "max", bilingual=False)
        times.append(time.perf_counter() - t)
        t = time.perf_counter()
        g1, g2 = negatives(t1, t2, "max", bilingual=False, groups=groups)
        grouped_times.append(time.perf_counter() - t)
    vec_s = float(np.median(times))
    grouped_s = float(np.median(grouped_times))
    own_group = bool(((groups[g1 % n] == groups) | (groups[g2 % n] == groups)).any())
    i1, i2 = i1.numpy(), i2.numpy()

    with threadpool_limits(limits=threads):
        t = time.perf_counter()
        loop = loop_negatives(e1, e2)
        loop_s = time.perf_counter() - t
        t = time.perf_counter()
        ref = get_pairs_fast(e1, e2)
        ref_s = time.perf_counter() - t
        rows = rng.choice(2 * n, loop_sample, replace=False).tolist()
        t = time.perf_counter()
        scalar = reference_loop_rows(e1, e2, rows)
        scalar_s = (time.perf_counter() - t) * (2 * n) / loop_sample

    pool = np.concatenate([e1, e2])
    pool /= np.linalg.norm(pool, axis=1, keepdims=True)

    def agree(a1: np.ndarray, a2: np.ndarray) -> dict:
        ours, theirs = np.concatenate([i1, i2]), np.concatenate([a1, a2])
        diff = np.flatnonzero(ours != theirs)
        q = np.concatenate([pool[:n], pool[n:]])[diff]
        gap = np.abs((q * pool[ours[diff]]).sum(1) - (q * pool[theirs[diff]]).sum(1))
        return {"same": int(len(ours) - len(diff)), "of": int(len(ours)),
                "different": int(len(diff)),
                "max_cosine_gap_where_different": float(gap.max()) if len(diff) else 0.0}

    ours_rows = np.array([i1[r // 2] if r % 2 == 0 else i2[r // 2] for r in rows])
    sample_ok = bool((ours_rows == np.where(scalar % 2 == 0, scalar // 2, n + scalar // 2)).all())
    return {
        "megabatch": m, "batch": batch, "pairs": n, "sentences": 2 * n, "dim": dim,
        "threads": threads, "vectors": "Gaussian float32, seed 0",
        "vectorised_s": round(vec_s, 4), "vectorised_runs_s": [round(x, 4) for x in times],
        "group_aware_s": round(grouped_s, 4),
        "group_aware_runs_s": [round(x, 4) for x in grouped_times],
        "group_aware_vs_plain": round(grouped_s / vec_s, 3),
        "group_aware_groups": "4 pairs per group (torch.arange(n) // 4)",
        "group_aware_mined_own_group": own_group,
        "reference_loop_s_scaled": round(scalar_s, 1),
        "reference_loop_rows_timed": loop_sample,
        "getpairsfast_s": round(ref_s, 3),
        "numpy_row_loop_s": round(loop_s, 3),
        "same_indices": {"reference_loop_sample": sample_ok,
                         "getpairsfast": agree(*to_paralib(ref, n)),
                         "numpy_row_loop": agree(*to_paralib(loop, n))},
        "speedup_vs_reference_loop": round(scalar_s / vec_s, 1),
        "speedup_vs_getpairsfast": round(ref_s / vec_s, 1),
        "speedup_vs_numpy_row_loop": round(loop_s / vec_s, 1),
    }


# -------------------------------------------------------------------------------- training

def train_once(kind: str, workers: int, pairs: int, args, tmp: Path) -> dict:
    from paralib.config import load_config
    from paralib.io.context import StageContext
    from paralib.train.run import train

    hidden = f", hidden: {args.hidden}" if kind in RECURRENT else ""
    vocab = f", vocab_size: {VOCAB[kind]}" if kind in VOCAB else ""
    name = f"bench-{kind}-w{workers}"
    cfg = load_config(None, [
        f"train.sources=[{{kind: captions, limit: {pairs}}}]",
        f"train.model.parts=[{{name: {kind}, dim: {args.dim}{hidden}{vocab}}}]",
        f"train.megabatch={{size: {args.megabatch}}}", f"train.epochs={args.epochs}",
        f"train.batch_size={args.batch}", f"train.workers={workers}",
        f"train.cpus_per_worker={1.0 / workers}", "train.dev=none",
        f"train.output={tmp / name / 'model'}", f"train.storage_path={tmp / 'ray'}",
        f"train.name={name}"])
    t = time.perf_counter()
    summary = train(cfg.train, StageContext.of(cfg, progress=False))
    wall = time.perf_counter() - t
    hist = summary["history"]
    return {"encoder": kind, "workers": workers, "cpus_per_worker": 1.0 / workers,
            "pairs": summary["pairs"],
            "epoch1_pairs_per_s": round(hist[0]["pairs_per_s"], 1),
            "pairs_per_s": round(hist[-1]["pairs_per_s"], 1),
            "epoch_s": round(hist[-1]["seconds"], 2), "fit_wall_s": round(wall, 1),
            "loss": [round(h["loss"], 4) for h in hist]}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line of :func:`main`."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--encoders", default=",".join(ENCODERS))
    ap.add_argument("--workers", default="1,2", help="worker counts to compare")
    ap.add_argument("--pairs-avg", type=int, default=5000, help="pairs for word/trigram/sp")
    ap.add_argument("--pairs-rnn", type=int, default=600, help="pairs for lstm/blstm/gran")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--megabatch", type=int, default=10, help="M for training")
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--hidden", type=int, default=300)
    ap.add_argument("--mining-m", type=int, default=40)
    ap.add_argument("--mining-threads", type=int, default=1)
    ap.add_argument("--loop-sample", type=int, default=400,
                    help="sentences timed with the reference per-row loop (scaled to all)")
    ap.add_argument("--skip-training", action="store_true")
    ap.add_argument("--skip-mining", action="store_true")
    ap.add_argument("--quick", action="store_true",
                    help="sp and lstm only, 3,000 / 500 pairs")
    return ap.parse_args(argv)


def print_mining(mine: dict[str, Any]) -> None:
    """The mining table: paralib's vectorised negatives against the reference's loops."""
    print(table([{"method": "paralib negatives (vectorised)", "seconds": mine["vectorised_s"],
                  "speedup": 1.0},
                 {"method": "paralib negatives, group-aware (groups of 4 pairs)",
                  "seconds": mine["group_aware_s"],
                  "speedup": round(1 / mine["group_aware_vs_plain"], 2)},
                 {"method": "reference per-row loop (getPairMax, scaled)",
                  "seconds": mine["reference_loop_s_scaled"],
                  "speedup": mine["speedup_vs_reference_loop"]},
                 {"method": "getPairsFast (pdist + masking loop)",
                  "seconds": mine["getpairsfast_s"],
                  "speedup": mine["speedup_vs_getpairsfast"]},
                 {"method": "per-row loop, numpy inner product",
                  "seconds": mine["numpy_row_loop_s"],
                  "speedup": mine["speedup_vs_numpy_row_loop"]}],
                ["method", "seconds", "speedup"]))
    print(f"same indices: {mine['same_indices']}\n", flush=True)


def training_rows(kinds: list[str], worker_counts: list[int], args: argparse.Namespace
                  ) -> list[dict]:
    """One row per encoder kind and worker count: Ray Train on a 2-CPU Ray started before
    timing, each row with its speed against one worker."""
    import ray

    rows: list[dict] = []
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    ray.init(num_cpus=2, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    tmp = Path(tempfile.mkdtemp(prefix="paralib-bench-train-"))
    try:
        for kind in kinds:
            pairs = args.pairs_rnn if kind in RECURRENT else args.pairs_avg
            for w in worker_counts:
                rows.append(train_once(kind, w, pairs, args, tmp))
                print(f"{kind} x{w}: {rows[-1]['pairs_per_s']} pairs/s "
                      f"(epoch 1: {rows[-1]['epoch1_pairs_per_s']})", flush=True)
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    one = {r["encoder"]: r["pairs_per_s"] for r in rows if r["workers"] == 1}
    for r in rows:
        if r["workers"] != 1 and r["encoder"] in one:
            r["vs_1_worker"] = round(r["pairs_per_s"] / one[r["encoder"]], 2)
    return rows


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.quick:
        args.encoders, args.pairs_avg, args.pairs_rnn = "sp,lstm", 3000, 500
    kinds = [k.strip() for k in args.encoders.split(",") if k.strip()]
    worker_counts = [int(w) for w in args.workers.split(",")]
    t_start = time.perf_counter()
    load_before = os.getloadavg()
    result: dict = {}

    mine = None
    if not args.skip_mining:
        mine = mining(args.mining_m, args.batch, args.dim, args.mining_threads,
                      args.loop_sample)
        print_mining(mine)

    rows: list[dict] = [] if args.skip_training else training_rows(kinds, worker_counts, args)

    result["setup"] = {
        "training": {"source": "{kind: captions}: Multi30k task-2 train English captions, "
                               "consecutive captions of one image as pairs",
                     "pairs_avg_encoders": args.pairs_avg, "pairs_rnn_encoders": args.pairs_rnn,
                     "epochs": args.epochs, "batch": args.batch, "megabatch": args.megabatch,
                     "negatives": "max", "loss": "margin 0.4", "dim": args.dim,
                     "hidden": args.hidden, "vocab": VOCAB, "dev": "none",
                     "workers": "1 x 1 CPU or 2 x 0.5 CPU; one torch thread per worker",
                     "ray": "ray.init(num_cpus=2), started before timing",
                     "pairs_per_s": "last epoch's history pairs_per_s (steady state); "
                                    "epoch 1 includes the data pipeline's start"},
        "load_average_before": load_before, "load_average_after": os.getloadavg(),
        "note": "2 cores shared with other sessions: absolute rates are noisy",
        "total_s": round(time.perf_counter() - t_start, 1),
    }
    result["training"] = rows
    earlier = RESULTS / "train.json"
    if args.skip_training and earlier.is_file():   # keep the last measured training rows
        before = json.loads(earlier.read_text())
        if before.get("training"):
            result["training"] = before["training"]
            result["setup"]["training"] = before["setup"]["training"]
            result["training_measured"] = {
                "machine": before["machine"],
                "load_average": [before["setup"].get("load_average_before"),
                                 before["setup"].get("load_average_after")],
                "note": "training rows kept from the earlier run (--skip-training)"}
    if mine is not None:
        result["mining"] = mine
        result["mining_speedup_vs_loop"] = mine["speedup_vs_reference_loop"]
        result["mining_speedup_vs_getpairsfast"] = mine["speedup_vs_getpairsfast"]
        result["mining_speedup_vs_numpy_row_loop"] = mine["speedup_vs_numpy_row_loop"]
        result["goal_mining_speedup_vs_loop"] = 50
        result["mining_note"] = (
            "mining_speedup_vs_loop is against the reference code's per-row Python loop "
            "(getPairMax: one cosine per pair of sentences in Python), timed on a sample of "
            "rows and scaled. getPairsFast (scipy pdist in float64 and a per-row masking "
            "loop) is the reference's later form. The numpy row loop does the same "
            "multiply-adds as paralib's matrix product with one vector-matrix product per "
            "sentence, so its ratio is only GEMM against GEMV efficiency on this CPU.")
    if rows:
        print()
        print(table(rows, ["encoder", "workers", "pairs", "epoch1_pairs_per_s", "pairs_per_s",
                           "vs_1_worker", "epoch_s", "fit_wall_s"]))
    print(f"\nload average before {load_before}, after {os.getloadavg()}; "
          f"{result['setup']['total_s']} s in all")
    print(f"wrote {write_json('train', result)}")
