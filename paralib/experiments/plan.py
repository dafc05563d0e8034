"""From an experiment and a size to concrete runs: each run's validated paralib ``Config``,
its folder, what it still needs, and fingerprints that tell a finished run from a changed one.

A run's config tree is the experiment's ``base``, then the run's overrides, then the size's
overrides for every run, then those of the size's ``match`` globs that name the run, then the
command line's ``--set`` overrides (every run). Paths the runner owns (the model folder, the
selection, Ray Train storage) are set last; a tuned run's candidates set their parameters
after that. Which config fields a run's keys cover follows from the roles the schema declares
(:func:`paralib.fingerprint.covered`, :data:`paralib.fingerprint.Scope.RUN`). A kept record
keyed before a field entered the keys (:data:`paralib.schema.ChangesResultsRekeyed`) is
re-keyed when its run finds it under its former keys (:meth:`RunPlan.rekey`).
"""

from __future__ import annotations

import contextlib
import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from paralib.config import Config
from paralib.contracts import RunRecord
from paralib.experiments.candidates import apply_candidate, candidates, label
from paralib.experiments.needs import unmet_all
from paralib.experiments.spec import (
    DEFAULT_OUT,
    Experiment,
    ExperimentError,
    Need,
    format_errors,
    slug,
)
from paralib.fingerprint import Scope, covered, digest
from paralib.overrides import OverrideError, apply
from paralib.paths import DataNotFoundError, data_root, expand, models_root


@dataclass
class RunPlan:
    """One run of an experiment at one size."""

    name: str
    folder: Path
    baseline: str | None = None
    report: str | None = None
    config: Config | None = None
    select: bool = False
    trained: bool = True
    engine: str = "local"
    skipped: bool = False
    missing: list[str] = field(default_factory=list)
    train_key: str = ""
    eval_key: str = ""
    former_keys: tuple[str, str] = ("", "")
    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    tune_metric: str | None = None
    tune_mode: str = "max"
    candidates: list[RunPlan] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    chosen: RunPlan | None = None

    @property
    def model_dir(self) -> Path:
        """Where the trained model folder goes (a tuned run's: its chosen candidate's)."""
        return self.chosen.model_dir if self.chosen is not None else self.folder / "model"

    @property
    def former_train_key(self) -> str:
        """The training key the run had before the rekeyed fields entered it."""
        return self.former_keys[0] or self.train_key

    def rekey(self, record: RunRecord | None) -> RunRecord | None:
        """``record`` with this run's keys when it holds the keys the run had before the
        :data:`~paralib.schema.ChangesResultsRekeyed` fields entered them (its
        :attr:`former_keys`; a candidate's has no evaluation key): the record was made by
        this run's config as the keys then saw it. Otherwise ``record`` as it is."""
        train, evaluation = self.former_keys
        if record is None or not train or record.train_key != train or \
                (evaluation and record.eval_key != evaluation):
            return record
        return record.model_copy(update={"train_key": self.train_key,
                                         "eval_key": self.eval_key})


def substitute(tree: Any, values: Mapping[str, str]) -> Any:
    """``tree`` with ``{name}`` placeholders in every string replaced by ``values[name]``."""
    if isinstance(tree, str):
        for name, value in values.items():
            tree = tree.replace("{" + name + "}", value)
        return tree
    if isinstance(tree, list):
        return [substitute(v, values) for v in tree]
    if isinstance(tree, dict):
        return {k: substitute(v, values) for k, v in tree.items()}
    return tree


def run_tree(exp: Experiment, name: str, size: str,
             overrides: Mapping[str, Any] | None = None) -> dict:
    """The config tree of run ``name`` at ``size``, before the runner's paths."""
    spec = exp.all_runs()[name]
    sz = exp.sizes[size]  # type: ignore[index]
    try:
        tree = apply(exp.base, spec.set)
        tree = apply(tree, sz.set)
        for pattern, matched in sz.match.items():
            if fnmatch.fnmatchcase(name, pattern):
                tree = apply(tree, matched)
        return apply(tree, overrides or {}, "--set")
    except OverrideError as exc:
        raise ExperimentError(f"experiment {exp.name}, run '{name}' ({size}): {exc}") from None


