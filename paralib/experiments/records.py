"""Kept run records: the results of finished runs, committed beside the results book.

A run's working folder (``OUT/NAME/SIZE/runs/RUN/``: its ``run.json``, model, selection and
Ray Train checkpoints) lives on the machine that made it. The full sizes of issue 7 take more
hours than one machine is held for, so the runner also keeps each finished run's record
(``run.json``: fingerprints, training summary, evaluation results, seconds, when and where it
was made) in ``docs/results/runs/NAME/SIZE/RUN.json``. Those files are committed with the
book: a later invocation on another machine reuses a kept run whose fingerprints match without
its model, so an experiment can be made a few runs at a time (``--only``) and its section
written once every run is there. A kept record is results, never a model: a changed run, a
failed one and a tuned run's single candidates are made again.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from paralib.experiments.spec import DEFAULT_OUT, Experiment, ExperimentError
from paralib.paths import PROJECT_ROOT

RECORDS = PROJECT_ROOT / "docs" / "results" / "runs"


def complete(record: dict[str, Any] | None, train_key: str, eval_key: str) -> bool:
    """Whether ``record`` is a finished run with these training and evaluation fingerprints
    (its results can stand for the run without its model)."""
    return bool(record) and record.get("status") == "ok" and "results" in record and \
        record.get("train_key") == train_key and record.get("eval_key") == eval_key


class RecordStore:
    """The kept records of one experiment at one size, a JSON file per run (``None`` folder:
    keep nothing)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def path(self, run_folder: Path) -> Path | None:
        """Where the record of the run in ``run_folder`` is kept (named by its slug)."""
        return self.folder / f"{run_folder.name}.json" if self.folder else None

    def read(self, run_folder: Path) -> dict[str, Any] | None:
        """The kept record of that run, or ``None`` (none kept, or unreadable)."""
        path = self.path(run_folder)
        if path is None or not path.is_file():
            return None
        try:
            return json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            return None

    def keep(self, run_folder: Path, record: dict[str, Any]) -> None:
        """Keep a finished run's record (others are not kept: they are made again), less
        whether this invocation reused it, so that reusing it leaves the file as it was."""
        path = self.path(run_folder)
        if path is None or record.get("status") != "ok" or "results" not in record:
            return
        kept = {key: value for key, value in record.items() if key != "reused"}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(kept, indent=2, sort_keys=True, default=str) + "\n")


def selected(name: str, only: Sequence[str]) -> bool:
    """Whether run ``name`` is one the ``--only`` globs ask for (no globs: every run)."""
    return not only or any(fnmatch.fnmatchcase(name, pattern) for pattern in only)


def kept_runs(exp: Experiment, size: str, root: Path = RECORDS) -> tuple[int, int]:
    """How many of ``exp``'s runs at ``size`` have a kept record with their current
    fingerprints, and how many runs it makes at that size (``(0, 0)`` when its configs do
    not validate here)."""
    from paralib.experiments.plan import plan_runs

    try:
        plans = plan_runs(exp, size, Path(DEFAULT_OUT) / exp.name / size)
    except ExperimentError:
        return 0, 0
    plans = [p for p in plans if not p.skipped and not p.report]
    store = RecordStore(root / exp.name / size)
    return sum(complete(store.read(p.folder), p.train_key, p.eval_key) for p in plans), \
        len(plans)
