"""Training speed of the averaging encoders on real bitext: ``paralib train``'s one engine on
Ray Train and in process (its Ray-free mode), with its start-up and where the start-up goes,
and optionally the trainer of ``--before`` and sentence-transformers' ``StaticEmbedding`` on
the same pairs and cores, with the STS Benchmark dev score each reaches.

Pairs: ``--pairs`` (1,000,000) drawn with seed 0 from a ``paralib decontaminate`` output
(``--data``, default ``output/bitext-all``: ``paralib decontaminate --config
configs/bitext-all.yaml``): news, Tatoeba Challenge, NTREX, TICO English-other pairs and
Bible-version English pairs. Every setting trains one epoch in a fresh process with
``--threads`` (2) CPUs: SP 20,000 pieces (fitted on the first 200,000 sentences), dim 300,
word dropout 0.3, margin loss (δ 0.4) with group-aware hardest negatives from the other side,
mega-batch annealed from 1 to 20 (+1 every 150 mini-batches), batch 100, dense Adam 0.001.

- ``paralib train on Ray Train``: ``paralib train`` (an embedded Ray with ``--threads`` CPUs,
  one worker with all of them); ``in process``: the same call with ``engine: local``. The
  rate (``pairs/s``) is pairs / seconds of the epoch loop (mining, forward, backward, update,
  reading the worker's batches), not the dev score; it includes the mega-batch warm-up (M
  reaches 20 after 285,000 pairs), so the steady rate is a little higher. ``start-up s`` is
  the whole call minus the epoch: Ray start, preparing the pairs (reading, grouping,
  tokeniser fitting, tokenising), shipping them to the worker, the worker group, the dev
  score, the checkpoint and the model folder; ``timings`` splits it (``ray_init`` and
  ``prepare`` overlap: the pairs are prepared while Ray starts, so ``ray_init`` is what Ray
  took and ``prepare`` what was left of preparing after it).
- ``--batch N ...``: the same two rows with N pairs a mini-batch (the mega-batch pool stays
  2,000 pairs): fewer, larger steps, a documented config choice (``train.batch_size``) that
  changes the model, so its STSB dev stands beside batch 100's.
- ``--before REF``: in-process and Ray rows of the trainer of commit REF (a ``git worktree``).
- ``--st``: ``st mnrl`` / ``st megabatch``, :mod:`st_peer` (WordPiece 20,000, dim 300, lr 0.01).

Every row records the load average before and after it (the cores may be shared), its date
and commit. The rows of earlier runs stay in ``benchmarks/results/train_speed.json`` for
comparison (a setting run again replaces its row).

    python -m benchmarks train_speed [--pairs 1000000] [--threads 2] [--batch 400]
        [--skip-ray] [--skip-local] [--skip-base] [--before REF] [--st] [--sparse]
"""

from __future__ import annotations

import argparse
import inspect
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


def engine_worker(spec: dict) -> dict:
    """One epoch of ``paralib train`` on Ray Train (``engine: ray``: one worker with
    ``threads`` CPUs) or in process (``local``), timed from the call: the epoch's rate from
    the training history, the start-up (the call minus the epoch) and its phases."""
    import paralib.train.run as run
    from paralib.config import Config
    from paralib.train.config import TrainConfig
    from paralib.train.schedule import megabatch_size

    tree = spec["config"]
    out = Path(tempfile.mkdtemp(prefix="paralib-train-speed-"))
    tree["train"].update({"epochs": spec.get("epochs", 1), "workers": 1,
                          "cpus_per_worker": spec["threads"], "use_gpu": spec.get("gpu", False),
                          "output": str(out / "model"), "storage_path": str(out / "runs"),
                          "name": "speed"})
    tree["ray"] = {"num_cpus": spec["threads"]}
    cfg = Config.model_validate(tree)
    # train(section, ctx), or in a tree from before the stage context train(cfg, progress)
    staged = "ctx" in inspect.signature(run.train).parameters
    args = (cfg.train, run.StageContext.of(cfg, progress=False)) if staged else (cfg,)
    t0 = time.perf_counter()
    if spec["engine"] == "ray":
        summary = run.train(*args) if staged else run.train(cfg, progress=False)
    elif hasattr(run, "train_local"):   # a tree from before the one engine
        summary = run.train_local(cfg)
    else:
        summary = run.train(*args, engine="local")
    wall = time.perf_counter() - t0
    epoch = summary.history[-1]   # a TrainingSummary (paralib.contracts): the last epoch's rate
    megabatch = TrainConfig.model_validate(tree["train"]).megabatch
    return {"pairs": epoch["pairs"], "seconds": epoch["seconds"],
            "pairs_per_s": epoch["pairs_per_s"], "stsb_dev": epoch["dev_pearson"],
            "megabatch_end": megabatch_size(epoch["step"], megabatch),
            "wall_s": wall,
            "startup_s": wall - sum(e["seconds"] for e in summary.history),
            "timings": dict(getattr(summary, "timings", None) or {})}


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
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(pythonpath), str(ROOT), os.environ.get("PYTHONPATH")) if p)}
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