def plan_runs(exp: Experiment, size: str, out: Path,
              overrides: Mapping[str, Any] | None = None) -> list[RunPlan]:
    """Every run of ``exp`` at ``size`` with its folder under ``out``; configs are validated
    for the runs whose needs are met (a bad one is an error before any work starts).
    ``overrides`` (dotted key → value) apply to every run's config."""
    sz = exp.sizes[size]  # type: ignore[index]
    made = exp.runs_at(size)
    settings = {**exp.evaluate.settings, **sz.evaluate}
    plans = []
    for name, spec in exp.all_runs().items():
        folder = out / "runs" / slug(name)
        plan = RunPlan(name=name, folder=folder, baseline=spec.baseline, select=spec.select,
                       trained=spec.trained, engine=sz.engine, skipped=name not in made,
                       report=expand(spec.report) if spec.report else None)
        needs = spec.needs + ([Need(path=spec.report, why=f"the report run '{name}' reads")]
                              if spec.report else [])
        plan.missing = unmet_all(needs)
        plan.properties = spec.properties
        trees = [spec.baseline or plan.report] * 2
        if not (spec.baseline or spec.report) and not plan.skipped and not plan.missing:
            plan.config = _config(exp, name, size, folder, out, overrides)
            trees = _key_configs(exp, name, size, folder, out, overrides)
            if spec.tune is not None:
                _add_candidates(plan, exp, size, out, spec.tune, overrides)
        _set_keys(plan, trees, {"suites": exp.evaluate.suites, "settings": settings,
                                "properties": spec.properties})
        plans.append(plan)
    return plans


def _set_keys(plan: RunPlan, trees: list[Any], evaluated: dict[str, Any] | None = None
              ) -> None:
    """Set ``plan``'s training and evaluation keys from its key config ``trees`` (now, and as
    the keys were before the rekeyed fields entered them), and its :attr:`RunPlan.former_keys`
    where the two differ. ``evaluated``: what its evaluation key covers besides the model
    (``None``: a tuned run's candidate, which has no evaluation key). The training key is the
    fingerprint of what makes the run's model: the run is reused while it is unchanged."""
    keys = [digest({"train": tree, "engine": plan.engine, "trained": plan.trained,
                    "select": plan.select}) for tree in trees]
    if plan.candidates:
        keys = [digest({"candidates": [getattr(c, k) for c in plan.candidates],
                        "metric": plan.tune_metric, "mode": plan.tune_mode})
                for k in ("train_key", "former_train_key")]
    evals = ["", ""] if evaluated is None else [digest({"model": key, **evaluated})
                                                for key in keys]
    plan.train_key, plan.eval_key = keys[0], evals[0]
    if keys[1] != keys[0]:
        plan.former_keys = (keys[1], evals[1])


# The runner's own folders as a run's fingerprint sees them: the same run has the same
# fingerprint wherever its runs are (another checkout, another machine, another --out), so
# that a record kept on one machine is reused on the next.
KEY_OUT = Path("OUT")


def _key_configs(exp: Experiment, name: str, size: str, folder: Path, out: Path,
                 overrides: Mapping[str, Any] | None, params: dict[str, Any] | None = None
                 ) -> list[dict[str, Any]]:
    """The config JSON run ``name``'s fingerprint covers, now and as the keys were before the
    rekeyed fields entered them: its config with the runner's folders under :data:`KEY_OUT`
    (``params``: a tuned candidate's)."""
    stand_in = KEY_OUT / folder.relative_to(out)
    cfg = (_config(exp, name, size, stand_in, KEY_OUT, overrides, resolve=False)
           if params is None else
           _candidate_config(exp, name, size, stand_in, KEY_OUT, overrides, params, resolve=False))
    return [config_for_key(cfg, legacy) for legacy in (False, True)]


def config_for_key(cfg: Config, legacy: bool = False) -> dict[str, Any]:
    """``cfg`` as the JSON a run's fingerprint covers: the fields the schema's roles put in
    run keys (:func:`paralib.fingerprint.covered`: not ``NotResults``, nor those that
    changed results only since records were kept, at their defaults; ``legacy``: nor the
    rekeyed ones), with paths under the checkout's ``models/`` or the data root written as
    ``{models}/`` and ``{data}/`` again, so that a run has one fingerprint in every checkout."""
    tree = covered(cfg.model_dump(mode="json"), Config, Scope.RUN, legacy=legacy)
    return _portable(tree, _roots())


