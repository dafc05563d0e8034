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
import shutil
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from paralib.experiments.book import write_section
from paralib.experiments.lock import run_lock
from paralib.experiments.needs import unmet_all
from paralib.experiments.plan import RunPlan, plan_runs
from paralib.experiments.plots import plot_experiment
from paralib.experiments.records import RECORDS, RecordStore, complete, selected
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
from paralib.paths import PROJECT_ROOT
from paralib.select.steps import SelectError

log = logging.getLogger(__name__)

BOOK = PROJECT_ROOT / "docs" / "RESULTS.md"
# set by the runner for every run (its own folders), after the overrides
RUNNER_KEYS = frozenset({"train.output", "train.name", "train.storage_path", "select.output"})
PLOTS = PROJECT_ROOT / "docs" / "results" / "experiments"
RECORD = "run.json"


@dataclass
class ExperimentResult:
    """What one invocation did: the records by run, the table, where it wrote."""

    experiment: Experiment
    size: str
    records: dict[str, dict[str, Any]]
    table: TableData
    seconds: float
    results: Path
    plot: Path | None
    written: bool = True

    @property
    def held(self) -> list[str]:
        """Runs left for a later invocation (not among ``only``, and not made before)."""
        return [n for n, r in self.records.items() if r["status"] == "held"]

    @property
    def failed(self) -> list[str]:
        """Runs that failed (an error, not a missing input)."""
        return [n for n, r in self.records.items() if r["status"] == "error"]


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


def _setup(plan: RunPlan) -> dict[str, Any]:
    if plan.baseline:
        return {"baseline": plan.baseline}
    if plan.report:
        return {"report": plan.report}
    if plan.config is None:
        return {}
    t = plan.config.train
    return {"parts": [f"{p.encoder}({p.tokens}, {p.dim})" for p in t.model.parts],
            "combine": t.model.combine, "epochs": t.epochs, "megabatch": t.megabatch.size,
            "trained": plan.trained, "engine": plan.engine}


