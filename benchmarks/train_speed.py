"""Training speed of the averaging encoders on real bitext, this tree's trainer against the
trainer of ``--before`` (default: main before the speed-ups of issue "A paraphrastic encoder
worth downloading", item 5), in process and behind ``paralib train`` on Ray Train, and
against sentence-transformers' ``StaticEmbedding`` on the same pairs and cores, with the STS
Benchmark dev score each reaches.

Pairs: ``--pairs`` (100,000) drawn with seed 0 from a ``paralib decontaminate`` output
(``--data``, default ``output/bitext-all``: ``paralib decontaminate --config
configs/bitext-all.yaml``): news, Tatoeba Challenge, NTREX, TICO English-other pairs and
Bible-version English pairs. Every setting trains one epoch in a fresh process with
``--threads`` (2) torch threads: SP 20,000 pieces (fitted on the first 200,000 sentences),
dim 300, word dropout 0.3, margin loss (δ 0.4) with group-aware hardest negatives from the
other side, mega-batch annealed from 1 to 20 (+1 every 150 mini-batches), batch 100, dense
Adam 0.001. The rate is pairs / seconds of the epoch loop (mining, forward, backward,
update; under Ray Train also reading the Ray Data shard, whose pipeline starts inside the
epoch), not vocabulary fitting or the dev score.

- ``before ...`` / ``after ...``: the trainer of commit ``--before`` (a ``git worktree`` of
  it) and of this tree, in this process (``in process``) and as ``paralib train`` (an
  embedded Ray with ``--threads`` CPUs, one worker, fed from the Ray Data shard); a Ray row
  also gives ``wall_s``, the whole ``paralib train`` call (Ray start, tokeniser fitting and
  tokenising, the epoch, dev score, checkpoint), and ``startup_s``, that minus the epoch.
- ``--ray-pairs N ...``: more rows of this tree on N pairs, in process and as ``paralib
  train`` (start-up is a smaller part of a longer epoch, and M reaches 20 after 2,850
  mini-batches, 285,000 pairs: the 100,000-pair epoch ends at M = 7).
- ``--sparse``: one more in-process row of this tree with ``train.sparse`` (SparseAdam, "lazy"
  Adam: it changes the numbers; its STSB dev stands beside dense Adam's).
- ``st mnrl`` / ``st megabatch``: :mod:`st_peer` (WordPiece 20,000, dim 300, lr 0.01).

Every row records the load average before and after it (the cores may be shared).

    python -m benchmarks train_speed [--pairs 100000] [--ray-pairs 500000] [--threads 2]
        [--skip-before] [--skip-ray] [--skip-st] [--sparse] [--update]

Writes ``benchmarks/results/train_speed.json`` (after every row).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import RESULTS, sample_pairs, stsb_dev, table, write_json

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "84becc7"


def train_config(path: str, word_dropout: float = 0.3, sparse: bool = False,
                 batch: int = 100, lr: float = 0.001) -> dict:
    """SP 20k at dim 300 with word dropout 0.3, M annealed 1 -> 20, dense Adam (``sparse``:
    ``train.sparse``, SparseAdam on sparse gradients of the table). ``batch`` other than 100
    keeps the mega-batch pool of 2,000 pairs (M up to 2,000 / batch, grown by one every 150
    mini-batches): fewer table updates per pair, the lever of ``benchmarks/train_profile.py``
    (the table's Adam step and backward are two thirds of a 100-pair step)."""
    part = {"name": "sp", "vocab_size": 20_000, "dim": 300, "dropout": 0.0}
    cfg = {"sources": [{"kind": "corpus", "path": path}], "model": {"parts": [part]},
           "megabatch": {"size": max(1, 2000 // batch), "start": 1, "anneal_every": 150},
           "batch_size": batch, "lr": lr, "bilingual": True,
           "vocab_sample": 200_000, "regularisation": {"word_dropout": word_dropout},
           "decontaminate": False}  # the sample is a decontaminate output already
    if sparse:
        cfg["sparse"] = True
    return {"train": cfg}


def worker(spec: dict) -> dict:
    """One epoch of one setting in this process (old or new trainer API)."""
    import numpy as np
    import torch

    from paralib.config import Config
    from paralib.models import ParaphraseModel
    from paralib.train.dev import load_dev
    from paralib.train.epoch import dev_scores
    from paralib.train.run import prepare
    from paralib.train.schedule import megabatch_size
    from paralib.train.steps import MegaBatchTrainer, build_optimizer

    torch.set_num_threads(spec["threads"])
    torch.manual_seed(1)
    cfg = Config.model_validate(spec["config"])
    prepared = prepare(cfg)
    legacy = isinstance(prepared, tuple)
    data, tokenizers = (prepared[0], prepared[2]) if legacy else (prepared.data,
                                                                  prepared.tokenizers)
    model = ParaphraseModel(cfg.train.model, tokenizers)
    model.initialise()
    if legacy:
        optimizer = build_optimizer(model, cfg.train.lr)
        rows = data[["s1", "s2", "group"]]
    else:
        from paralib.train.steps import use_sparse

        optimizer = build_optimizer(model, cfg.train.lr, use_sparse(cfg.train))
        rows = prepared.table(["group"])
    trainer = MegaBatchTrainer(cfg.train, model, optimizer, bilingual=True, seed=1)
    order = np.random.default_rng(1).permutation(len(data))
    batch = cfg.train.batch_size
    take = (lambda idx: rows.iloc[idx]) if legacy else rows.take
    chunks = [take(order[i:i + batch]) for i in range(0, len(order), batch)]
    t0 = time.perf_counter()
    pairs, _ = trainer.train_epoch(chunks)
    seconds = time.perf_counter() - t0
    return {"pairs": pairs, "seconds": seconds, "pairs_per_s": pairs / seconds,
            "stsb_dev": dev_scores(model, load_dev("stsb-dev"))["dev_pearson"],
            "megabatch_end": megabatch_size(trainer.state.step, cfg.train.megabatch)}


def ray_worker(spec: dict) -> dict:
    """One epoch of ``paralib train`` (Ray Train, one worker with ``threads`` CPUs): the rate
    of its training history (the epoch loop, reading the Ray Data shard included)."""
    from paralib.config import Config
    from paralib.train.run import train

    tree = spec["config"]
    out = Path(tempfile.mkdtemp(prefix="paralib-train-speed-ray-"))
    tree["train"].update({"epochs": 1, "workers": 1, "cpus_per_worker": spec["threads"],
                          "output": str(out / "model"), "storage_path": str(out / "runs"),
                          "name": "speed"})
    tree["ray"] = {"num_cpus": spec["threads"]}
    t0 = time.perf_counter()
    summary = train(Config.model_validate(tree), progress=False)
    wall = time.perf_counter() - t0
    epoch = summary.history[0]   # a TrainingSummary (paralib.contracts)
    return {"pairs": epoch["pairs"], "seconds": epoch["seconds"],
            "pairs_per_s": epoch["pairs_per_s"], "stsb_dev": epoch["dev_pearson"],
            "wall_s": wall, "startup_s": wall - epoch["seconds"]}


def st_worker(spec: dict) -> dict:
    import pandas as pd
    import torch

    from benchmarks.st_peer import train_static

    torch.set_num_threads(spec["threads"])
    data = pd.read_parquet(spec["path"])
    model, rate = train_static(data["ref"].tolist(), data["src"].tolist(), loss=spec["loss"],
                               lr=0.01)
    return {"pairs": len(data), "pairs_per_s": rate, "stsb_dev": stsb_dev(model)}


def run(spec: dict, pythonpath: Path) -> dict:
    """``spec`` in a fresh Python process whose ``paralib`` comes from ``pythonpath``."""
    # outside the repository, so that ``paralib`` is the one on ``pythonpath`` and
    # ``benchmarks`` the package of this tree
    env = {**os.environ, "PYTHONPATH": f"{pythonpath}{os.pathsep}{ROOT}"}
    out = subprocess.run([sys.executable, "-m", "benchmarks", "train_speed", "--worker",
                          json.dumps(spec)], env=env, cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, timeout=3600, check=False)
    if out.returncode:
        raise RuntimeError(f"{spec['name']} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def before_tree(ref: str, where: Path) -> Path:
    if not where.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), ref],
                       check=True, capture_output=True)
    return where


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT / "output/bitext-all"))
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--ray-pairs", type=int, nargs="*", default=[])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--before", default=BEFORE)
    ap.add_argument("--skip-before", action="store_true")
    ap.add_argument("--skip-st", action="store_true")
    ap.add_argument("--skip-ray", action="store_true")
    ap.add_argument("--sparse", action="store_true",
                    help="also train.sparse (SparseAdam) in process")
    ap.add_argument("--batch", type=int, nargs="*", default=[], metavar="N",
                    help="also train in process with N pairs a mini-batch (same 2,000-pair "
                    "mega-batch pool) on the largest sample, at lr 0.001 and lr 0.001 x N/100")
    ap.add_argument("--batch-ray", action="store_true",
                    help="also run each --batch as paralib train on Ray Train (lr 0.001)")
    ap.add_argument("--skip-base", action="store_true",
                    help="leave out the in-process rows at batch 100 (with --update: keep them)")
    ap.add_argument("--update", action="store_true",
                    help="keep the rows of the JSON already written, replacing those of the "
                    "settings run again (a rerun of some rows at a quieter time)")
    ap.add_argument("--worker")
    args = ap.parse_args(argv)
    if args.worker:
        spec = json.loads(args.worker)
        run_one = st_worker if spec.get("st") else ray_worker if spec.get("ray") else worker
        print(json.dumps(run_one(spec)))
        return
    tmp = Path(tempfile.mkdtemp(prefix="paralib-train-speed-"))
    path = tmp / "pairs.parquet"
    sample_pairs(Path(args.data), args.pairs, path)
    tree = None if args.skip_before else before_tree(args.before, tmp / "before")
    base = not args.skip_base   # the in-process rows at batch 100
    settings = [("after, in process", ROOT, {"config": train_config(str(path))})] if base else []
    if args.sparse and base:
        settings.append(("after, in process, train.sparse (SparseAdam)", ROOT,
                         {"config": train_config(str(path), sparse=True)}))
    if tree and base:
        settings.append((f"before ({args.before}), in process", tree,
                         {"config": train_config(str(path))}))
    if not args.skip_ray:
        settings.append(("after, paralib train on Ray Train", ROOT,
                         {"ray": True, "config": train_config(str(path))}))
    if tree and not args.skip_ray:
        settings.append((f"before ({args.before}), paralib train on Ray Train", tree,
                         {"ray": True, "config": train_config(str(path))}))
    if not args.skip_st:
        for loss in ("mnrl", "megabatch"):
            settings.append((f"st StaticEmbedding {loss}", ROOT,
                             {"st": True, "loss": loss, "path": str(path)}))
    biggest, size = path, f"{args.pairs:,} pairs"   # the largest sample, for --batch
    for n in args.ray_pairs:
        more = sample_pairs(Path(args.data), n, tmp / f"pairs-{n}.parquet")
        if n >= max(args.ray_pairs):
            biggest, size = more, f"{n:,} pairs"
        if base:
            settings.append((f"after, in process, {n:,} pairs", ROOT,
                             {"config": train_config(str(more))}))
        if not args.skip_ray:
            settings.append((f"after, paralib train on Ray Train, {n:,} pairs", ROOT,
                             {"ray": True, "config": train_config(str(more))}))
    for b in args.batch:
        for lr in (0.001, 0.001 * b / 100):
            settings.append((f"after, in process, {size}, batch {b}, lr {lr:g}", ROOT,
                             {"config": train_config(str(biggest), batch=b, lr=lr)}))
        if args.batch_ray:
            settings.append((f"after, paralib train on Ray Train, {size}, batch {b}, lr 0.001",
                             ROOT, {"ray": True, "config": train_config(str(biggest), batch=b)}))
    rows: list[dict] = []
    if args.update and (RESULTS / "train_speed.json").exists():
        again = {name for name, _, _ in settings}
        rows = [r for r in json.loads((RESULTS / "train_speed.json").read_text())["rows"]
                if r["setting"] not in again]
    try:
        for name, where, spec in settings:
            load = os.getloadavg()
            result = run({**spec, "name": name, "threads": args.threads}, where)
            rows.append({"setting": name, **result, "load_before": load,
                         "load_after": os.getloadavg()})
            print(f"{name}: {result['pairs_per_s']:,.0f} pairs/s, STSB dev "
                  f"{result['stsb_dev']:.1f}, load {load[0]:.1f}", flush=True)
            write_json("train_speed", {
                "threads": args.threads, "pairs": args.pairs,
                "before_commit": args.before, "rows": rows})
    finally:
        if (tmp / "before").exists():   # the worktree this run added, and only it
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tmp / "before")], check=False, capture_output=True)
    print(table([{"setting": r["setting"], "pairs": r["pairs"],
                  "pairs/s": f"{r['pairs_per_s']:,.0f}", "STSB dev": f"{r['stsb_dev']:.1f}",
                  "start-up s": f"{r['startup_s']:.1f}" if "startup_s" in r else "",
                  "M at end": r.get("megabatch_end", ""),
                  "load": f"{r['load_before'][0]:.1f}"} for r in rows],
                ["setting", "pairs", "pairs/s", "STSB dev", "M at end", "start-up s", "load"]))
