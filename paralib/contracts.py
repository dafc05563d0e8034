"""The typed contracts at the seams of one run: what one stage hands the next.

A run goes config → stages (each shard's completion marker: :class:`StageManifest`) →
training (:class:`TrainingSummary`, ``training.json``) → evaluation (:class:`EvalReport`,
``report.json``) → its record (:class:`RunRecord`, an experiment's ``run.json`` and the kept
``docs/results/runs/``); a tuning search records each trial as a :class:`TrialRecord` and
the search as a :class:`TuneSummary` (its ``report/report.json``). Every
writer builds one of these and writes :meth:`Contract.dump`; every reader loads a file
through :meth:`Contract.load`, which migrates what an older paralib wrote (:func:`migrate`).

Each contract carries a ``version``. Version 0 is what paralib wrote before the contracts
existed (no ``version`` key): the same keys, so migrating it only stamps the version. A
contract keeps keys it does not declare (a later field read by an older reader) and writes
back exactly the keys it was given, so a record loaded and written again is unchanged but
for its version.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypeAliasType

from paralib.errors import InputError

VERSION = 1

Scalar = bool | int | float | str | None
# a JSON value: a union, so that each value keeps its own type (1 stays 1, 1.0 stays 1.0)
Value = TypeAliasType("Value", "Scalar | list[Value] | dict[str, Value]")
Params = dict[str, Value]
"""Parameter name → value (``length_range``: ``[lo, hi]``; a dotted key: what it takes)."""


class ContractError(InputError, ValueError):
    """A record written by a newer paralib, or one that does not hold its contract."""


def migrate(data: Mapping[str, Any], kind: str = "record") -> dict[str, Any]:
    """``data`` as the current :data:`VERSION` of its contract: version 0 (no ``version``
    key, written before the contracts) holds the same keys, so it is stamped; a version
    newer than this paralib's is refused."""
    version = data.get("version", 0)
    if not isinstance(version, int) or version > VERSION:
        raise ContractError(f"a {kind} of version {version!r}: this paralib reads versions "
                            f"0 to {VERSION}; upgrade paralib")
    return {**data, "version": VERSION}


class Record(BaseModel):
    """A typed record that keeps undeclared keys and reads a field by name too
    (``report["rows_out"]``), as the dict a stage returned before its contract did."""

    model_config = ConfigDict(extra="allow")

    def __getitem__(self, key: str) -> Any:
        """The field ``key``."""
        return getattr(self, key)

    def fields(self) -> dict[str, Any]:
        """The record as JSON-able data, without the contract's ``version``."""
        return self.model_dump(mode="json", exclude={"version"})


class Contract(Record):
    """A versioned record: undeclared keys are kept, and :meth:`dump` writes back exactly
    the keys that were set (so that an old record round-trips)."""

    version: int = VERSION

    @classmethod
    def load(cls, data: Mapping[str, Any] | Contract) -> Any:
        """Read ``data`` (a parsed JSON file or a dict a writer made), migrated."""
        if isinstance(data, cls):
            return data
        if isinstance(data, Contract):
            data = data.dump()
        return cls.model_validate(migrate(data, cls.__name__))

    def dump(self) -> dict[str, Any]:
        """The JSON-able dict to write: ``version`` first, then every key that was set."""
        return {"version": self.version,
                **self.model_dump(exclude_unset=True, exclude={"version"})}


class LMModels(Contract):
    """What ``paralib lm train`` made: the models folder, the held-out references and the
    file of held-out pair ids that selection leaves out."""

    models: str
    references: int
    heldout_pairs: int
    heldout_file: str


class ClassifierReport(Contract):
    """What ``paralib classifier train`` made (2017 Table 8): the best encoder, the split
    sizes, the seconds, each classifier's test accuracies and the output folder."""

    best: str
    split: dict[str, int]
    seconds: float
    test: dict[str, dict[str, float]]
    output: str


class SelectStep(Record):
    """One step of a selection: its name, the rows it kept, and its own settings (kept as
    undeclared keys: a bound's column and limits, a sample's size)."""

    step: str
    kept: int


