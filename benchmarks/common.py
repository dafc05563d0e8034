"""Shared helpers of the benchmark scripts: machine facts, memory sampling, tables, and the one
result format (:func:`stamp`, :func:`write_json`): what ran (``benchmark``, ``command``), on
what (``machine``), when (``date``) and under what load (``load_average`` before and after),
then the script's own figures and ``rows``."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shlex
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

RESULTS = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Run:
    """The benchmark being run: its name, its command line and the load average at its start."""

    name: str
    command: str
    load_before: tuple[float, float, float]


_run: Run | None = None


def begin(name: str, argv: list[str]) -> Run:
    """Record that ``python -m benchmarks NAME ARGV`` starts now (:mod:`benchmarks.__main__`)."""
    global _run
    _run = Run(name, shlex.join(["python", "-m", "benchmarks", name, *argv]),
               tuple(round(x, 2) for x in os.getloadavg()))
    return _run


def stamp(payload: dict) -> dict:
    """``payload`` under the header every result file starts with: ``benchmark``, ``command``,
    ``machine``, ``date`` and ``load_average`` (1, 5 and 15-minute averages ``before`` the run
    and ``after`` it, now). A key of ``payload`` wins over the header's (a merge of parts keeps
    the machine they ran on). Outside :func:`begin` the command is this process's and the load
    before is not known (``null``)."""
    facts = machine()
    header = {
        "benchmark": _run.name if _run else Path(sys.argv[0]).stem,
        "command": _run.command if _run else shlex.join(sys.argv),
        "machine": facts,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "load_average": {"before": list(_run.load_before) if _run else None,
                         "after": [round(x, 2) for x in os.getloadavg()]},
    }
    return {**header, **payload}


def machine() -> dict:
    """What the numbers were measured on."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import importlib.metadata

    import torch

    def version(package: str) -> str | None:
        """The installed version of ``package``; None where it is not installed (a GPU
        machine that runs only the in-process trainer has no Ray or CTranslate2)."""
        try:
            return importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            return None

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "ray": version("ray"),
        "ctranslate2": version("ctranslate2"),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "date": time.strftime("%Y-%m-%d"),
    }


class TreeRSS:
    """Samples the RSS of one process and of every process below it (Ray's workers, raylet
    and GCS too): each process's peak (``peaks``: pid -> (bytes, name)), the peak of the
    process itself (``driver``), of the largest single process below it (``largest``, named
    ``largest_name``) and of their sum (``total``). ``name`` names a process (default: its
    command's first word); a Ray worker keeps the name of the actor it served once it is
    idle again (``ray::IDLE`` never replaces a name)."""

    def __init__(self, pid: int, interval: float = 0.2,
                 name: Callable[[psutil.Process], str] | None = None):
        self.proc = psutil.Process(pid)
        self.interval = interval
        self.name = name or (lambda p: " ".join(p.cmdline()[:1]))
        self.peaks: dict[int, tuple[int, str]] = {}
        self.total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(psutil.Error):
                total = 0
                for proc in [self.proc, *self.proc.children(recursive=True)]:
                    with contextlib.suppress(psutil.Error):
                        rss = proc.memory_info().rss
                        total += rss
                        old, label = self.peaks.get(proc.pid, (0, ""))
                        now = self.name(proc)
                        self.peaks[proc.pid] = (max(old, rss),
                                                label if now == "ray::IDLE" and label else now)
                self.total = max(self.total, total)
            time.sleep(self.interval)

    @property
    def driver(self) -> int:
        """Peak RSS of the sampled process itself, in bytes."""
        return self.peaks.get(self.proc.pid, (0, ""))[0]

    def _largest(self) -> tuple[int, str]:
        others = [v for pid, v in self.peaks.items() if pid != self.proc.pid]
        return max(others, default=(0, ""))

    @property
    def largest(self) -> int:
        """Peak RSS of the largest single process below the sampled one, in bytes."""
        return self._largest()[0]

    @property
    def largest_name(self) -> str:
        """The name of that process."""
        return self._largest()[1]

    def __enter__(self) -> TreeRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


class PeakRSS(TreeRSS):
    """Peak summed RSS of this process and all its descendants (Ray workers too)."""

    def __init__(self, interval: float = 0.2):
        super().__init__(os.getpid(), interval)

    @property
    def peak(self) -> int:
        """Peak summed RSS in bytes."""
        return self.total

    @property
    def peak_mb(self) -> float:
        """Peak summed RSS in MiB."""
        return round(self.peak / 2**20, 1)


def table(rows: list[dict], columns: list[str]) -> str:
    """A plain-text table of ``rows``."""
    widths = [max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in columns]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    for r in rows:
        out.append("  ".join(str(r.get(c, "")).ljust(w) for c, w in zip(columns, widths,
                                                                         strict=True)))
    return "\n".join(out)


def model_folders(parser, specs: list[str]) -> dict[str, Path]:
    """``--model NAME=DIR`` values as ``{name: folder}``; ``parser.error`` (exit 2) names a
    value that is not NAME=DIR with an existing folder."""
    folders: dict[str, Path] = {}
    for spec in specs:
        name, sep, folder = spec.partition("=")
        if not sep or not Path(folder).is_dir():
            parser.error(f"--model {spec}: expected NAME=DIR with an existing model folder")
        folders[name] = Path(folder)
    return folders


def write_json(name: str, payload: dict) -> Path:
    """Write ``benchmarks/results/<name>.json`` (or ``name``, a path of its own, with
    ``.json`` added unless it ends so) as :func:`stamp` makes it."""
    path = RESULTS / (name if str(name).endswith(".json") else f"{name}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stamp(payload), indent=2))
    return path


def sample_pairs(corpus: Path, n: int, out: Path) -> Path:
    """``n`` pairs (all, when fewer) drawn with seed 0 from a ``paralib decontaminate``
    output folder or a Parquet file of its columns (``ref``, ``src``, ``src_lang``, ``group``),
    written to ``out``."""
    import numpy as np
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    source = corpus / "data" if corpus.is_dir() else corpus
    if not source.exists():
        raise SystemExit(f"{corpus} is not a paralib decontaminate output; make it with "
                         "`paralib decontaminate --config configs/bitext-all.yaml`")
    whole = ds.dataset(source, format="parquet").to_table(
        columns=["ref", "src", "src_lang", "group"])
    idx = np.sort(np.random.default_rng(0).choice(whole.num_rows, min(n, whole.num_rows),
                                                  replace=False))
    pq.write_table(whole.take(idx), out)
    return out


def stsb_dev(model) -> float:
    """STS Benchmark dev Pearson's r x 100 of a model with ``encode(sentences)``."""
    from paralib.evaluate.encoders import unit_rows
    from paralib.train.dev import load_dev, pearson

    dev = load_dev("stsb-dev")
    a, b = unit_rows(model.encode(dev.a)), unit_rows(model.encode(dev.b))
    return pearson((a * b).sum(1), dev.gold)
