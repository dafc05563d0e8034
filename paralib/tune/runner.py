"""``run_tune``: a Ray Tune search over a space file (2017 §5.2-5.7, Opusparcus §4.2).

Each trial (:mod:`paralib.tune.trial`) selects its training set (or, tuning no selection,
takes ``train.sources`` as they are) and trains with Ray Train,
reporting the dev metric after every epoch; ASHA (``time_attr``: epochs) stops weak trials;
grid points run in a random order. The best (trial, epoch) on dev is evaluated once on the
test suites and everything goes into a report (:mod:`paralib.tune.report`).

Resources: a trial is a Tune function trainable holding ``trial_cpus`` (≥ 1) CPUs; its Ray
Train workers are a separate placement group of ``train.workers`` × ``train.cpus_per_worker``.
Before training, the trial also runs one 1-CPU Ray Data task (``ray.data.from_pandas``), so
``concurrent`` is at most the number of trials for which ``c·trial + (c−1)·workers +
max(workers, 1)`` CPUs fit: on 2 CPUs with ``cpus_per_worker: 0.5``, one trial at a time.
"""

from __future__ import annotations

import logging
import math
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paralib.config import Config
from paralib.console import current
from paralib.contracts import Asha, EvalReport, Searched, TuneSummary, TuneTest
from paralib.errors import ResourcesError
from paralib.io import fs
from paralib.runtime import check_ray_address, init_ray
from paralib.tune.results import best_epoch, collect_trials
from paralib.tune.space import Param, Space, SpaceError, encode
from paralib.tune.trial import TrialSetup, run_trial, trial_dirname
from paralib.tune.validate import absolute_paths, space_selects, validate_space

log = logging.getLogger(__name__)


@dataclass
class TuneOptions:
    """Command-line choices that override the space file (``None``: the file's value)."""

    search: str | None = None
    samples: int | None = None
    storage_path: str | None = None
    name: str | None = None
    concurrent: int | None = None
    evaluate: list[str] | None = None
    asha: bool | None = None
    seed: int | None = None


class ResourceError(ResourcesError, ValueError):
    """The trials' resource requests cannot fit the Ray cluster."""


def trial_bundles(cfg: Config, use_gpu: bool) -> list[dict[str, float]]:
    """The Ray Train worker bundles of one trial."""
    extra = {"GPU": 1.0} if use_gpu else {}
    return [{"CPU": float(cfg.train.cpus_per_worker), **extra}] * cfg.train.workers


def fit_concurrency(total_cpus: float, trial_cpus: float, worker_cpus: float,
                    asked: int | None = None) -> int:
    """How many trials run at once (see the module docstring); ``asked`` is checked."""
    def fits(c: int) -> bool:
        return c * trial_cpus + (c - 1) * worker_cpus + max(worker_cpus, 1.0) <= total_cpus + 1e-9

    if not fits(1):
        raise ResourceError(
            f"one trial needs {trial_cpus:g} CPU(s) for the trial, {worker_cpus:g} for its "
            f"Ray Train workers and 1 for its data task, but the cluster has {total_cpus:g}: "
            "lower train.cpus_per_worker or train.workers (fractions such as 0.5 work)")
    if asked is not None:
        if not fits(asked):
            log.warning("%d concurrent trials may not fit %g CPUs; trials will wait", asked,
                        total_cpus)
        return asked
    c = 1
    while fits(c + 1):
        c += 1
    return c


def param_space(space: Space) -> dict[str, Any]:
    """Ray Tune domains of the searched parameters."""
    from ray import tune

    def domain(p: Param) -> Any:
        if p.discrete:
            return tune.choice(p.labels())
        if p.kind == "uniform":
            return tune.uniform(p.low, p.high)
        if p.kind == "loguniform":
            return tune.loguniform(p.low, p.high)
        return tune.randint(int(p.low), int(p.high) + 1)

    return {p.name: domain(p) for p in space.params}


def make_search(search: str, space: Space, points: list[dict], concurrent: int, seed: int,
                samples: int) -> tuple[Any, int]:
    """The search algorithm and the number of trials: a grid (its points, shuffled), random
    sampling, or Optuna's TPE (model-based)."""
    from ray.tune.search import ConcurrencyLimiter
    from ray.tune.search.basic_variant import BasicVariantGenerator

    if search == "grid":
        labelled = [{k: encode(v) for k, v in p.items()} for p in points]
        # max_concurrent must be given here: TuneConfig.max_concurrent_trials is ignored
        # (with a warning) when search_alg is a BasicVariantGenerator
        return BasicVariantGenerator(points_to_evaluate=labelled, max_concurrent=concurrent,
                                     random_state=seed), len(labelled)
    if search == "random":
        return BasicVariantGenerator(max_concurrent=concurrent, random_state=seed), samples
    if search == "optuna":
        try:
            from ray.tune.search.optuna import OptunaSearch
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise SpaceError("--search optuna needs the optuna package: pip install optuna") \
                from exc
        return ConcurrencyLimiter(OptunaSearch(seed=seed), max_concurrent=concurrent), samples
    raise SpaceError(f"unknown search '{search}' (grid, random or optuna)")