class SelectionReport(Contract):
    """What ``paralib select`` made (its ``selection.json`` less the files): the seed, rows
    in and out, each step, the spec and the files written."""

    seed: int | None = None
    rows_in: int
    rows_out: int
    steps: list[SelectStep]
    spec: dict[str, Any]
    files: dict[str, str] = Field(default_factory=dict)



class StageManifest(Contract):
    """What a shard's completion marker (``_markers/KEY.json``) holds: its counts
    (``rows_in = rows_out + rows_rejected``; ``hypotheses`` output rows), the reject counts
    by reason, the stage's command, and the fingerprint of what made it, with the flattened
    keys it was made of (``identity``) and the content fingerprint of its input files."""

    rows_in: int = 0
    rows_out: int = 0
    rows_rejected: int = 0
    hypotheses: int = 0
    reasons: dict[str, int] = Field(default_factory=dict)
    stage: str = ""
    fingerprint: str | None = None
    identity: dict[str, Value] | None = None
    input: str | None = None


class EpochRecord(Record):
    """One epoch of ``history`` (:func:`paralib.train.epoch.epoch_record`); an older record
    may lack any field (``dev_pearson`` alone stands for ``dev_score`` before it existed)."""

    epoch: int = 0
    loss: float | None = None
    dev_score: float | None = None
    dev_metric: str | None = None
    dev_pearson: float | None = None
    dev_cos_mean: float | None = None
    dev_cos_sd: float | None = None
    dev_seconds: float | None = None
    collapsed: bool = False
    pairs: int | None = None
    seconds: float | None = None
    pairs_per_s: float | None = None
    step: int | None = None
    skipped_pairs: int | None = None

    def score(self) -> float | None:
        """The epoch's dev score (``dev_pearson`` in a record written before ``dev_score``)."""
        return self.dev_pearson if self.dev_score is None else self.dev_score


class TrainingSummary(Contract):
    """``training.json`` (2018 §5.2: the best epoch on dev is kept): the model folder, its
    pairs and rejects, the best epoch and its dev score (``dev_score``, named by
    ``dev_metric``; ``dev_pearson`` too on an STS dev set, and alone in files written before
    ``dev_score``: :meth:`best_dev`), every epoch's record (``history``), and how it was
    trained (workers, GPU, engine, resume)."""

    model: str = ""
    pairs: int = 0
    rejected: int = 0
    best_epoch: int = 0
    dev: str = "none"
    dev_pearson: float | None = None
    dev_score: float | None = None
    dev_metric: str | None = None
    workers: int = 1
    gpu: bool = False
    bilingual: bool = False
    languages: list[str] = Field(default_factory=list)
    history: list[EpochRecord] = Field(default_factory=list)
    resumed_from_epoch: int = 0
    run: str | None = None
    decontaminated: dict[str, int] | str | None = None
    # the training mix: pairs per corpus and language (train/sources.py mix_counts)
    mix: dict[str, dict[str, int]] = Field(default_factory=dict)
    engine: str = "ray"
    trained: bool = True
    # seconds of each phase of the call (prepare, ray_init, ship, train), in order
    timings: dict[str, float] = Field(default_factory=dict)

    def best_dev(self) -> tuple[float | None, str]:
        """The kept epoch's dev score and its metric's name (``pearson``, ``xnli-retrieval``
        or ``none``), from a file of any version: one written before ``dev_score`` existed
        holds a Pearson's ``dev_pearson``."""
        if self.dev_metric is not None:
            return self.dev_score, self.dev_metric
        return self.dev_pearson, "none" if self.dev == "none" else "pearson"


class EvalData(Record):
    """One evaluation set as loaded: ``ok`` with its sizes and ``files`` (kept as written),
    or ``missing`` with the absent ``file``, the folder it was looked for in and a message."""

    status: str = "ok"
    file: str | None = None
    looked_in: str | None = None
    message: str | None = None


