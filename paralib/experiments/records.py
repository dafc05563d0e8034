"""Kept run records: the results of finished runs, committed beside the results book.

A run's working folder (``OUT/NAME/SIZE/runs/RUN/``: its ``run.json``, model, selection and
Ray Train checkpoints) lives on the machine that made it. The full sizes of the tables take more
hours than one machine is held for, so the runner also keeps each finished run's record
(``run.json``: fingerprints, training summary, evaluation results, seconds, when and where it
was made) in ``docs/results/runs/NAME/SIZE/RUN.json``. Those files are committed with the
book: a later invocation on another machine reuses a kept run whose fingerprints match without
its model, so an experiment can be made a few runs at a time (``--only``) and its section
written once every run is there. A tuned run's candidates are kept too
(``RUN/tune/CANDIDATE.json``: their dev scores), so its grid can be spread over machines; the
candidate it chooses is trained again where its model is not on this machine, to be
evaluated. A kept record is results, never a model: a changed run and a failed one are made
again.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from paralib.contracts import RunRecord
from paralib.paths import PROJECT_ROOT

RECORDS = PROJECT_ROOT / "docs" / "results" / "runs"
RECORD = "run.json"  # a run's record in its working folder

Records = dict[str, RunRecord]  # run name -> its record
AnyRecords = Mapping[str, RunRecord | Mapping[str, Any]]  # the same, or their dumps


def as_records(records: AnyRecords) -> Records:
    """Run name → :class:`RunRecord` (what the table, the section and the plot read) from
    records or their dumps."""
    return {name: RunRecord.load(record) for name, record in records.items()}


def record_of(records: Records, run: str) -> RunRecord:
    """The record of ``run`` named so (a run without one was not made: ``skipped``)."""
    record = records.get(run)
    record = RunRecord(status="skipped") if record is None else record
    return record if record.name else record.model_copy(update={"name": run})


def read_record(path: Path) -> RunRecord | None:
    """The run record in ``path`` (migrated to the current contract), ``None`` when there is
    none or it cannot be read (a run made again)."""
    try:
        return RunRecord.load(json.loads(path.read_text()))
    except (OSError, ValueError):
        return None


def write_record(run_folder: Path, record: RunRecord, store: RecordStore) -> None:
    """Write a run's record to its folder's ``run.json`` and keep it in ``store``."""
    run_folder.mkdir(parents=True, exist_ok=True)
    (run_folder / RECORD).write_text(json.dumps(record.dump(), indent=2, default=str))
    store.keep(run_folder, record)


class RecordStore:
    """The kept records of one experiment at one size, a JSON file per run or candidate
    (``None`` folder: keep nothing). ``runs`` is the folder of the run folders
    (``OUT/NAME/SIZE/runs``): a record's file is its run folder's path under it."""

    def __init__(self, folder: Path | None, runs: Path | None = None) -> None:
        self.folder, self.runs = folder, runs

    @classmethod
    def of(cls, root: Path, exp: str, size: str, out: Path) -> RecordStore:
        """The store of experiment ``exp`` at ``size``: records under ``root/NAME/SIZE``, for
        the run folders the runner makes under ``out/NAME/SIZE/runs``."""
        return cls(root / exp / size, out / exp / size / "runs")

    def path(self, run_folder: Path) -> Path | None:
        """Where the record of the run (or candidate) in ``run_folder`` is kept."""
        if self.folder is None:
            return None
        inside = self.runs is not None and run_folder.is_relative_to(self.runs)
        rel = run_folder.relative_to(self.runs) if inside else Path(run_folder.name)
        return self.folder / rel.parent / f"{rel.name}.json"

    def read(self, run_folder: Path) -> RunRecord | None:
        """The kept record of that run, or ``None`` (none kept, or unreadable)."""
        path = self.path(run_folder)
        return None if path is None else read_record(path)

    def keep(self, run_folder: Path, record: RunRecord | dict[str, Any]) -> None:
        """Keep a finished run's record, or a trained candidate's (others are not kept: they
        are made again), less whether this invocation reused it; a file that already holds
        that record is not written again, so reusing a run leaves it untouched."""
        path = self.path(run_folder)
        record = RunRecord.load(record)
        if path is None or record.status != "ok" or not (record.results or record.train):
            return
        kept = {key: value for key, value in record.dump().items() if key != "reused"}
        text = json.dumps(kept, indent=2, sort_keys=True, default=str) + "\n"
        if path.is_file() and path.read_text() == text:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def selected(name: str, only: Sequence[str]) -> bool:
    """Whether run ``name`` is one the ``--only`` globs ask for (no globs: every run)."""
    return not only or any(fnmatch.fnmatchcase(name, pattern) for pattern in only)