def _max_epochs(space: Space, base: Config) -> int:
    for p in space.params:
        if p.name in ("epochs", "train.epochs"):
            return int(max(p.values) if p.discrete else p.high)
    return base.train.epochs


def run_tune(space: Space, cfg: Config, options: TuneOptions | None = None,
             progress: bool = True) -> TuneSummary:
    """Run the search; returns the summary also written to the report's ``report.json``."""
    from ray import tune

    from paralib.tune.reaper import PlacementGroupReaper

    opts = options or TuneOptions()
    spec = space.spec
    search = opts.search or spec.search
    seed = spec.seed if opts.seed is None else opts.seed
    samples = opts.samples or spec.samples
    space.spec = spec = spec.model_copy(update={"samples": samples, "seed": seed})
    base = Config.model_validate(absolute_paths(cfg))
    points = validate_space(space, base, search)
    spec = space.spec  # its metric resolved against train.dev
    storage = opts.storage_path or spec.storage_path
    storage = storage if fs.is_s3(storage) else str(Path(storage).resolve())
    name = opts.name or space.name
    experiment = fs.join(storage, name)
    suites = spec.evaluate if opts.evaluate is None else opts.evaluate

    # an explicit ray.address is checked even when Ray already runs here (init_ray then
    # joins nothing and checks nothing)
    check_ray_address(cfg.ray)
    resources = init_ray(cfg.ray)
    use_gpu = cfg.train.use_gpu if cfg.train.use_gpu is not None else \
        resources.get("GPU", 0) > 0
    bundles = trial_bundles(base, use_gpu)
    concurrent = fit_concurrency(float(resources.get("CPU", 0)), spec.trial_cpus,
                                 sum(b["CPU"] for b in bundles), opts.concurrent or
                                 spec.concurrent)
    search_alg, num_samples = make_search(search, space, points, concurrent, seed, samples)
    use_asha = spec.asha.enabled if opts.asha is None else opts.asha
    max_t = _max_epochs(space, base)
    scheduler, asha = _asha(spec, max_t, use_asha)
    setup = TrialSetup(base=base.model_dump(), params=[p.name for p in space.params],
                       experiment=experiment, select=space_selects(space, base))
    storage_fs, storage_path = None, storage
    if fs.is_s3(storage):
        storage_fs, storage_path = fs.resolve(storage, cfg.s3.options())
    reaper = PlacementGroupReaper(bundles)
    log.info("tuning %s: %s search, %d trial(s), %d at a time, ASHA %s (max %d epochs), "
             "%s, results in %s", name, search, num_samples, concurrent,
             "on" if use_asha else "off", max_t,
             "each trial selects from select.input" if setup.select else
             "trials train on train.sources (no selection)", experiment)
    quiet_bar = progress and not current().verbose  # one bar instead of Tune's tables
    callbacks = _callbacks(reaper, cfg, space, name, num_samples, quiet_bar)
    tuner = tune.Tuner(
        tune.with_resources(tune.with_parameters(run_trial, setup=setup),
                            {"CPU": spec.trial_cpus}),
        param_space=param_space(space),
        tune_config=tune.TuneConfig(
            metric=spec.metric, mode=space.mode, search_alg=search_alg, scheduler=scheduler,
            num_samples=num_samples, trial_dirname_creator=trial_dirname,
            trial_name_creator=trial_dirname),
        run_config=tune.RunConfig(name=name, storage_path=storage_path,
                                  storage_filesystem=storage_fs, callbacks=callbacks,
                                  verbose=1 if progress and not quiet_bar else 0),
    )
    start = time.perf_counter()
    grid = tuner.fit()
    seconds = time.perf_counter() - start
    trials = collect_trials(grid, space, base)
    summary = TuneSummary(
        name=name, space=str(space.path), description=spec.description, search=search,
        metric=spec.metric, mode=space.mode, seed=seed,
        asha=asha,
        concurrent=concurrent, trial_cpus=spec.trial_cpus, worker_bundles=bundles,
        experiment=experiment, seconds=round(seconds, 1), selects=setup.select,
        parameters=[Searched(name=p.name, kind=p.kind, values=p.values, low=p.low,
                             high=p.high) for p in space.params],
        placement_groups_reaped=len(reaper.removed), trials=trials,
        tensorboard=f"tensorboard --logdir {experiment}",
        best=best_epoch(trials, spec.metric, space.mode))
    _report(summary, suites, cfg, experiment)
    return summary


