"""``run_experiment``: make an experiment's runs, evaluate them, write its results section.

Each run lives in ``OUT/NAME/SIZE/runs/RUN/``: ``run.json`` (status, fingerprints, training
summary, evaluation results, seconds), ``model/`` and, for runs that select their pairs,
``selection/``. A rerun reuses a run whose fingerprints match (the training one covers the
whole validated config and the engine; the evaluation one the suites and settings), so a
killed experiment resumes and a changed run is redone alone. A run whose inputs are missing or
that fails is recorded with the reason and the others go on. Finished runs' records are also
kept beside the book (:mod:`paralib.experiments.records`), so that a run finished on one
machine is reused on another without its model, and ``only`` makes some runs now and the rest
later (the section is written once none is left).

A tuned run (2017 §5.5-5.7, :mod:`paralib.experiments.tuned`) makes one model per candidate in
``RUN/tune/CANDIDATE/`` (each with its own ``run.json``, reused the same way), keeps the one
with the best dev score and evaluates it; a run with ``properties`` measures them on its data
after training (:mod:`paralib.experiments.overlap`). Cells over several runs are computed when
the table is built (:mod:`paralib.experiments.aggregate`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shlex
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from paralib.contracts import Made, RunRecord, RunSetup
from paralib.experiments.book import write_section
from paralib.experiments.lock import run_lock
from paralib.experiments.needs import unmet_all
from paralib.experiments.plan import RunPlan, plan_runs
from paralib.experiments.plots import plot_experiment
from paralib.experiments.records import (
    RECORD,
    RECORDS,
    RecordStore,
    read_record,
    selected,
    write_record,
)
from paralib.experiments.render import RunInfo, render_section
from paralib.experiments.spec import (
    DEFAULT_OUT,
    SIZES,
    Experiment,
    ExperimentError,
    NotRunnable,
    load_experiment,
)
from paralib.experiments.table import TableData, build_table
from paralib.experiments.tuned import make_tuned, making
from paralib.paths import PROJECT_ROOT
from paralib.runs import run

log = logging.getLogger(__name__)

BOOK = PROJECT_ROOT / "docs" / "RESULTS.md"
# set by the runner for every run (its own folders), after the overrides
RUNNER_KEYS = frozenset({"train.output", "train.name", "train.storage_path", "select.output"})
PLOTS = PROJECT_ROOT / "docs" / "results" / "experiments"


@dataclass
class ExperimentResult:
    """What one invocation did: the records by run, the table, where it wrote."""

    experiment: Experiment
    size: str
    records: dict[str, RunRecord]
    table: TableData
    seconds: float
    results: Path
    plot: Path | None
    written: bool = True

    @property
    def held(self) -> list[str]:
        """Runs left for a later invocation (not among ``only``, and not made before)."""
        return [n for n, r in self.records.items() if r.status == "held"]

    @property
    def failed(self) -> list[str]:
        """Runs that failed (an error, not a missing input)."""
        return [n for n, r in self.records.items() if r.status == "error"]


def check_runnable(exp: Experiment) -> None:
    """Raise :class:`NotRunnable` naming what the experiment needs and lacks."""
    missing = unmet_all(exp.needs)
    if missing:
        raise NotRunnable(f"experiment {exp.name} is not yet runnable: needs "
                          + "; ".join(missing))


def _settings(exp: Experiment, size: str):
    from paralib.evaluate import Settings
    from paralib.paths import data_root

    values = {**exp.evaluate.settings, **exp.sizes[size].evaluate}  # type: ignore[index]
    known = {f.name for f in dataclasses.fields(Settings)} - {"data", "progress"}
    bad = sorted(set(values) - known)
    if bad:
        raise ExperimentError(f"experiment {exp.name}: unknown evaluation setting(s) "
                              f"{', '.join(bad)} (known: {', '.join(sorted(known))})")
    return Settings(data=data_root(), progress=False, **values)


def _setup(plan: RunPlan) -> RunSetup:
    if plan.baseline:
        return RunSetup(baseline=plan.baseline)
    if plan.report:
        return RunSetup(report=plan.report)
    if plan.config is None:
        return RunSetup()
    t = plan.config.train
    return RunSetup(parts=[f"{p.encoder}({p.tokens}, {p.dim})" for p in t.model.parts],
                    combine=t.model.combine, epochs=t.epochs, megabatch=t.megabatch.size,
                    trained=plan.trained, engine=plan.engine)


def run_one(plan: RunPlan, exp: Experiment, size: str, settings, progress: bool,
            store: RecordStore, held: bool) -> RunRecord:
    """Make one run (or reuse it) and return its record (also written to ``run.json`` and,
    when finished, kept in ``store``). A finished record with the run's fingerprints, in the
    run's folder or in ``store``, is reused whole, with or without the model; a ``held`` run
    without one is left for a later invocation."""
    from paralib.evaluate import Evaluation
    from paralib.experiments.overlap import measure

    base: dict[str, Any] = {"name": plan.name, "setup": _setup(plan), "seconds": {}}
    if plan.skipped:
        return RunRecord(**base, status="skipped", message=f"not run at size {size}")
    if plan.missing:
        return RunRecord(**base, status="missing", message="; ".join(plan.missing))
    old = plan.rekey(read_record(plan.folder / RECORD))
    if not plan.report:
        for prev in (old, plan.rekey(store.read(plan.folder))):
            if prev is not None and prev.complete(plan.train_key, plan.eval_key):
                prev.name, prev.setup, prev.reused = plan.name, base["setup"], True
                write_record(plan.folder, prev, store)
                return prev
    if held:
        return RunRecord(**base, status="held", message="not among --only: left for a later "
                         "invocation")
    # a finished record was reused whole above: from here on the run is evaluated, at least
    record = RunRecord(**base, status="ok", train_key=plan.train_key, eval_key=plan.eval_key,
                       reused=False)
    try:
        if plan.report:  # numbers another stage wrote: read afresh every time
            record.train = None
            record.results = {"report": json.loads(Path(plan.report).read_text())}
            write_record(plan.folder, record, RecordStore(None))
            return record
        evaluation = Evaluation(suites=list(exp.evaluate.suites), settings=settings)
        if plan.candidates:
            make_tuned(plan, record, progress, store)
            run(None, plan.name, record=record, evaluation=evaluation, model=plan.model_dir)
        else:
            run(plan.config, plan.name, record=record, evaluation=evaluation,
                baseline=plan.baseline, **making(plan, progress, previous=old))
        if plan.properties:  # measured on the run's data (paralib.experiments.overlap)
            t0 = time.perf_counter()
            record.properties = {name: measure(name, opts, plan.config)  # type: ignore[arg-type]
                                 for name, opts in plan.properties.items()}
            record.seconds["evaluate"] += time.perf_counter() - t0
    except Exception as exc:  # one failing run must not stop the experiment
        log.error("run %s failed:\n%s", plan.name, traceback.format_exc())
        record.status, record.message = "error", f"{type(exc).__name__}: {exc}"
    record.made = _now()
    write_record(plan.folder, record, store)
    return record


def _gpu() -> str | None:
    """The name of the GPU torch sees on this machine, if any."""
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


def _now() -> Made:
    """When, on what machine and at what load average (of the machine, all users) something
    was made."""
    gpu = _gpu()
    machine = f"{os.cpu_count() or 0} CPU cores" + (f" and an {gpu}" if gpu else "")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return Made(at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), load=load,
                machine=machine, gpu=gpu)


def command_line(name: str, size: str, out: str | Path = DEFAULT_OUT,
                 results: str | Path | None = None, plots: str | Path | None = None,
                 overrides: Sequence[str] = (), records: str | Path | None = None) -> str:
    """The ``paralib experiment`` command that runs ``name`` so, quoted for a shell."""
    cmd = ["paralib", "experiment", name] + (["--smoke"] if size == "smoke" else
                                             [] if size == "full" else ["--size", size])
    if Path(out) != Path(DEFAULT_OUT):
        cmd += ["--out", str(out)]
    for flag, value in (("--results", results), ("--plots", plots), ("--records", records)):
        if value is not None:
            cmd += [flag, str(value)]
    return shlex.join(cmd + [arg for item in overrides for arg in ("--set", item)])


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` items (values read as YAML) in order, a repeated key taking its
    last place; keys the runner sets itself for every run are refused."""
    from paralib.overrides import OverrideError, parse

    out: dict[str, Any] = {}
    for item in items:
        try:
            key, value = parse(item)
        except OverrideError as exc:
            raise ExperimentError(str(exc)) from None
        if key in RUNNER_KEYS:
            raise ExperimentError(f"--set {key}: the runner sets this for every run (each "
                                  "run's own folder); use --out to move the runs")
        out.pop(key, None)
        out[key] = value
    return out


