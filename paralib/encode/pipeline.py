"""``paralib encode`` on Ray Data: monolingual text shards → an actor pool → Parquet vectors.

The shards (:func:`paralib.encode.read.plan_text_shards`) become the items of a dataset;
a pool of :class:`~paralib.encode.actor.EncodeActor` (one per CPU core, or one per GPU when
the cluster has GPUs) reads, encodes and writes each shard, and the driver receives only
per-shard counts and writes a shard's completion marker once all its lines are in
(:mod:`paralib.io.stage`, as back-translation does). A killed job resumes: complete shards
are skipped, an incomplete shard's partial parts are deleted and it is redone, so every
input line is in the output (``data/``) or in ``rejects/`` exactly once.
"""

from __future__ import annotations

import hashlib
import json
import time

from paralib.config import Config
from paralib.console import data_progress_bars
from paralib.encode.actor import EncodeActor
from paralib.encode.config import EncodeConfig
from paralib.encode.read import plan_text_shards
from paralib.errors import ConfigurationError
from paralib.io import fs as pfs
from paralib.io.bitext import ShardSpec
from paralib.io.fs import S3Options
from paralib.io.ownership import claim
from paralib.io.shards import summary_path
from paralib.io.stage import (
    StageReport,
    collect,
    fingerprint,
    finish,
    pending,
)
from paralib.models.errors import ModelLoadError
from paralib.models.folder import CONFIG, FORMAT, WEIGHTS  # torch-free
from paralib.runtime import check_fits, init_ray


class EncodeError(ConfigurationError, ValueError):
    """``paralib encode`` is asked for something it cannot do (no inputs, no model)."""