def _asha(spec: Any, max_t: int, enabled: bool) -> tuple[Any, Asha]:
    """The ASHA scheduler (``None`` when off) and the summary's record of it. Its ``max_t``
    is one past the last epoch: Tune stops a trial that reaches ``max_t``, which would kill a
    trial finishing on its own before ``train()`` writes its model folder."""
    from ray.tune.schedulers import ASHAScheduler

    scheduler = ASHAScheduler(time_attr="training_iteration", max_t=max_t + 1,
                              grace_period=min(spec.asha.grace_period, max_t),
                              reduction_factor=spec.asha.reduction_factor) if enabled else None
    return scheduler, Asha(enabled=enabled, max_t=max_t, grace_period=spec.asha.grace_period,
                           reduction_factor=spec.asha.reduction_factor)


def _callbacks(reaper: Any, cfg: Config, space: Space, name: str, num_samples: int,
               quiet_bar: bool) -> list:
    """Tune's callbacks: the placement-group reaper, a stall watch when
    ``ray.stall_timeout_s`` is set (trials that never start fail the run) and, when quiet,
    one progress bar instead of Tune's tables."""
    callbacks: list = [reaper]
    if cfg.ray.stall_timeout_s is not None:
        from paralib.tune.stall import StallWatch

        callbacks.append(StallWatch(cfg.ray.stall_timeout_s, f"tune {name}", num_samples))
    if quiet_bar:
        from paralib.tune.progress import TrialBar

        callbacks.append(TrialBar(num_samples, space.spec.metric, space.mode,
                                  desc=f"tune {name}"))
    return callbacks


def _report(summary: TuneSummary, suites: list[str], cfg: Config, experiment: str) -> None:
    """Evaluate the best epoch once on ``suites`` (its ``test``) and write the report folder
    beside the trials (uploaded when they are on S3)."""
    with tempfile.TemporaryDirectory(prefix="paralib-tune-") as tmp:
        local_report = Path(tmp) / "report" if fs.is_s3(experiment) else \
            Path(experiment) / "report"
        if local_report.exists():
            shutil.rmtree(local_report)
        local_report.mkdir(parents=True)
        if summary.best is not None and suites:
            summary.test = evaluate_best(summary.best, suites, local_report, cfg, experiment)
        from paralib.tune.report import write_report

        remote = fs.join(experiment, "report") if fs.is_s3(experiment) else None
        write_report(summary, local_report, remote)  # names the files where they will be
        if remote is not None:
            fs.upload_dir(local_report, remote, cfg.s3.options())


def _local_model(checkpoint_path: str, experiment: str, into: Path, cfg: Config) -> Path:
    """The best epoch's model folder on this machine (downloaded when results are on S3)."""
    if not fs.is_s3(experiment):
        return Path(checkpoint_path) / "model"
    # Tune reports checkpoint paths within the storage filesystem: bucket/key, no scheme
    return fs.download_dir("s3://" + checkpoint_path.removeprefix("s3://") + "/model", into,
                           cfg.s3.options())


def evaluate_best(best: dict, suites: list[str], report_dir: Path, cfg: Config,
                  experiment: str) -> TuneTest:
    """Evaluate the best (trial, epoch) once on ``suites``; copies its model folder to
    ``<report>/best-model`` and writes the evaluation report to ``<report>/evaluate``
    (returned paths are relative to the report folder)."""
    from paralib.evaluate import Evaluation, evaluate
    from paralib.io.context import StageContext

    model = report_dir / "best-model"
    src = _local_model(best["checkpoint_path"], experiment, model, cfg)
    if src != model:
        shutil.copytree(src, model)
    report = evaluate(Evaluation({"best": str(model)}, suites, report_dir / "evaluate"),
                      StageContext(progress=False))
    # paths relative to the report folder (which may be uploaded to S3)
    return TuneTest(suites=suites, model="best-model", results=test_numbers(report),
                    report="evaluate/report.md")


def test_numbers(report: dict | EvalReport) -> dict[str, float | None]:
    """Headline test numbers (Pearson's r × 100) from an evaluation report."""
    out: dict[str, float | None] = {}
    for suite, task in EvalReport.load(report).tasks.items():
        res = task.models.get("best", {})
        if res.get("status") != "ok":
            out[suite] = None
            continue
        if suite == "sts":
            out["sts (mean of 2012-2016 sets)"] = res["all"]["pearson"]
            continue
        for set_name, entry in res.get("sets", {}).items():
            if entry.get("status") == "ok" and "pearson" in entry:
                value = entry["pearson"]
                out[f"{suite} {set_name}"] = None if value is None or \
                    (isinstance(value, float) and math.isnan(value)) else value
    return out
