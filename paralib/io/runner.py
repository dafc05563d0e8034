"""The sharded-stage runner: the one place the shard loop of every Ray Data stage is written.

A stage (back-translation, scoring, decontamination, encoding, captions) says three things,
as a :class:`ShardedStage`: how it plans its shards (:meth:`ShardedStage.plan`, a
:class:`Plan`), what its actors do to a shard (:meth:`ShardedStage.actors`, a read step, one
or more :class:`Actor` pools and a write step) and what it writes (its output, schema, unit
and the files it owns). :func:`run_stage` does the rest, once, in datatrove's executor order:

1. check every ``s3://`` bucket of the config (:meth:`StageContext.check_buckets`);
2. plan the shards and their fingerprints;
3. claim the output (:func:`paralib.io.ownership.claim`: not an input, not another stage's
   output, not the output of other inputs without ``overwrite``, one writer at a time);
4. count the shards already done (:func:`paralib.io.stage.pending`: their markers match);
5. start or join Ray, check that an actor fits (:func:`paralib.runtime.check_fits`), build
   ``from_items(shards) -> read -> actors -> write`` and consume the per-shard coverage rows,
   writing each shard's marker once all its rows are in (:func:`paralib.io.stage.collect`);
6. write ``_summary.json`` and check that every input row is accounted for
   (:func:`paralib.io.stage.finish`).

A stage whose work runs in the driver (captions) uses :func:`held` for steps 2-4 and writes
its shards itself.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa

from paralib.console import data_progress_bars
from paralib.io.bitext import ShardSpec, shard_inputs
from paralib.io.context import StageContext
from paralib.io.ownership import claim
from paralib.io.stage import StageReport, collect, finish, pending, write_parts
from paralib.runtime import check_fits

Rows = Callable[[list[str]], "int | None"]


@dataclass
class Plan:
    """A stage's shards: ``items`` (``{shard key: the row :func:`ray.data.from_items` gets}``,
    in shard order), each shard's fingerprint (``prints``), the content fingerprints of its
    input files (``contents``, :func:`paralib.io.bitext.shard_inputs`; ``None`` when the
    input is another stage's output, whose markers say it), and ``rows``: the input rows of
    some shards (the progress bar's total; ``None``: count shards)."""

    items: dict[str, dict]
    prints: dict[str, Any]
    contents: dict[str, tuple[str, tuple[str, ...]]] | None = None
    rows: Rows = field(default=lambda keys: None)


@dataclass(frozen=True)
class Actor:
    """One actor pool, the shape of Ray's batch-inference examples:
    ``map_batches(cls, fn_constructor_kwargs=kwargs, compute=ActorPoolStrategy(min_size,
    max_size), num_cpus=..., num_gpus=...)``. ``what`` names the pool when one actor fits no
    node; ``together`` actors must fit the cluster at once (a fixed-size pool)."""

    cls: type
    kwargs: dict[str, Any]
    what: str
    batch_size: int | None = None
    min_size: int = 1
    max_size: int = 1
    num_cpus: float = 1.0
    num_gpus: float = 0.0
    resources: dict[str, float] = field(default_factory=dict)
    together: int = 1

    def bundle(self) -> dict[str, float]:
        """What one actor reserves (as :func:`paralib.runtime.check_fits` takes it)."""
        return {"CPU": self.num_cpus, "GPU": self.num_gpus, **self.resources}

    def apply(self, ds):
        """``ds`` through this pool."""
        import ray

        return ds.map_batches(
            self.cls, fn_constructor_kwargs=self.kwargs, batch_size=self.batch_size,
            batch_format="pandas", num_cpus=self.num_cpus, num_gpus=self.num_gpus,
            resources=self.resources or None,
            compute=ray.data.ActorPoolStrategy(min_size=self.min_size,
                                               max_size=self.max_size))


@dataclass(frozen=True)
class Work:
    """What the actors do to the shards: ``read`` (a function of a batch of shard items and
    ``read_kwargs``, run as light tasks; ``None`` when the first actor reads), the actor
    pools in order, and whether the runner writes the parts (:func:`write_parts`; false
    when the last actor writes them and returns coverage rows)."""

    actors: list[Actor]
    read: Callable | None = None
    read_kwargs: dict[str, Any] = field(default_factory=dict)
    write: bool = True


class StageOutput(ABC):
    """A stage that writes shards: its command ``name``, its ``output`` folder (``key`` names
    it in messages), the ``unit`` of its output rows, its own files besides the parts and
    markers (``extra``), and the ``schema`` (or ``columns``) of its data parts."""

    name: str
    output: str
    key: str
    unit: str
    overwrite: bool = False
    extra: tuple[str, ...] = ()
    schema: pa.Schema | None = None
    columns: list[str] | None = None

    def __init__(self, ctx: StageContext):
        self.ctx = ctx

    @abstractmethod
    def plan(self) -> Plan:
        """Check the stage's inputs and options, and plan its shards."""

    @abstractmethod
    def claimed(self) -> tuple[dict[str, str], dict]:
        """The inputs (``{config key: path}``) and options recorded when the output is
        claimed."""

    def guard(self) -> AbstractContextManager:
        """A context held with the output (encode's one S3 error); none by default."""
        return nullcontext()


class ShardedStage(StageOutput):
    """A stage whose shards go through Ray Data actors (:func:`run_stage`)."""

    ray_bars: bool = True  # Ray Data's own progress bars (with --verbose)

    @abstractmethod
    def work(self, cluster: dict, keys: list[str]) -> Work:
        """The read step, actor pools and write step for the pending shards ``keys`` on a
        cluster with ``cluster`` resources."""

    def before(self, keys: list[str], report: StageReport) -> list[str]:
        """The pending shards that need actors (score marks its empty shards here)."""
        return keys

    def after(self, report: StageReport) -> None:
        """Work after the shards, before the summary (decontaminate's de-duplication)."""
        return None


@contextmanager
def held(stage: StageOutput, plan: Plan) -> Iterator[tuple[StageReport, list[str]]]:
    """Claim the stage's output and yield its report and pending shard keys (markers of
    finished shards counted, partial files of the others deleted)."""
    s3 = stage.ctx.storage
    inputs, made = stage.claimed()
    with claim(stage.output, stage.name, inputs, made, s3, stage.overwrite, extra=stage.extra,
               key=stage.key), stage.guard():
        report = StageReport(output=stage.output, unit=stage.unit, shards=len(plan.items),
                             stage=stage.name)
        yield report, pending(list(plan.items), stage.output, s3, report, plan.prints,
                              plan.contents)


def run_stage(stage: ShardedStage) -> StageReport:
    """Run ``stage`` (see the module's docstring); returns its counts, also written to
    ``_summary.json``."""
    stage.ctx.check_buckets()
    t0 = time.perf_counter()
    plan = stage.plan()
    with held(stage, plan) as (report, keys):
        keys = stage.before(keys, report)
        if keys:
            _run_shards(stage, plan, keys, report)
        stage.after(report)
        return finish(report, stage.ctx.storage, t0)


def _run_shards(stage: ShardedStage, plan: Plan, keys: list[str], report: StageReport) -> None:
    """Shards ``keys`` through the stage's actors, on Ray Data or, with ``ray.in_process``,
    one shard after another in this process; their markers are written as their coverage
    rows come in."""
    ctx = stage.ctx
    items = [plan.items[k] for k in keys]
    if ctx.ray.in_process:
        # this process's CPUs, no GPU (a GPU actor still uses CUDA where its device says so)
        work = stage.work({"CPU": float(os.cpu_count() or 1)}, keys)
        batches = in_process(work, items, write_kwargs(stage) if work.write else None)
    else:
        batches = _on_ray(stage, stage.work(ctx.init_ray(), keys), items)
    collect(batches, keys, stage.output, ctx.storage, report, ctx.progress, stage.name,
            plan.prints, rows=plan.rows(keys), inputs=plan.contents)


def _on_ray(stage: ShardedStage, work: Work, items: list[dict]) -> Iterator[pd.DataFrame]:
    """``from_items(shards) -> read -> actor pools -> write`` on Ray Data: its batches of
    coverage rows."""
    import ray

    for bundle, what, together in dict.fromkeys(
            (tuple(a.bundle().items()), a.what, a.together) for a in work.actors):
        check_fits(stage.ctx.ray, dict(bundle), what, count=together)
    ray.data.DataContext.get_current().enable_progress_bars = (
        stage.ray_bars and data_progress_bars(stage.ctx.progress))
    ds = ray.data.from_items(items, override_num_blocks=len(items))
    if work.read is not None:
        ds = ds.map_batches(work.read, batch_size=1, batch_format="pandas", num_cpus=0.25,
                            fn_kwargs=work.read_kwargs)
    for actor in work.actors:
        ds = actor.apply(ds)
    if work.write:
        ds = ds.map_batches(write_parts, batch_size=None, batch_format="pandas",
                            num_cpus=0.25, fn_kwargs=write_kwargs(stage))
    return ds.iter_batches(batch_size=None, batch_format="pandas")


def in_process(work: Work, items: list[dict], write: dict | None) -> Iterator[pd.DataFrame]:
    """The same read -> actors -> write chain as on Ray, one shard at a time in this
    process, each actor made once (``ray.in_process``: no Ray start-up, no object store,
    a debugger sees every step); yields each shard's coverage rows."""
    actors = [(a.cls(**a.kwargs), a.batch_size) for a in work.actors]
    for item in items:
        rows = pd.DataFrame([item])
        if work.read is not None:
            rows = work.read(rows, **work.read_kwargs)
        for actor, size in actors:
            step = size or max(len(rows), 1)
            parts = [actor(rows.iloc[i:i + step].reset_index(drop=True))
                     for i in range(0, max(len(rows), 1), step)]
            rows = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        yield write_parts(rows, **write) if write is not None else rows


def bitext_plan(shards: list[ShardSpec], prints: dict[str, Any]) -> Plan:
    """The plan of bitext or text shards (:func:`paralib.io.bitext.plan_shards`): their
    specs as items, the content fingerprints of their files, their rows as the progress
    total."""
    rows = {s.key: s.rows for s in shards}
    return Plan(items={s.key: s.to_dict() for s in shards}, prints=prints,
                contents=shard_inputs(shards), rows=lambda keys: sum(rows[k] for k in keys))


def write_kwargs(stage: ShardedStage) -> dict[str, Any]:
    """The arguments of :func:`write_parts` for ``stage``'s parts."""
    types = {"schema": stage.schema} if stage.schema is not None else {"columns": stage.columns}
    return {"out": stage.output, "s3": stage.ctx.storage, **types}
