"""Peak resident memory of ``paralib quickstart``, per process: the driver, Ray's own
processes (GCS, raylet, dashboard) and every worker, each with its peak and the stage it
served. The quickstart runs in a fresh folder (nothing reused from an earlier run)."""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from benchmarks.common import TreeRSS, table, write_json

PROJECT = Path(__file__).resolve().parents[1]


def role(proc: psutil.Process, driver: int) -> str:
    """What a process is: ``driver``, a Ray process by name, or a worker by its title."""
    if proc.pid == driver:
        return "driver"
    cmd = proc.cmdline()
    title = cmd[0] if cmd else proc.name()
    if title.startswith("ray::"):
        return title
    for name in ("gcs_server", "raylet", "dashboard", "log_monitor", "monitor.py",
                 "runtime_env/agent", "dashboard_agent"):
        if any(name in part for part in cmd[:3]):
            return name
    return " ".join(Path(c).name for c in cmd[:2]) or proc.name()


def main(argv: list[str] | None = None) -> None:
    """Run the quickstart once in a fresh folder and write ``quickstart_memory.json``."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks quickstart_memory",
                                 description=__doc__)
    ap.add_argument("--out", default="quickstart_memory", help="result name")
    ap.add_argument("--top", type=int, default=8, help="processes listed")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="paralib-qs-mem-") as tmp:
        env = {**os.environ, "PARALIB_DATA": os.environ.get(
            "PARALIB_DATA", str(PROJECT.parent / "shared" / "data"))}
        cmd = [sys.executable, "-m", "paralib", "quickstart", "--no-progress",
               "--config", str(PROJECT / "configs" / "quickstart.yaml")]
        start = time.time()
        proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        with TreeRSS(proc.pid, 0.25, name=lambda p: role(p, proc.pid)) as rss:
            output, _ = proc.communicate()
        seconds = time.time() - start
    if proc.returncode != 0:
        raise SystemExit(f"quickstart failed (exit {proc.returncode}):\n{output[-3000:]}")
    # what `/usr/bin/time -v` calls the maximum resident set size: the largest single process
    # among the reaped descendants (Linux reports kilobytes)
    maxrss_mb = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    rows = sorted(({"pid": pid, "process": label, "peak_mb": round(peak / 2**20)}
                   for pid, (peak, label) in rss.peaks.items()), key=lambda r: -r["peak_mb"])
    driver = next(r for r in rows if r["process"] == "driver")
    workers = [r for r in rows if r["process"] != "driver"]
    print(table(rows[:args.top], ["process", "pid", "peak_mb"]))
    print(f"driver {driver['peak_mb']} MB, largest other {workers[0]['process']} "
          f"{workers[0]['peak_mb']} MB, sum {round(rss.total / 2**20)} MB, "
          f"max RSS of a reaped process {maxrss_mb} MB, {seconds:.0f} s")
    write_json(args.out, {"seconds": round(seconds, 1), "driver_peak_mb": driver["peak_mb"],
                          "largest_other": workers[0], "sum_peak_mb": round(rss.total / 2**20),
                          "children_maxrss_mb": maxrss_mb,
                          "rows": rows[:args.top]})