def run_experiment(name: str, size: str = "full", out: str | Path = DEFAULT_OUT,
                   results: str | Path | None = None, plots: str | Path | None = None,
                   progress: bool = True, echo: Callable[[str], None] | None = None,
                   overrides: Sequence[str] = (), records: str | Path | None = None,
                   only: Sequence[str] = ()) -> ExperimentResult:
    """Run experiment ``name`` at ``size`` and write its section of the results book.

    ``results`` is the Markdown file (default ``docs/RESULTS.md``, or ``OUT/RESULTS.md`` for
    a smoke run, so that a smoke run never replaces a real section); ``plots`` the folder of
    its plot (default ``docs/results/experiments``, or ``OUT/plots`` for smoke).
    ``overrides`` are the command line's ``--set KEY=VALUE`` items: they apply to every
    run's config after the experiment's own, and the runs they change are trained again.
    ``records`` is the folder finished runs' records are kept in (default
    ``docs/results/runs``, or ``OUT/records`` for smoke), under ``NAME/SIZE/``. ``only``
    (globs on run names) makes just those runs; the others are reused where a record has them
    and otherwise left, and the section is written only when none is left.
    """
    if size not in SIZES:
        raise ExperimentError(f"unknown size '{size}' (sizes: {', '.join(SIZES)})")
    exp = load_experiment(name)
    if size not in exp.sizes:
        raise ExperimentError(f"experiment {exp.name} has no '{size}' size (it has "
                              f"{', '.join(exp.sizes)})")
    check_runnable(exp)
    say = echo or (lambda line: print(line, file=sys.stderr, flush=True))
    out_root = Path(out)
    folder = out_root / exp.name / size
    smoke = size == "smoke"
    book = Path(results) if results else (folder / "RESULTS.md" if smoke else BOOK)
    plot_dir = Path(plots) if plots else (folder / "plots" if smoke else PLOTS)
    settings = _settings(exp, size)
    # every config validated before any work
    plans = plan_runs(exp, size, folder, parse_overrides(overrides))
    _check_only(exp, plans, only)
    store = RecordStore.of(Path(records) if records else
                           out_root / "records" if smoke else RECORDS, exp.name, size, out_root)
    with run_lock(out_root / exp.name, f"experiment {exp.name}"):
        now = _now()
        t0 = time.perf_counter()
        by_run: dict[str, RunRecord] = {}
        for i, plan in enumerate(plans, 1):
            t = time.perf_counter()
            by_run[plan.name] = rec = run_one(plan, exp, size, settings, progress, store,
                                               held=not selected(plan.name, only))
            extra = f" ({rec.message})" if rec.status != "ok" else \
                " (reused)" if rec.reused else ""
            say(f"[{exp.name} {size}] {i}/{len(plans)} {plan.name}: {rec.status}{extra} "
                f"in {time.perf_counter() - t:.0f} s")
        seconds = time.perf_counter() - t0
        table = build_table(exp, by_run)
        partial = ExperimentResult(exp, size, by_run, table, seconds, book, None,
                                   written=False)
        if partial.held:
            say(f"[{exp.name} {size}] {len(partial.held)} run(s) not made yet, so {book} is "
                f"left as it is: {', '.join(partial.held)}; the finished runs are kept in "
                f"{store.folder}")
            return partial
        plot_path = (plot_experiment(exp, table, by_run, plot_dir / f"{exp.name}.png")
                     if exp.plot else None)
        reused = [r for r in by_run.values() if r.status == "ok" and r.reused]
        info = RunInfo(size=size, command=command_line(name, size, out, results, plots,
                                                       overrides, records),
                       seconds=seconds, started=now.at, cpus=os.cpu_count() or 0,
                       load=now.load, gpu=now.gpu,
                       made=sum(r.status == "ok" and not r.reused for r in by_run.values()),
                       reused=len(reused),
                       reused_seconds=sum(sum(v for v in r.seconds.values() if v)
                                          for r in reused),
                       reused_made=[r.made for r in reused if r.made],
                       plot=Path(os.path.relpath(plot_path.resolve(), book.parent.resolve())
                                 ).as_posix() if plot_path else None)
        write_section(book, exp.number, exp.name, render_section(exp, table, by_run, info))
        say(f"[{exp.name} {size}] wrote {book}" + (f" and {plot_path}" if plot_path else "")
            + f" in {seconds:.0f} s")
        return ExperimentResult(exp, size, by_run, table, seconds, book, plot_path)


def _check_only(exp: Experiment, plans: Sequence[RunPlan], only: Sequence[str]) -> None:
    """Every ``only`` glob must name a run of the size (a typo would hold every run)."""
    names = [p.name for p in plans if not p.skipped]
    bad = [pattern for pattern in only if not any(selected(n, [pattern]) for n in names)]
    if bad:
        raise ExperimentError(f"experiment {exp.name}: --only {', '.join(bad)} names no run "
                              f"(runs: {', '.join(names)})")
