"""Scoring speed: the cheap scorers (length, cost, overlap, BLEU, KenLM) in one pass.

Real pairs: each Multi30k task-1 training reference paired with the five independent task-2
English captions of the same image (up to 145,000 pairs). A KenLM 3-gram model is trained
first (not timed) on a quarter of the distinct references, held out as in 2017 §5.6, and their
pairs are left out of the scored set. The ``cost`` column is a real NLL-per-token
distribution: each caption's natural-log negative log-likelihood per token under that LM
(end token included), computed before timing.

The pairs go through the scorers in batches of ``--batch-rows`` (the stage's shard size) in
one process with one thread (``OMP_NUM_THREADS=1``, Arrow CPU count 1): each batch is
tokenised once (shared by length, overlap, BLEU, duplicates and LM), then every scorer runs
``invalid()`` and ``score()``. Pairs per second per core is pairs / CPU seconds of the process
(the wall-clock rate is reported too; on a busy machine it is lower). Writes
``benchmarks/results/score.json``.

    OMP_NUM_THREADS=1 python -m benchmarks score
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from benchmarks.common import table, write_json
from paralib.filters import Scorer, get_scorer
from paralib.filters.tokenize import BatchCache, pair_tokens
from paralib.lm import KenLMNotFoundError, hold_out_references, train_lm
from paralib.paths import data_root


def lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def real_pairs(n: int) -> pd.DataFrame:
    """Task-1 training references with the task-2 captions of the same image."""
    base = data_root() / "bitext/multi30k"
    ref = lines(base / "task1/raw/train.en.gz")
    frames = []
    for k in range(1, 6):
        cap = lines(base / f"task2/raw/train.{k}.en.gz")
        frames.append(pd.DataFrame({"id": [f"m30k:{k}:{i + 1}" for i in range(len(ref))],
                                    "corpus": "m30k", "src_lang": "de", "ref": ref,
                                    "trans": cap, "rank": k - 1}))
    return pd.concat(frames, ignore_index=True).head(n)


def lm_costs(lm: Scorer, pairs: pd.DataFrame, batch_rows: int) -> np.ndarray:
    """The cost column: each caption's ln-perplexity (natural-log NLL per token, end token
    included) under ``lm``, batch by batch."""
    nll = []
    for start in range(0, len(pairs), batch_rows):
        b = pairs.iloc[start : start + batch_rows]
        ppl = lm.score(b).lm_ppl.to_numpy()
        nll.append(np.log(ppl))  # ln ppl = natural-log NLL per token (end token included)
    return np.concatenate(nll)


def timed_pass(pairs: pd.DataFrame, scorers: dict[str, Scorer], batch_rows: int
               ) -> tuple[dict[str, float], dict[str, float], int]:
    """One pass of every scorer over ``pairs`` as a scoring actor makes it (one tokenisation
    per batch shared by all scorers): CPU and wall seconds per step (and ``"all"``: the whole
    pass), and the number of rows some scorer gives a reason."""
    shared = BatchCache()  # as a scoring actor: one tokenisation per batch for all scorers
    for sc in scorers.values():
        sc.tokens = shared
    batches = [pairs.iloc[s : s + batch_rows].copy()
               for s in range(0, len(pairs), batch_rows)]
    cpu = dict.fromkeys(["tokenise (shared)", *scorers], 0.0)
    wall = dict.fromkeys(cpu, 0.0)
    rejected = 0
    w0, c0 = time.perf_counter(), time.process_time()
    for batch in batches:
        w, c = time.perf_counter(), time.process_time()
        pair_tokens(batch, shared)
        wall["tokenise (shared)"] += time.perf_counter() - w
        cpu["tokenise (shared)"] += time.process_time() - c
        bad = pd.Series(False, index=batch.index)
        for name, sc in scorers.items():
            w, c = time.perf_counter(), time.process_time()
            bad |= sc.invalid(batch) != ""
            sc.score(batch)
            wall[name] += time.perf_counter() - w
            cpu[name] += time.process_time() - c
        rejected += int(bad.sum())
    wall["all"], cpu["all"] = time.perf_counter() - w0, time.process_time() - c0
    return cpu, wall, rejected


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=145_000, help="pairs before the LM hold-out")
    ap.add_argument("--batch-rows", type=int, default=5000)
    args = ap.parse_args(argv)
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)

    pairs = real_pairs(args.n)
    held = hold_out_references(pairs, n=40_000, max_fraction=0.25, seed=0)
    tmp = Path(tempfile.mkdtemp(prefix="paralib-bench-lm-"))
    try:
        t0 = time.perf_counter()
        model = train_lm(held.ref.tolist(), tmp, order=3)
        lm_train_s = time.perf_counter() - t0
    except KenLMNotFoundError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        sys.exit(f"{e}")
    pairs = pairs[~pairs.ref.isin(set(held.ref))].reset_index(drop=True)

    lm = get_scorer("lm", model=str(model))
    lm.setup()
    pairs["cost"] = lm_costs(lm, pairs, args.batch_rows)

    names = ["length", "cost", "overlap", "bleu", "lm"]
    scorers = {n: (lm if n == "lm" else get_scorer(n)) for n in names}
    cpu, wall, rejected = timed_pass(pairs, scorers, args.batch_rows)
    wall_s, cpu_s = wall.pop("all"), cpu.pop("all")
    shutil.rmtree(tmp, ignore_errors=True)

    n = len(pairs)
    rows = [{"step": k, "cpu_s": round(cpu[k], 3), "share": f"{100 * cpu[k] / cpu_s:.1f}%",
             "pairs_per_s_per_core": round(n / cpu[k]) if cpu[k] else None} for k in cpu]
    rows.append({"step": "all (one pass)", "cpu_s": round(cpu_s, 3), "share": "100%",
                 "pairs_per_s_per_core": round(n / cpu_s)})
    result = {
        "setup": {"pairs": n, "batch_rows": args.batch_rows, "threads": 1,
                  "data": "Multi30k task-1 train references x task-2 train captions 1-5 of "
                          "the same image, minus the LM's held-out references",
                  "scorers": names, "lm_references": len(held),
                  "lm_train_s": round(lm_train_s, 2),
                  "cost": "ln-perplexity (NLL per token) of each caption under the LM",
                  "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
                  "load_average": os.getloadavg()},
        "pairs_per_s_per_core": round(n / cpu_s),
        "pairs_per_s_wall": round(n / wall_s),
        "goal_pairs_per_s_per_core": 20_000,
        "rows_with_a_reason": rejected,
        "split": rows,
    }
    print(table(rows, ["step", "cpu_s", "share", "pairs_per_s_per_core"]))
    print(f"\n{n} pairs: {result['pairs_per_s_per_core']} pairs/s per core (CPU time), "
          f"{result['pairs_per_s_wall']} pairs/s wall; {rejected} rows with a reason; "
          f"LM trained on {len(held)} references in {lm_train_s:.1f} s")
    print(f"wrote {write_json('score', result)}")