def _roots() -> list[tuple[str, str]]:
    """The machine-local folders a config's ``{models}`` and ``{data}`` expand to."""
    roots = [(str(models_root()), "{models}")]
    with contextlib.suppress(DataNotFoundError):
        roots.append((str(data_root()), "{data}"))
    return roots


def _portable(value: Any, roots: list[tuple[str, str]]) -> Any:
    """``value`` with every string under one of ``roots`` written with its placeholder."""
    if isinstance(value, dict):
        return {key: _portable(item, roots) for key, item in value.items()}
    if isinstance(value, list):
        return [_portable(item, roots) for item in value]
    if isinstance(value, str):
        for root, placeholder in roots:
            if value == root or value.startswith(root + "/"):
                return placeholder + value[len(root):]
    return value


def _add_candidates(plan: RunPlan, exp: Experiment, size: str, out: Path, tune,
                    overrides: Mapping[str, Any] | None) -> None:
    """One candidate plan per combination of the tuned parameters (2017 §5.5-5.7), each in
    ``RUN/tune/CANDIDATE/`` with its own selection and model."""
    plan.tune_metric, plan.tune_mode = tune.metric, tune.mode
    for params in candidates(tune, size):
        name = label(params)
        folder = plan.folder / "tune" / slug(name)
        cfg = _candidate_config(exp, plan.name, size, folder, out, overrides, params)
        cand = RunPlan(name=name, folder=folder, config=cfg, select=plan.select,
                       trained=plan.trained, engine=plan.engine, params=params)
        _set_keys(cand, _key_configs(exp, plan.name, size, folder, out, overrides, params))
        plan.candidates.append(cand)


def _candidate_config(exp: Experiment, name: str, size: str, folder: Path, out: Path,
                      overrides: Mapping[str, Any] | None, params: dict[str, Any],
                      resolve: bool = True) -> Config:
    """The config of one candidate (``params``) of tuned run ``name``, in ``folder``."""
    cfg = apply_candidate(_config(exp, name, size, folder, out, overrides, resolve), params)
    cfg.train.name = slug(f"{exp.name}-{size}-{name}-{label(params)}")
    return cfg


def _config(exp: Experiment, name: str, size: str, folder: Path, out: Path,
            overrides: Mapping[str, Any] | None, resolve: bool = True) -> Config:
    tree = substitute(run_tree(exp, name, size, overrides),
                      {"selection": str(folder / "selection"), "run": str(folder)})
    train = tree.setdefault("train", {})
    train["output"] = str(folder / "model")
    storage = out / "ray-train"
    train["storage_path"] = str(storage.resolve() if resolve else storage)
    train["name"] = slug(f"{exp.name}-{size}-{name}")
    if exp.all_runs()[name].select:
        tree.setdefault("select", {})["output"] = str(folder / "selection")
    try:
        return Config.model_validate(tree)
    except ValidationError as exc:
        text = format_errors(exc, f"{exp.name}, run '{name}' ({size})")
        if overrides and _valid_without(exp, name, size, folder, out):
            text = (f"--set {', '.join(overrides)} makes an invalid config (the experiment's "
                    "own is valid):\n" + text.split("\n", 1)[1])
        raise ExperimentError(text) from None


def _valid_without(exp: Experiment, name: str, size: str, folder: Path, out: Path) -> bool:
    """Whether run ``name``'s config is valid without the command line's overrides."""
    try:
        _config(exp, name, size, folder, out, None)
    except ExperimentError:
        return False
    return True


def kept_runs(exp: Experiment, size: str, root: Path | None = None) -> tuple[int, int]:
    """How many of ``exp``'s runs at ``size`` have a kept record with their current
    fingerprints, and how many runs it makes at that size (``(0, 0)`` when its configs do
    not validate here)."""
    from paralib.experiments.records import RECORDS, RecordStore

    root = RECORDS if root is None else root
    try:
        plans = plan_runs(exp, size, Path(DEFAULT_OUT) / exp.name / size)
    except ExperimentError:
        return 0, 0
    plans = [p for p in plans if not p.skipped and not p.report]
    store = RecordStore.of(root, exp.name, size, Path(DEFAULT_OUT))
    return sum((r := store.read(p.folder)) is not None and r.complete(p.train_key, p.eval_key)
               for p in plans), len(plans)