class TaskReport(Contract):
    """One evaluation suite in the report: its title, paper, notes, each model's result
    (``models``: the suite's own keys, ``status`` ``ok`` or why not), its data sets."""

    title: str = ""
    paper: str = ""
    notes: list[str] = Field(default_factory=list)
    models: dict[str, dict[str, Any]] = Field(default_factory=dict)
    data: dict[str, EvalData] = Field(default_factory=dict)
    error: str | None = None


class EvalEntry(Record):
    """One evaluated model: what it is, the languages it covers (``None``: any), ``encoder``
    or ``pair scorer``, how it is rebuilt (``kind`` model or baseline, ``ref``), its info."""

    description: str = ""
    languages: list[str] | None = None
    kind: str = "encoder"
    source: dict[str, str] | None = None
    info: dict[str, Any] = Field(default_factory=dict)


class EvalReport(Contract):
    """``report.json`` of ``paralib evaluate``: the data root, the suites in run order, the
    seed, each model's :class:`EvalEntry`, each suite's :class:`TaskReport` and the files
    written (``json``, ``markdown``, ``html`` and ``plots``: suite → PNG)."""

    data: str = ""
    suites: list[str] = Field(default_factory=list)
    seed: int = 0
    models: dict[str, EvalEntry] = Field(default_factory=dict)
    tasks: dict[str, TaskReport] = Field(default_factory=dict)
    files: dict[str, str | dict[str, str]] | None = None

    def results(self, model: str) -> dict[str, dict[str, Any]]:
        """``{suite: result}`` of one model (the per-model entries of every suite)."""
        return {suite: task.models[model] for suite, task in self.tasks.items()}

    def result(self, suite: str, model: str) -> dict[str, Any]:
        """``model``'s result of ``suite``; ``{}`` when the report has no such entry."""
        return self.tasks[suite].models.get(model, {}) if suite in self.tasks else {}

    def pearson(self, suite: str, model: str, *path: str) -> float | None:
        """The Pearson's r x100 at ``path`` in ``model``'s result of ``suite``
        (``pearson("stsb", m, "sets", "dev")``); ``None`` when any step is missing."""
        node: Any = self.result(suite, model)
        for key in path:
            node = node.get(key, {}) if isinstance(node, dict) else {}
        return node.get("pearson") if isinstance(node, dict) else None


class RunSetup(Record):
    """What a run's model is (for the results book): its encoder ``parts``, how they
    ``combine``, epochs, mega-batch size, whether ``trained`` and the ``engine``; or the
    ``baseline`` or ``report`` it reads instead."""

    parts: list[str] | None = None
    combine: str | None = None
    epochs: int | None = None
    megabatch: int | None = None
    trained: bool | None = None
    engine: str | None = None
    baseline: str | None = None
    report: str | None = None


class RowCounts(Record):
    """The rows a run's selection read and kept."""

    rows_in: int
    rows_out: int


class Made(Record):
    """When (UTC), on what machine (older records do not say) and at what load average (of
    the machine, all users) something was made."""

    at: str = ""
    load: float | None = None
    machine: str | None = None
    gpu: str | None = None


class Candidate(Record):
    """One candidate of a tuned run: its label and parameters, status and message, dev score
    (``value``), the pairs it trained on and whether its selection was too small for the
    size (``too_few_pairs``; before the flag, a ``SelectError`` message says so)."""

    label: str = ""
    params: Params = Field(default_factory=dict)
    status: str = "ok"
    message: str | None = None
    value: float | None = None
    too_few_pairs: bool | None = None
    pairs: int | None = None

    def too_small(self) -> bool:
        """Whether it failed only because its selection is smaller than the size."""
        return self.too_few_pairs if self.too_few_pairs is not None else \
            str(self.message).startswith("SelectError:")


class Tuned(Record):
    """What a tuned run chose on dev: the metric and its mode, the ``chosen`` candidate, its
    parameters and score (``None`` when no candidate scored) and every candidate."""

    metric: str = ""
    mode: str = "max"
    chosen: str | None = None
    params: Params | None = None
    value: float | None = None
    candidates: list[Candidate] = Field(default_factory=list)