def actor_plan(enc: EncodeConfig, resources: dict) -> dict:
    """Size and resources of the actor pool.

    ``device: auto`` uses one GPU per actor when the cluster reports GPUs (one actor per
    GPU unless ``actors`` is set), CPU actors otherwise: ``num_cpus_per_actor`` CPUs each,
    as many as the cluster's CPUs hold unless ``actors`` is set, each running that many
    torch threads (at least one). ``device: cuda`` asks for GPUs even when none is up yet, so
    that an autoscaler starts GPU nodes.
    """
    gpus = int(resources.get("GPU", 0))
    if enc.device == "cuda" or (enc.device == "auto" and gpus > 0):
        return {"device": "cuda", "num_gpus": 1, "num_cpus": 1, "threads": 1,
                "size": enc.actors or max(1, gpus)}
    cpus = float(resources.get("CPU", 1))
    return {"device": "cpu", "num_gpus": 0, "num_cpus": enc.num_cpus_per_actor,
            "threads": max(1, round(enc.num_cpus_per_actor)),
            "size": enc.actors or max(1, int(cpus // enc.num_cpus_per_actor))}


def model_stamp(model: str, s3: S3Options | None = None) -> dict:
    """What identifies a model folder's vectors in the shard fingerprints: the hash of its
    ``config.json`` (architecture, languages, training summary) and its weights' size.
    Raises :class:`~paralib.models.errors.ModelLoadError` naming the folder when it is not
    a paralib model."""
    import pyarrow.fs as pafs

    where = pfs.join(model, CONFIG)
    if not pfs.exists(where, s3):
        raise ModelLoadError(f"encode.model {model}: no {CONFIG} there; expected a model folder "
                             "that paralib train wrote (e.g. {models}/paralib-en)")
    raw = pfs.read_bytes(where, s3)
    try:
        fmt = json.loads(raw).get("format")
    except (ValueError, AttributeError):
        fmt = None
    if fmt != FORMAT:
        raise ModelLoadError(f"encode.model {model}: {CONFIG} says format {fmt!r}, expected "
                             f"{FORMAT!r} (a paralib sentence encoder)")
    fs, inner = pfs.resolve(pfs.join(model, WEIGHTS), s3)
    info = fs.get_file_info(inner)
    if info.type != pafs.FileType.File:
        raise ModelLoadError(f"encode.model {model}: {WEIGHTS} is missing")
    return {"config": hashlib.sha1(raw).hexdigest()[:16], "weights_bytes": info.size}


def _drop_summary(out: str, s3: S3Options | None) -> None:
    """An output being extended is unfinished again until :func:`finish` writes the totals."""
    if pfs.exists(summary_path(out), s3):
        fs, inner = pfs.resolve(summary_path(out), s3)
        fs.delete_file(inner)


def encode(cfg: Config, progress: bool = True, enc: EncodeConfig | None = None
           ) -> StageReport:
    """Encode every line of ``enc.inputs`` (default: ``cfg.encode``) into ``enc.output``;
    returns the counts (also in ``_summary.json``). Every ``s3://`` bucket of the config
    (with ``enc`` as its ``encode`` section) is checked first, then the output folder is
    claimed (:func:`paralib.io.ownership.claim`: not an input, not another stage's or other
    inputs' output, one writer at a time); an S3 failure mid-run is one
    :class:`~paralib.io.fs.S3UnavailableError`."""
    enc = enc or cfg.encode
    s3 = cfg.s3.options()
    pfs.check_s3_paths({**cfg.model_dump(), "encode": enc.model_dump()}, s3)  # before any work
    if not enc.inputs:
        raise EncodeError("encode: no inputs configured: set encode.inputs (text files or "
                          "globs, local or s3://) or give --input")
    stamp = model_stamp(enc.model, s3)
    inputs = {f"encode.inputs[{i}]": inp.path for i, inp in enumerate(enc.inputs)}
    made = {"model": enc.model, "model_stamp": stamp, "dtype": enc.dtype,
            "normalize": enc.normalize, "max_chars": enc.max_chars}
    remote = next((p for p in (enc.output, *inputs.values()) if pfs.is_s3(p)), "")
    t0 = time.perf_counter()
    shards = plan_text_shards(enc.inputs, enc.shard_rows, s3)
    with claim(enc.output, "encode", inputs, made, s3, enc.overwrite, key="encode.output"), \
            pfs.s3_errors(remote, "encoding into" if remote == enc.output else "reading", s3):
        return _run(cfg, enc, s3, stamp, shards, progress, t0)


def _run(cfg: Config, enc: EncodeConfig, s3: S3Options | None, stamp: dict,
         shards: list[ShardSpec], progress: bool, t0: float) -> StageReport:
    """The stage on an output folder that :func:`encode` holds."""
    import ray

    report = StageReport(output=enc.output, unit="vectors", shards=len(shards))
    options = {"model": stamp, "dtype": enc.dtype, "normalize": enc.normalize,
               "max_chars": enc.max_chars}
    prints = {s.key: fingerprint(s.to_dict(), options) for s in shards}
    keys = pending([s.key for s in shards], enc.output, s3, report, prints)
    if keys:
        _drop_summary(enc.output, s3)
        wanted = set(keys)
        todo = [s for s in shards if s.key in wanted]
        plan = actor_plan(enc, init_ray(cfg.ray))
        size = min(plan["size"], len(todo))
        check_fits(cfg.ray, {"CPU": plan["num_cpus"], "GPU": plan["num_gpus"]},
                   "encode actor (encode.actors, encode.num_cpus_per_actor)", count=size)
        ray.data.DataContext.get_current().enable_progress_bars = data_progress_bars(progress)
        ds = ray.data.from_items([s.to_dict() for s in todo], override_num_blocks=len(todo))
        ds = ds.map_batches(
            EncodeActor,
            fn_constructor_kwargs={
                "model": enc.model, "out": enc.output, "dtype": enc.dtype,
                "normalize": enc.normalize, "batch_size": enc.batch_size,
                "max_chars": enc.max_chars, "s3": s3, "device": plan["device"],
                "threads": plan["threads"]},
            batch_size=1,
            batch_format="pandas",
            compute=ray.data.ActorPoolStrategy(size=size),
            num_cpus=plan["num_cpus"],
            num_gpus=plan["num_gpus"],
        )
        collect(ds, keys, enc.output, s3, report, progress, "encode", prints,
                rows=sum(s.rows for s in todo))
    return finish(report, s3, t0)
