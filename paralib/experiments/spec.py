"""The experiment file (``experiments/NAME.yaml``): one table of one paper, reproduced.

An experiment names the paper's table and types its numbers (``paper``: the only place in
paralib where numbers are typed by hand), declares the runs (a ``base`` config tree plus
per-run overrides, written out or as a ``grid`` of axes), says which of our numbers fills
each cell of the table (``ours``), which directions of the paper to check (``compare``), what
to evaluate, and the settings of each size (``smoke``, ``small``, ``full``).

Unknown keys, a missing paper table, a cell that reads a run that does not exist and a
comparison of rows that are not in the table are errors when the file is read, naming the
file and the key.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
import string
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from paralib.errors import ConfigurationError
from paralib.experiments.cells import (  # noqa: F401 (AggStep, CellRef, Comparison, Where: API)
    AggStep,
    CellRef,
    Comparison,
    OursSpec,
    PaperTable,
    Where,
    fill,
)
from paralib.experiments.plotspec import PlotSpec
from paralib.paths import PROJECT_ROOT
from paralib.schema import Strict, read_yaml

EXPERIMENTS_DIR = PROJECT_ROOT / "experiments"
SIZES = ("smoke", "small", "full")
DEFAULT_OUT = "output/experiments"  # where the runs go unless --out says otherwise
Size = Literal["smoke", "small", "full"]


class ExperimentError(ConfigurationError, ValueError):
    """An experiment file is invalid, or an experiment cannot run."""


class NotRunnable(ExperimentError):
    """An experiment needs something paralib or this checkout does not have yet."""


class Need(Strict):
    """Something an experiment (or one run) needs before it can run; checked, not assumed.

    Exactly one of: ``path`` (a file or folder; relative to the working directory,
    ``{data}``/``{models}`` expand), ``module`` (an importable module), ``source_kind`` (a
    training source kind that ``paralib.train`` knows) or ``todo`` (a capability paralib does
    not have yet: always unmet). ``why`` says what it is for or how to make it.
    """

    path: str | None = None
    module: str | None = None
    source_kind: str | None = None
    todo: str | None = None
    why: str

    @model_validator(mode="after")
    def _one_kind(self) -> Need:
        given = [k for k in ("path", "module", "source_kind", "todo") if getattr(self, k)]
        if len(given) != 1:
            raise ValueError("a need names exactly one of path, module, source_kind, todo; "
                             f"got {given or 'none'}")
        return self


class TuneSpec(Strict):
    """A tuned run (2017 §5.5-5.7: the selection "tuned on development data"): one model is
    trained per candidate, the candidate with the best ``metric`` (default the best epoch's
    STS Benchmark dev Pearson, ``train/dev_pearson``) is kept, and that model is the run's.

    Candidates are the product of the parameters' values: the discrete parameters of a
    ``paralib tune`` space file (``space``, e.g. ``tune/spaces/length.yaml``; only its
    ``parameters`` are used, its ``set`` is not), replaced by ``parameters`` given here and,
    at one size, by ``sizes[SIZE]``. Parameter names are those of ``paralib tune`` (shortcuts
    such as ``length_range`` and ``cost_max``, or dotted config keys). This is a plain grid
    through the experiment's own training path, not Ray Tune: the same engine, epochs and data
    as the experiment's other runs, and every candidate's dev score in the results.
    """

    space: str | None = None
    parameters: dict[str, list[Any]] = Field(default_factory=dict)
    sizes: dict[Size, dict[str, list[Any]]] = Field(default_factory=dict)
    metric: str = "train/dev_pearson"
    mode: Literal["max", "min"] = "max"

    @model_validator(mode="after")
    def _some_candidates(self) -> TuneSpec:
        if not self.space and not self.parameters:
            raise ValueError("tune needs a space file, parameters or both")
        for where in [self.parameters, *self.sizes.values()]:
            for name, values in where.items():
                if not values:
                    raise ValueError(f"tune: parameter '{name}' has no values")
        return self


PROPERTIES = ("sp_overlap",)


class RunSpec(Strict):
    """One run: overrides of the base config tree (``set``, dotted keys), an evaluation
    ``baseline``, or a ``report`` (a JSON file another stage wrote, e.g. the classifier's
    ``metrics.json``, read as it is by ``report/...`` metrics). ``select: true`` runs
    ``paralib select`` with the run's ``select`` section first (``{selection}`` in the config
    is its output folder); ``trained: false`` keeps the fitted tokenisers and initial weights
    (enough for encoding speed); ``tune`` chooses parameters on dev data first
    (:class:`TuneSpec`); ``properties`` are measured on the run's data after training
    (``sp_overlap``: 2019 note 10, options of
    :func:`paralib.experiments.overlap.bitext_sp_overlap`), read as ``properties/NAME``."""

    set: dict[str, Any] = Field(default_factory=dict)
    baseline: str | None = None
    report: str | None = None
    select: bool = False
    trained: bool = True
    tune: TuneSpec | None = None
    properties: dict[str, dict[str, Any]] = Field(default_factory=dict)
    needs: list[Need] = Field(default_factory=list)

    @model_validator(mode="after")
    def _baseline_alone(self) -> RunSpec:
        if self.baseline and self.report:
            raise ValueError("a run is a baseline or a report, not both")
        if (self.baseline or self.report) and (self.set or self.select or not self.trained
                                               or self.tune or self.properties):
            raise ValueError("a baseline or report run takes no set, select, trained, tune "
                             "or properties")
        bad = sorted(set(self.properties) - set(PROPERTIES))
        if bad:
            raise ValueError(f"unknown run properties {', '.join(bad)} (known: "
                             f"{', '.join(PROPERTIES)})")
        return self


class GridSpec(Strict):
    """Runs from the product of ``axes`` (axis → value label → run fragment); ``name`` is a
    template with one ``{axis}`` per axis. Fragments merge in axis order."""

    name: str
    axes: dict[str, dict[str, RunSpec]] = Field(min_length=1)

    @model_validator(mode="after")
    def _template_names_axes(self) -> GridSpec:
        fields = {f for _, f, _, _ in string.Formatter().parse(self.name) if f}
        if fields != set(self.axes):
            raise ValueError(f"grid name '{self.name}' must use each axis once: "
                             f"{', '.join(sorted(self.axes))}")
        return self

    def expand(self) -> dict[str, RunSpec]:
        """The runs of the grid, by name."""
        out: dict[str, RunSpec] = {}
        names = list(self.axes)
        for combo in itertools.product(*(self.axes[a].items() for a in names)):
            name = self.name.format(**{a: label for a, (label, _) in zip(names, combo,
                                                                          strict=True)})
            out[name] = merge_runs([frag for _, frag in combo], name)
        return out


def merge_runs(parts: list[RunSpec], name: str) -> RunSpec:
    """One run from grid fragments: overrides in order, needs together."""
    baselines = {p.baseline for p in parts if p.baseline}
    reports = {p.report for p in parts if p.report}
    if len(baselines) > 1 or len(reports) > 1:
        raise ValueError(f"grid run '{name}' gets two baselines or reports")
    tunes = [p.tune for p in parts if p.tune]
    if len(tunes) > 1:
        raise ValueError(f"grid run '{name}' gets two tune sections")
    return RunSpec(set={k: v for p in parts for k, v in p.set.items()},
                   baseline=next(iter(baselines), None), report=next(iter(reports), None),
                   select=any(p.select for p in parts), trained=all(p.trained for p in parts),
                   tune=tunes[0] if tunes else None,
                   properties={k: v for p in parts for k, v in p.properties.items()},
                   needs=[n for p in parts for n in p.needs])


class SizeSpec(Strict):
    """Settings of one size: the training ``engine`` (``local``: in this process, no Ray;
    ``ray``: ``paralib train``'s Ray Train trainer), overrides for every run (``set``) and for
    runs whose name matches a glob (``match``), runs not made at this size (``skip``) and
    evaluation settings (``evaluate``, fields of ``paralib.evaluate.Settings``)."""

    engine: Literal["local", "ray"] = "local"
    set: dict[str, Any] = Field(default_factory=dict)
    match: dict[str, dict[str, Any]] = Field(default_factory=dict)
    skip: list[str] = Field(default_factory=list)
    evaluate: dict[str, Any] = Field(default_factory=dict)


class EvaluateSpec(Strict):
    """The evaluation suites every run is evaluated on, and ``paralib.evaluate.Settings``."""

    suites: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)


class Experiment(Strict):
    """One experiment file."""

    number: int = Field(ge=1)
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str
    paper: PaperTable
    ours: OursSpec
    base: dict[str, Any] = Field(default_factory=dict)
    runs: dict[str, RunSpec] = Field(default_factory=dict)
    grid: GridSpec | None = None
    compare: list[Comparison] = Field(default_factory=list)
    evaluate: EvaluateSpec = Field(default_factory=EvaluateSpec)
    sizes: dict[Size, SizeSpec]
    plot: PlotSpec | None = None
    needs: list[Need] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Experiment:
        runs = self.all_runs()
        for row in self.paper.rows:
            for col in self.paper.columns:
                ref = self.ours.cell(row, col)
                for name in self.cell_runs(ref) if ref is not None else []:
                    if name not in runs:
                        raise ValueError(f"ours: cell ({row}, {col}) reads run '{name}', "
                                         f"which is not defined (runs: {', '.join(runs)})")
        for where, kind in (("rows", "rows"), ("columns", "columns"), ("absent", "rows"),
                            ("unavailable", "columns")):
            for label in getattr(self.ours, where):
                if label not in getattr(self.paper, kind):
                    raise ValueError(f"ours.{where}: '{label}' is not in paper.{kind}")
        for i, comp in enumerate(self.compare):
            for a, b in comp.pairs(self.paper.rows, self.paper.columns):
                for r, c in [a] + ([b] if b is not None else []):
                    if r not in self.paper.rows or c not in self.paper.columns:
                        raise ValueError(f"compare[{i}]: cell ({r}, {c}) is not in the table")
        for size, spec in self.sizes.items():
            for pattern in [*spec.match, *spec.skip]:
                if not any(fnmatch.fnmatchcase(r, pattern) for r in runs):
                    raise ValueError(f"sizes.{size}: '{pattern}' matches no run")
        if not self.evaluate.suites and any(not r.report for r in runs.values()):
            raise ValueError("evaluate.suites: models and baselines need evaluation suites")
        if "smoke" not in self.sizes or "full" not in self.sizes:
            raise ValueError("sizes needs at least 'smoke' and 'full'")
        if self.plot:
            self.plot.check(self)
        return self

    def axis_values(self, step: AggStep) -> list[str]:
        """The values an aggregation step goes over: its own, or the grid axis's labels."""
        if step.values is not None:
            return list(step.values)
        if self.grid is None or step.over not in self.grid.axes:
            raise ValueError(f"aggregate over '{step.over}': give values, or name a grid axis "
                             f"({', '.join(self.grid.axes) if self.grid else 'no grid'})")
        return list(self.grid.axes[step.over])

    def cell_runs(self, ref: CellRef) -> list[str]:
        """Every run a cell reads (one, or all those its aggregation steps name)."""
        names = [ref.run]
        for step in ref.aggregate:
            names = [fill(n, **{step.over: v}) for n in names for v in self.axis_values(step)]
        return names

    def all_runs(self) -> dict[str, RunSpec]:
        """Written-out runs and grid runs, by name (names are unique)."""
        runs = dict(self.runs)
        for name, spec in (self.grid.expand() if self.grid else {}).items():
            if name in runs:
                raise ValueError(f"run '{name}' is defined in runs and by the grid")
            runs[name] = spec
        if not runs:
            raise ValueError("an experiment needs runs (runs or grid)")
        return runs

    def runs_at(self, size: str) -> dict[str, RunSpec]:
        """The runs made at ``size`` (the others are skipped at that size)."""
        skip = self.sizes[size].skip  # type: ignore[index]
        return {n: r for n, r in self.all_runs().items()
                if not any(fnmatch.fnmatchcase(n, p) for p in skip)}


def format_errors(exc: ValidationError, source: str) -> str:
    """A readable list of what is wrong in an experiment file."""
    lines = [f"invalid experiment {source}:"]
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        if err["type"] == "missing":
            msg = "missing (required)"
        if err["type"] == "union_tag_invalid":
            msg = (f"kind '{err['ctx']['tag']}' is not one of "
                   f"{err['ctx']['expected_tags']}")
        lines.append(f"  {loc}: {msg}")
    return "\n".join(lines)


def parse_experiment(tree: Any, source: str) -> Experiment:
    """Validate an experiment tree (from YAML); errors name ``source`` and the key."""
    if not isinstance(tree, dict):
        raise ExperimentError(f"{source}: top level must be a mapping")
    if not isinstance(tree.get("paper"), dict) or "table" not in tree["paper"]:
        raise ExperimentError(f"invalid experiment {source}: paper.table: missing (which "
                              "table of which paper this reproduces)")
    try:
        return Experiment.model_validate(tree)
    except ValidationError as exc:
        raise ExperimentError(format_errors(exc, source)) from None


def load_experiment(name: str | Path) -> Experiment:
    """Read and validate ``experiments/NAME.yaml`` (or a path to a file)."""
    path = Path(name)
    if path.suffix not in (".yaml", ".yml") and not path.is_file():
        path = EXPERIMENTS_DIR / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(list_experiments()) or "none"
        raise ExperimentError(f"no experiment '{name}' ({path} not found; known: {known})")
    tree = read_yaml(path, ExperimentError)
    exp = parse_experiment(tree, str(path))
    if exp.name != path.stem:
        raise ExperimentError(f"{path}: name '{exp.name}' differs from the file name "
                              f"'{path.stem}'")
    return exp


def list_experiments(folder: Path = EXPERIMENTS_DIR) -> list[str]:
    """Experiment names in ``folder``, in file-name order."""
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []


def slug(name: str) -> str:
    """A file-system and Ray-safe form of a run name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "run"