class RunRecord(Contract):
    """One run of an experiment (``run.json``, kept as ``docs/results/runs/NAME/SIZE/RUN.json``):
    its status (``ok``, ``error``, ``missing``, ``skipped``, ``held``), the fingerprints that
    tell it from a changed run, what made its model (``selection``, ``train``), its evaluation
    results by suite (each suite's own keys), and seconds by step. A tuned run's candidates
    are run records too."""

    name: str = ""
    status: str = "ok"
    message: str | None = None
    setup: RunSetup | None = None
    params: Params | None = None
    train_key: str | None = None
    eval_key: str | None = None
    reused: bool | None = None
    selection: RowCounts | None = None
    train: TrainingSummary | None = None
    results: dict[str, Any] | None = None
    properties: dict[str, float] | None = None
    tuned: Tuned | None = None
    retrained: str | None = None
    too_few_pairs: bool | None = None
    seconds: dict[str, float] = Field(default_factory=dict)
    made: Made | None = None

    def complete(self, train_key: str, eval_key: str) -> bool:
        """Whether this is a finished run with these training and evaluation fingerprints
        (its results can stand for the run without its model). A tuned run whose choice
        missed a candidate for any reason but a selection too small for the size is not."""
        return self.status == "ok" and "results" in self.model_fields_set and \
            self.train_key == train_key and self.eval_key == eval_key and \
            all(c.too_small() for c in (self.tuned.candidates if self.tuned else [])
                if c.status == "error")


class TrialRecord(Contract):
    """One trial of a tuning search (2017 §5.2-5.7): its parameters, status (``completed``,
    ``stopped`` by ASHA, ``error``), per-epoch history, the pairs it trained on and where
    its results and model are."""

    trial_id: str = ""
    params: Params = Field(default_factory=dict)
    status: str = "completed"
    error: str | None = None
    epochs_planned: int = 0
    epochs_run: int = 0
    history: list[EpochRecord] = Field(default_factory=list)
    selected_pairs: int | None = None
    pairs: int | None = None
    path: str = ""
    model: str | None = None


class Asha(Record):
    """A search's ASHA early stopping: on or off, the most epochs a trial runs (``max_t``),
    the epochs before any stop (``grace_period``) and the ``reduction_factor``."""

    enabled: bool = False
    max_t: int = 0
    grace_period: int = 1
    reduction_factor: float = 2.0


class Searched(Record):
    """One searched parameter: its name and domain (``kind``), with ``values`` for a
    discrete one and ``low``/``high`` for a continuous one."""

    name: str
    kind: str
    values: list[Value] | None = None
    low: int | float | None = None
    high: int | float | None = None


class TuneTest(Record):
    """The best epoch's one evaluation: the suites, its model and report (relative to the
    report folder) and the headline test numbers (Pearson's r x100, ``None``: not ok)."""

    suites: list[str] = Field(default_factory=list)
    model: str = ""
    results: dict[str, float | None] = Field(default_factory=dict)
    report: str = ""


class TuneSummary(Contract):
    """What ``paralib tune`` returns and writes to ``report/report.json`` (2017 §5.2-5.7):
    the search and its settings, the searched ``parameters``, every :class:`TrialRecord`,
    the best (trial, epoch) on dev (``None`` when no trial reported the metric), its test
    results and the report's ``files``."""

    name: str = ""
    space: str = ""
    description: str | None = ""
    search: str = "grid"
    metric: str = "dev_pearson"
    mode: str = "max"
    seed: int = 0
    asha: Asha = Field(default_factory=Asha)
    concurrent: int = 1
    trial_cpus: float = 1.0
    worker_bundles: list[dict[str, float]] = Field(default_factory=list)
    experiment: str = ""
    seconds: float = 0.0
    selects: bool = True
    parameters: list[Searched] = Field(default_factory=list)
    placement_groups_reaped: int = 0
    trials: list[TrialRecord] = Field(default_factory=list)
    tensorboard: str = ""
    # the best epoch: trial_id, params, epoch, checkpoint_path, status and the metric's value
    # under the metric's own name (read back as it was written: results.read_best)
    best: dict[str, Any] | None = None
    test: TuneTest | None = None
    files: dict[str, str] | None = None
