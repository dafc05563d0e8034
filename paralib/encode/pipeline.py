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
from contextlib import AbstractContextManager

from paralib.encode.actor import EncodeActor
from paralib.encode.config import EncodeConfig
from paralib.encode.read import plan_text_shards
from paralib.errors import ConfigurationError
from paralib.io import fs as pfs
from paralib.io.context import StageContext
from paralib.io.fs import S3Options
from paralib.io.runner import Actor, Plan, ShardedStage, Work, bitext_plan, run_stage
from paralib.io.shards import summary_path
from paralib.io.stage import StageReport, fingerprint
from paralib.models.errors import ModelLoadError
from paralib.models.folder import CONFIG, FORMAT, WEIGHTS  # torch-free


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


class Encoding(ShardedStage):
    """Text shards through a pool of :class:`EncodeActor`, which reads, encodes and writes
    each shard."""

    name, key, unit = "encode", "encode.output", "vectors"

    def __init__(self, section: EncodeConfig, ctx: StageContext):
        super().__init__(ctx)
        self.section, self.output, self.overwrite = section, section.output, section.overwrite
        self.inputs = {f"encode.inputs[{i}]": inp.path for i, inp in enumerate(section.inputs)}

    def plan(self) -> Plan:
        """The model's stamp (a folder that is not a paralib model is refused) and the text
        shards."""
        enc, s3 = self.section, self.ctx.storage
        if not enc.inputs:
            raise EncodeError("encode: no inputs configured: set encode.inputs (text files or "
                              "globs, local or s3://) or give --input")
        self.stamp = model_stamp(enc.model, s3)
        shards = plan_text_shards(enc.inputs, enc.shard_rows, s3)
        options = {"model": self.stamp, "dtype": enc.dtype, "normalize": enc.normalize,
                   "max_chars": enc.max_chars}
        plan = bitext_plan(shards, {s.key: fingerprint(s.to_dict(), options) for s in shards})
        plan.contents = None
        return plan

    def claimed(self) -> tuple[dict[str, str], dict]:
        """The text inputs; the model, its stamp and the vector options."""
        enc = self.section
        return self.inputs, {"model": enc.model, "model_stamp": self.stamp, "dtype": enc.dtype,
                             "normalize": enc.normalize, "max_chars": enc.max_chars}

    def guard(self) -> AbstractContextManager:
        """An S3 failure mid-run is one :class:`~paralib.io.fs.S3UnavailableError`."""
        remote = next((p for p in (self.output, *self.inputs.values()) if pfs.is_s3(p)), "")
        return pfs.s3_errors(remote, "encoding into" if remote == self.output else "reading",
                             self.ctx.storage)

    def before(self, keys: list[str], report: StageReport) -> list[str]:
        """An output being extended is unfinished again until its summary is rewritten."""
        summary, s3 = summary_path(self.output), self.ctx.storage
        if keys and pfs.exists(summary, s3):
            fs, inner = pfs.resolve(summary, s3)
            fs.delete_file(inner)
        return keys

    def work(self, cluster: dict, keys: list[str]) -> Work:
        """One fixed-size pool of :class:`EncodeActor` (at most one actor per shard)."""
        enc, plan = self.section, actor_plan(self.section, cluster)
        size = min(plan["size"], len(keys))
        kwargs = {"model": enc.model, "out": enc.output, "dtype": enc.dtype,
                  "normalize": enc.normalize, "batch_size": enc.batch_size,
                  "max_chars": enc.max_chars, "s3": self.ctx.storage,
                  "device": plan["device"], "threads": plan["threads"]}
        return Work([Actor(EncodeActor, kwargs,
                           "encode actor (encode.actors, encode.num_cpus_per_actor)",
                           batch_size=1, min_size=size, max_size=size, together=size,
                           num_cpus=plan["num_cpus"], num_gpus=plan["num_gpus"])],
                    write=False)


def run(section: EncodeConfig, ctx: StageContext) -> StageReport:
    """Encode every line of ``section.inputs`` into ``section.output``; returns the counts
    (also in ``_summary.json``). Every ``s3://`` bucket of the config (with ``section`` as
    its ``encode`` section) is checked first, then the output folder is claimed
    (:func:`paralib.io.ownership.claim`: not an input, not another stage's or other inputs'
    output, one writer at a time); an S3 failure mid-run is one
    :class:`~paralib.io.fs.S3UnavailableError`."""
    return run_stage(Encoding(section, ctx.with_section("encode", section)))