def settings(args: argparse.Namespace, path: Path, tmp: Path) -> list[tuple[str, Path, dict]]:
    """``(name, tree, spec)`` of every setting the arguments ask for."""
    size = f"{args.pairs:,} pairs" + (", GPU" if args.gpu else "") + (
        f", epoch {args.epochs} of {args.epochs}" if args.epochs > 1 else "")
    out: list[tuple[str, Path, dict]] = []
    trees = [("", ROOT)]
    if args.before:
        trees.append((f"before ({args.before}), ", before_tree(args.before, tmp / "before")))
    for prefix, tree in trees:
        for b in ([] if args.skip_base else [100]) + args.batch:
            config = train_config(str(path), batch=b)
            if not args.skip_local:
                out.append((f"{prefix}paralib train, in process, {size}, batch {b}", tree,
                            {"engine": "local", "config": config}))
            if not args.skip_ray:
                out.append((f"{prefix}paralib train on Ray Train, {size}, batch {b}", tree,
                            {"engine": "ray", "config": config}))
    if args.sparse:
        out.append((f"paralib train, in process, {size}, batch 100, train.sparse (SparseAdam)",
                    ROOT, {"engine": "local", "config": train_config(str(path), sparse=True)}))
    if args.st:
        for loss in ("mnrl", "megabatch"):
            out.append((f"st StaticEmbedding {loss}, {size}", ROOT,
                        {"st": True, "loss": loss, "path": str(path)}))
    return out


def show(rows: list[dict]) -> str:
    """The table of every row, earlier runs' included."""
    return table([{"setting": r["setting"], "pairs": f"{r['pairs']:,}",
                   "pairs/s": f"{r['pairs_per_s']:,.0f}", "STSB dev": f"{r['stsb_dev']:.1f}",
                   "start-up s": f"{r['startup_s']:.1f}" if "startup_s" in r else "",
                   "M at end": r.get("megabatch_end", ""),
                   "load": f"{r['load_before'][0]:.1f}", "date": r.get("date", "")}
                  for r in rows],
                 ["setting", "pairs", "pairs/s", "STSB dev", "M at end", "start-up s", "load",
                  "date"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT / "output/bitext-all"))
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, nargs="*", default=[], metavar="N",
                    help="also train with N pairs a mini-batch (same 2,000-pair mega-batch "
                    "pool, lr 0.001)")
    ap.add_argument("--skip-local", action="store_true", help="leave out the in-process rows")
    ap.add_argument("--skip-base", action="store_true",
                    help="leave out the batch 100 rows (their earlier rows stay)")
    ap.add_argument("--skip-ray", action="store_true", help="leave out the Ray Train rows")
    ap.add_argument("--before", metavar="REF", help=f"also the trainer of commit REF (the "
                    f"earlier rows: {BEFORE})")
    ap.add_argument("--st", action="store_true", help="also sentence-transformers' peers")
    ap.add_argument("--sparse", action="store_true",
                    help="also train.sparse (SparseAdam) in process")
    ap.add_argument("--gpu", action="store_true",
                    help="train on the GPU (train.use_gpu; one Ray Train worker with one GPU)")
    ap.add_argument("--epochs", type=int, default=1,
                    help="train N epochs and report the last one's rate (the steady state)")
    ap.add_argument("--name", default="train_speed",
                    help="results file benchmarks/results/NAME.json (e.g. train_speed-h200)")
    ap.add_argument("--worker")
    args = ap.parse_args(argv)
    if args.worker:
        spec = json.loads(args.worker)
        print(json.dumps(st_worker(spec) if spec.get("st") else engine_worker(spec)))
        return
    tmp = Path(tempfile.mkdtemp(prefix="paralib-train-speed-"))
    path = sample_pairs(Path(args.data), args.pairs, tmp / "pairs.parquet")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()
    old = RESULTS / f"{args.name}.json"
    earlier = json.loads(old.read_text()) if old.exists() else {}
    rows: list[dict] = earlier.get("rows", [])
    try:
        for name, where, spec in settings(args, path, tmp):
            load = os.getloadavg()
            result = run({**spec, "name": name, "threads": args.threads, "gpu": args.gpu,
                          "epochs": args.epochs}, where)
            rows = [r for r in rows if r["setting"] != name]
            rows.append({"setting": name, **result, "load_before": load,
                         "load_after": os.getloadavg(), "date": time.strftime("%Y-%m-%d"),
                         "commit": commit})
            print(f"{name}: {result['pairs_per_s']:,.0f} pairs/s, STSB dev "
                  f"{result['stsb_dev']:.1f}, start-up {result.get('startup_s', 0):.1f} s, "
                  f"load {load[0]:.1f}", flush=True)
            write_json(args.name, {"threads": args.threads, "pairs": args.pairs,
                                       "before_commit": earlier.get("before_commit", BEFORE),
                                       "rows": rows})
    finally:
        if (tmp / "before").exists():   # the worktree this run added, and only it
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tmp / "before")], check=False, capture_output=True)
    print(show(rows))
