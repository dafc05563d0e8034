"""All the bitext at once, in flat memory.

Runs ``paralib decontaminate --config configs/bitext-all.yaml`` (every pair of WMT news, the
Tatoeba Challenge, NTREX-128 and TICO-19, and the Bible-version pairs) on the first 10 % of
every file pair and then on all of it, each in a fresh process with a fresh embedded Ray and
its own output folder, both in shards of ``--shard-rows`` (2,000) rows so that a worker
handles blocks of one size, and samples the memory of the driver and of every process under
it (Ray's workers, raylet and GCS) every 0.2 s. Prints wall time, rows/s, peak RSS of the driver
and of the largest single process below it, and the ratio of the 100 % peaks to the 10 %
ones (goal: at most 1.2). Writes ``benchmarks/results/scale.json``.

    python -m benchmarks scale                      # 10 % and 100 %
    python -m benchmarks scale --fractions 0.01     # a quick look
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import TreeRSS, table, write_json
from paralib.paths import PROJECT_ROOT

CONFIG = PROJECT_ROOT / "configs" / "bitext-all.yaml"
CORPORA = ("wmt-news", "tatoeba-challenge", "ntrex-128", "tico-19", "bible-versions")


def run(fraction: float, out: Path, verbose: bool, shard_rows: int) -> dict:
    """One ``paralib decontaminate`` of ``fraction`` of every file pair into ``out``."""
    corpora = [{"name": n, "fraction": fraction} if fraction < 1 else {"name": n}
               for n in CORPORA]
    cmd = [sys.executable, "-m", "paralib", "decontaminate", "--config", str(CONFIG),
           "--no-progress", "--set", f"bitext.corpora={json.dumps(corpora)}",
           "--set", f"decontaminate.output={out}", "--set", f"bitext.shard_rows={shard_rows}"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, stdout=subprocess.PIPE,
                            stderr=None if verbose else subprocess.DEVNULL, text=True)
    with TreeRSS(proc.pid) as rss:
        stdout, _ = proc.communicate()
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"paralib decontaminate failed ({proc.returncode}):\n{stdout}")
    summary = json.loads((out / "_summary.json").read_text())
    return {
        "fraction": fraction, "shard_rows": shard_rows, "rows_in": summary["rows_in"],
        "rows_out": summary["rows_out"],
        "rows_rejected": summary["rows_rejected"], "shards": summary["shards"],
        "seconds": round(seconds, 1), "stage_seconds": round(summary["seconds"], 1),
        "rows_per_s": round(summary["rows_in"] / seconds),
        "driver_peak_mb": round(rss.driver / 2**20), "largest_process_mb":
        round(rss.largest / 2**20), "largest_process": rss.largest_name,
        "all_processes_peak_mb": round(rss.total / 2**20),
        "reasons": summary["reasons"], "stdout": stdout.strip().splitlines()[-3:],
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fractions", type=float, nargs="+", default=[0.1, 1.0])
    ap.add_argument("--keep", default=None, help="keep the outputs under this folder")
    ap.add_argument("--verbose", action="store_true", help="show the job's own logs")
    ap.add_argument("--shard-rows", type=int, default=2000,
                    help="rows per shard in both runs (default 2,000): equal shards, so that "
                    "a worker's memory compares like with like")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="paralib-scale-") as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        for f in args.fractions:
            rows.append(run(f, base / f"frac-{f:g}", args.verbose, args.shard_rows))
            print(table(rows[-1:], ["fraction", "rows_in", "seconds", "rows_per_s",
                                    "driver_peak_mb", "largest_process_mb"]), flush=True)
    cols = ["fraction", "rows_in", "rows_out", "rows_rejected", "seconds", "rows_per_s",
            "driver_peak_mb", "largest_process_mb", "all_processes_peak_mb"]
    print(table(rows, cols))
    ratios = {}
    if len(rows) >= 2:
        small, big = rows[0], rows[-1]
        ratios = {k: round(big[k] / small[k], 2) for k in
                  ("driver_peak_mb", "largest_process_mb", "all_processes_peak_mb")}
        print(f"peak RSS at {big['fraction']:g} / at {small['fraction']:g}: " + ", ".join(
            f"{k} {v}" for k, v in ratios.items()) + " (goal: at most 1.2)")
    path = write_json("scale", {"config": str(CONFIG.relative_to(
        PROJECT_ROOT)), "runs": rows, "ratios": ratios})
    print(f"wrote {path}")