def _read(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def _train(plan: RunPlan, progress: bool) -> dict[str, Any]:
    cfg = plan.config
    assert cfg is not None
    if plan.engine == "ray" and plan.trained:
        from paralib.train.run import train

        # Ray Train resumes a run of the same name from its latest checkpoint: keep that for
        # an interrupted run of this very config, never for checkpoints of another one
        run_dir = Path(cfg.train.storage_path) / cfg.train.name
        key = plan.folder / "training.key"
        if run_dir.exists() and (not key.is_file() or key.read_text() != plan.train_key):
            shutil.rmtree(run_dir)
        key.write_text(plan.train_key)
        return {**train(cfg, progress=progress), "engine": "ray", "trained": True}
    from paralib.experiments.local_train import train_local

    return train_local(cfg, trained=plan.trained)


def _select(plan: RunPlan) -> dict[str, Any]:
    from paralib.select import run_select

    cfg = plan.config
    assert cfg is not None
    report = run_select(cfg.select, cfg.s3.options())
    return {"rows_in": report["rows_in"], "rows_out": report["rows_out"]}


def _evaluate(plan: RunPlan, suites: list[str], settings) -> dict[str, Any]:
    from paralib.evaluate import evaluate, make_baseline

    model: Any = str(plan.model_dir)
    if plan.baseline:
        model = make_baseline(plan.baseline)
        model.name = plan.name
    report = evaluate({plan.name: model}, suites, out=None, progress=False, settings=settings)
    return {suite: task["models"][plan.name] for suite, task in report["tasks"].items()}


def _make_model(plan: RunPlan, old: dict[str, Any], record: dict[str, Any],
                progress: bool, need_model: bool = True) -> None:
    """Select and train ``plan`` into ``record``, or reuse the model ``old`` describes when
    its training fingerprint matches (without the model on this machine unless
    ``need_model``)."""
    if old.get("train_key") == plan.train_key and old.get("train") and \
            (not need_model or (plan.model_dir / "config.json").is_file()):
        record["train"], record["selection"] = old["train"], old.get("selection")
        record["seconds"].update({k: v for k, v in old.get("seconds", {}).items()
                                  if k in ("select", "train")})
        return
    record["reused"] = False
    plan.folder.mkdir(parents=True, exist_ok=True)
    if plan.select:
        t0 = time.perf_counter()
        record["selection"] = _select(plan)
        record["seconds"]["select"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    record["train"] = _train(plan, progress)
    record["seconds"]["train"] = train_seconds(time.perf_counter() - t0, record["train"])


def train_seconds(wall: float, summary: dict[str, Any]) -> float:
    """Training seconds of a run: this call's wall time plus, for a run Ray Train resumed
    from a checkpoint, the recorded seconds of the epochs made before it (their setup time,
    not in an epoch's record, is not counted)."""
    before = summary.get("resumed_from_epoch") or 0
    return wall + sum(h.get("seconds") or 0.0 for h in summary.get("history", [])[:before])


def _candidate(cand: RunPlan, progress: bool, store: RecordStore) -> dict[str, Any]:
    """Train one candidate of a tuned run, or reuse its record (this machine's with its
    model, or a kept one without); a failure is its record's status."""
    old = _read(cand.folder / RECORD) or {}
    if not (old.get("train_key") == cand.train_key and old.get("train")):
        old = store.read(cand.folder) or {}
    rec: dict[str, Any] = {"name": cand.name, "params": cand.params, "status": "ok",
                           "train_key": cand.train_key, "seconds": {}, "reused": True}
    try:
        _make_model(cand, old, rec, progress, need_model=False)
    except Exception as exc:  # a candidate that cannot be made is left out of the choice
        log.warning("tune candidate %s failed: %s", cand.folder, exc)
        rec.update(status="error", message=f"{type(exc).__name__}: {exc}", reused=False,
                   too_few_pairs=isinstance(exc, SelectError))
    _write(cand, rec, store)
    return rec


def _make_tuned(plan: RunPlan, record: dict[str, Any], progress: bool,
                store: RecordStore) -> None:
    """2017 §5.5-5.7: a model per candidate, the best dev score chosen (:mod:`tuned`); the
    chosen one is trained again when its record was kept elsewhere and its model is not
    here."""
    from paralib.experiments.tuned import choose, score

    metric = plan.tune_metric or "train/dev_pearson"
    recs = [_candidate(c, progress, store) for c in plan.candidates]
    best = choose(recs, metric, plan.tune_mode)
    record["tuned"] = {
        "metric": metric, "mode": plan.tune_mode,
        "chosen": plan.candidates[best].name if best is not None else None,
        "params": plan.candidates[best].params if best is not None else None,
        "value": score(recs[best], metric) if best is not None else None,
        "candidates": [{"label": c.name, "params": c.params, "status": r["status"],
                        "message": r.get("message"), "value": score(r, metric),
                        "too_few_pairs": bool(r.get("too_few_pairs")),
                        "pairs": (r.get("train") or {}).get("pairs")}
                       for c, r in zip(plan.candidates, recs, strict=True)]}
    for key in ("select", "train"):
        record["seconds"][key] = sum((r["seconds"].get(key) or 0) for r in recs)
    broken = [f"{c.name} ({r['message']})" for c, r in zip(plan.candidates, recs, strict=True)
              if r["status"] == "error" and not r.get("too_few_pairs")]
    if broken:  # only a selection too small for the size leaves a candidate out for good
        raise ExperimentError(f"{len(broken)} candidate(s) of the tuned run failed, so it is "
                              f"made again next time: {'; '.join(broken)}")
    if best is None:
        raise ExperimentError(f"no candidate of the tuned run has a {metric} score "
                              f"({len(recs)} tried)")
    plan.chosen = plan.candidates[best]
    record["train"], record["selection"] = recs[best]["train"], recs[best].get("selection")
    if not (plan.chosen.model_dir / "config.json").is_file():
        again: dict[str, Any] = {"seconds": {}}
        _make_model(plan.chosen, {}, again, progress)
        record["train"], record["selection"] = again["train"], again.get("selection")
        record["retrained"] = plan.chosen.name
        for key, value in again["seconds"].items():
            record["seconds"][key] += value


def _properties(plan: RunPlan) -> dict[str, float]:
    """The run's ``properties`` measured on its data (:mod:`paralib.experiments.overlap`)."""
    from paralib.experiments.overlap import measure

    assert plan.config is not None
    return {name: measure(name, opts, plan.config) for name, opts in plan.properties.items()}


def _write(plan: RunPlan, record: dict[str, Any], store: RecordStore) -> None:
    plan.folder.mkdir(parents=True, exist_ok=True)
    (plan.folder / RECORD).write_text(json.dumps(record, indent=2, default=str))
    store.keep(plan.folder, record)


def run_one(plan: RunPlan, exp: Experiment, size: str, settings, progress: bool = False,
            store: RecordStore | None = None, held: bool = False) -> dict[str, Any]:
    """Make one run (or reuse it) and return its record (also written to ``run.json`` and,
    when finished, kept in ``store``). A finished record with the run's fingerprints, in the
    run's folder or in ``store``, is reused whole, with or without the model; a ``held`` run
    without one is left for a later invocation."""
    base = {"name": plan.name, "setup": _setup(plan), "seconds": {}}
    if plan.skipped:
        return {**base, "status": "skipped", "message": f"not run at size {size}"}
    if plan.missing:
        return {**base, "status": "missing", "message": "; ".join(plan.missing)}
    store = store or RecordStore(None)
    old = _read(plan.folder / RECORD) or {}
    if not plan.report:
        for prev in (old, store.read(plan.folder)):
            if complete(prev, plan.train_key, plan.eval_key):
                record = {**prev, **base, "seconds": prev.get("seconds", {}), "reused": True}
                _write(plan, record, store)
                return record
    if held:
        return {**base, "status": "held", "message": "not among --only: left for a later "
                "invocation"}
    # a finished record was reused whole above: from here on the run is evaluated, at least
    record = {**base, "status": "ok", "train_key": plan.train_key, "eval_key": plan.eval_key,
              "reused": False}
    try:
        if plan.report:  # numbers another stage wrote: read afresh every time
            record.update(train=None,
                          results={"report": json.loads(Path(plan.report).read_text())})
            _write(plan, record, RecordStore(None))
            return record
        if plan.baseline:
            record["train"] = None
        elif plan.candidates:
            _make_tuned(plan, record, progress, store)
        else:
            _make_model(plan, old, record, progress)
        t0 = time.perf_counter()
        record["results"] = _evaluate(plan, list(exp.evaluate.suites), settings)
        if plan.properties:
            record["properties"] = _properties(plan)
        record["seconds"]["evaluate"] = time.perf_counter() - t0
    except Exception as exc:  # one failing run must not stop the experiment
        log.error("run %s failed:\n%s", plan.name, traceback.format_exc())
        record.update(status="error", message=f"{type(exc).__name__}: {exc}")
    record["made"] = _now()
    _write(plan, record, store)
    return record


def _load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def _gpu() -> str | None:
    """The name of the GPU torch sees on this machine, if any."""
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


def _now() -> dict[str, Any]:
    """When, on what machine and at what load average (of the machine, all users) something
    was made."""
    gpu = _gpu()
    machine = f"{os.cpu_count() or 0} CPU cores" + (f" and an {gpu}" if gpu else "")
    return {"at": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "load": _load(),
            "machine": machine, "gpu": gpu}


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
    for item in overrides:
        cmd += ["--set", item]
    return shlex.join(cmd)


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


def _relative(target: Path, start: Path) -> str:
    return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()


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
        by_run: dict[str, dict[str, Any]] = {}
        for i, plan in enumerate(plans, 1):
            t = time.perf_counter()
            by_run[plan.name] = rec = run_one(plan, exp, size, settings, progress, store,
                                               held=not selected(plan.name, only))
            extra = f" ({rec.get('message')})" if rec["status"] != "ok" else \
                " (reused)" if rec.get("reused") else ""
            say(f"[{exp.name} {size}] {i}/{len(plans)} {plan.name}: {rec['status']}{extra} "
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
        plot_path = None
        if exp.plot:
            plot_path = plot_experiment(exp, table, by_run, plot_dir / f"{exp.name}.png")
        reused = [r for r in by_run.values() if r["status"] == "ok" and r.get("reused")]
        info = RunInfo(size=size, command=command_line(name, size, out, results, plots,
                                                       overrides, records),
                       seconds=seconds, started=now["at"], cpus=os.cpu_count() or 0,
                       load=now["load"], gpu=now["gpu"],
                       made=sum(r["status"] == "ok" and not r.get("reused")
                                for r in by_run.values()),
                       reused=len(reused),
                       reused_seconds=sum(sum(v for v in r["seconds"].values() if v)
                                          for r in reused),
                       reused_made=[r["made"] for r in reused if r.get("made")],
                       plot=_relative(plot_path, book.parent) if plot_path else None)
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
