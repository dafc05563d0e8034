"""The translation pipeline on Ray Data, for one leg (back-translation, paraphrase
generation) or two chained legs (round-trip pivoting).

One actor pool of :class:`~paralib.translate.stages.ShardActor` reads each shard, translates
it through every leg and writes its parts (``backtranslate.fuse_io``, the default; with it off:
read stage (tasks) → one actor pool of :class:`~paralib.translate.stages.TranslateActor` per
leg → write stage (tasks)); the driver only receives per-shard counts and writes a shard's
completion marker once every input row of the shard is written, so a killed job resumes. One
GPU per actor when the cluster has GPUs, fractional CPUs otherwise.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pyarrow as pa

from paralib.config import BacktranslateConfig, Config
from paralib.console import data_progress_bars
from paralib.io.bitext import BitextError, ShardSpec, plan_shards, read_shards, shard_inputs
from paralib.io.config import InputConfig
from paralib.io.fs import S3Options, check_s3_paths
from paralib.io.ownership import bitext_inputs, claim
from paralib.io.stage import (
    StageReport,
    collect,
    fingerprint,
    finish,
    pending,
    write_parts,
)
from paralib.runtime import check_fits, init_ray
from paralib.translate.stages import ShardActor, TranslateActor
from paralib.translate.translator import check_model_dir


@dataclass(frozen=True)
class Leg:
    """One translation step: ``model`` (or a model per source language) reads ``source`` and
    writes ``targets``."""

    model: str | dict[str, str]
    source: str
    targets: tuple[str, str, str]
    num_hypotheses: int


def actor_plan(bt: BacktranslateConfig, resources: dict, shard_rows: int) -> dict:
    """Resources and CTranslate2 settings of the translation actors.

    ``device: auto`` uses one GPU per actor when the cluster reports GPUs (at most one actor
    per GPU), CPU actors otherwise. On CPU each actor reserves ``num_cpus_per_actor`` and runs
    ``intra_threads`` threads. ``device: cuda`` requests GPUs even when none is up yet, so an
    autoscaler starts GPU nodes. ``actors_per_gpu`` > 1 shares each GPU between that many
    actors (a fraction of a GPU each), so that one tokenises and writes while another
    translates. ``rows_per_batch`` unset means a whole shard per call: Ray Data's block on
    CPU, and ``shard_rows`` rows on a GPU, where Ray Data needs a number.
    """
    gpus = int(resources.get("GPU", 0))
    use_gpu = bt.device == "cuda" or (bt.device == "auto" and gpus > 0)
    if use_gpu:
        per = bt.actors_per_gpu
        size = bt.actors if bt.device == "cuda" else max(1, min(bt.actors, gpus * per))
        return {"device": "cuda", "num_gpus": 1 / per, "num_cpus": 1,
                "min": min(bt.min_actors, size),
                "max": size, "intra_threads": 1, "inter_threads": 1,
                "rows_per_batch": bt.rows_per_batch or shard_rows}
    return {"device": "cpu", "num_gpus": 0, "num_cpus": bt.num_cpus_per_actor,
            "min": bt.min_actors, "max": bt.actors, "intra_threads": bt.intra_threads,
            "inter_threads": bt.inter_threads, "rows_per_batch": bt.rows_per_batch}


def actor_kwargs(bt: BacktranslateConfig, leg: Leg, plan: dict) -> dict:
    """The :class:`TranslateActor` arguments of one leg."""
    options = {"beam_size": bt.beam_size, "num_hypotheses": leg.num_hypotheses,
               "length_penalty": bt.length_penalty, "max_input_length": bt.max_input_length,
               "max_decoding_length": bt.max_decoding_length,
               "max_batch_size": bt.batch_size, "batch_type": bt.batch_type}
    return {"model": leg.model, "options": options, "device": plan["device"],
            "compute_type": bt.compute_type, "intra_threads": plan["intra_threads"],
            "inter_threads": plan["inter_threads"], "source_column": leg.source,
            "target_columns": leg.targets}


def run_translation(cfg: Config, opts: BacktranslateConfig, inputs: list[InputConfig],
                    legs: list[Leg], schema: pa.Schema, unit: str, desc: str,
                    progress: bool = True, inputs_key: str = "bitext.inputs") -> StageReport:
    """Run ``legs`` over ``inputs`` and write ``schema`` columns to ``opts.output``.

    ``desc`` is the stage's command (``backtranslate``, ``pivot``, ``paraphrase``) and
    ``inputs_key`` the config key of ``inputs``. The output folder is claimed first
    (:func:`paralib.io.ownership.claim`: not an input, not another stage's output, not
    the output of other inputs without ``overwrite``, one writer at a time)."""
    s3 = cfg.s3.options()
    check_s3_paths(cfg.model_dump(), s3)  # every bucket of the config, before any work
    for leg in legs:
        for model in leg.model.values() if isinstance(leg.model, dict) else [leg.model]:
            check_model_dir(model)
    if not inputs:
        raise BitextError(f"{desc}: no inputs configured (set bitext.inputs, or pivot.inputs "
                          "for round trips)")
    t0 = time.perf_counter()
    shards = plan_shards(inputs, cfg.bitext.shard_rows, s3)
    options = opts.model_dump(exclude={
        "output", "overwrite", "actors", "min_actors", "num_cpus_per_actor", "intra_threads",
        "inter_threads", "device", "actors_per_gpu", "actor_resources", "rows_per_batch",
        "compute_type", "fuse_io"})
    made = {**options, "max_chars": cfg.bitext.max_chars,
            "legs": [leg.__dict__ for leg in legs], "checks": cfg.bitext.checks.model_dump()}
    with claim(opts.output, desc, bitext_inputs(inputs, inputs_key), made, s3, opts.overwrite,
               key=f"{desc}.output"):
        return _run(cfg, opts, shards, legs, options, schema, unit, desc, s3, progress, t0)


def _run(cfg: Config, opts: BacktranslateConfig, shards: list[ShardSpec], legs: list[Leg],
         options: dict, schema: pa.Schema, unit: str, desc: str, s3: S3Options | None,
         progress: bool, t0: float) -> StageReport:
    """The stage on an output folder that :func:`run_translation` holds."""
    import ray

    report = StageReport(output=opts.output, unit=unit, shards=len(shards), stage=desc)
    prints = {s.key: fingerprint(s.to_dict(), options, cfg.bitext.max_chars,
                                 [leg.__dict__ for leg in legs],
                                 cfg.bitext.checks.model_dump()) for s in shards}
    inputs = shard_inputs(shards)
    keys = pending([s.key for s in shards], opts.output, s3, report, prints, inputs)
    if keys:
        wanted = set(keys)
        todo = [s for s in shards if s.key in wanted]
        plan = actor_plan(opts, init_ray(cfg.ray), cfg.bitext.shard_rows)
        check_fits(cfg.ray, {"CPU": plan["num_cpus"], "GPU": plan["num_gpus"],
                             **opts.actor_resources}, f"{desc} translation actor")
        ray.data.DataContext.get_current().enable_progress_bars = data_progress_bars(progress)
        ds = ray.data.from_items([s.to_dict() for s in todo], override_num_blocks=len(todo))
        read = {"max_chars": cfg.bitext.max_chars, "s3": s3,
                "checks": cfg.bitext.checks.model_dump()}
        write = {"out": opts.output, "s3": s3, "schema": schema}
        actors = [actor_kwargs(opts, leg, plan) for leg in legs]
        pool = {"compute": ray.data.ActorPoolStrategy(min_size=plan["min"],
                                                      max_size=plan["max"]),
                "num_cpus": plan["num_cpus"], "num_gpus": plan["num_gpus"],
                "resources": opts.actor_resources or None, "batch_format": "pandas"}
        if opts.fuse_io:
            ds = ds.map_batches(ShardActor, batch_size=1, fn_constructor_kwargs={
                "legs": actors, "read": read, "write": write}, **pool)
        else:
            ds = ds.map_batches(read_shards, batch_size=1, batch_format="pandas",
                                num_cpus=0.25, fn_kwargs=read)
            for kwargs in actors:
                ds = ds.map_batches(TranslateActor, fn_constructor_kwargs=kwargs,
                                    batch_size=plan["rows_per_batch"], **pool)
            ds = ds.map_batches(write_parts, batch_size=None, batch_format="pandas",
                                num_cpus=0.25, fn_kwargs=write)
        collect(ds, keys, opts.output, s3, report, progress, desc, prints,
                rows=sum(s.rows for s in todo), inputs=inputs)
    return finish(report, s3, t0)
