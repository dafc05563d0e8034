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

from dataclasses import dataclass

import pyarrow as pa

from paralib.config import BacktranslateConfig
from paralib.fingerprint import Scope, section_print
from paralib.io.bitext import BitextError, plan_shards, read_shards
from paralib.io.config import InputConfig
from paralib.io.context import StageContext
from paralib.io.ownership import bitext_inputs
from paralib.io.runner import Actor, Plan, ShardedStage, Work, bitext_plan, write_kwargs
from paralib.io.stage import fingerprint
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
                "min": min(bt.min_actors, size), "max": size, "intra_threads": 1,
                "inter_threads": 1, "rows_per_batch": bt.rows_per_batch or shard_rows}
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


class Translation(ShardedStage):
    """``legs`` over bitext ``inputs``, written as ``schema`` rows to ``opts.output``.

    ``name`` is the stage's command (``backtranslate``, ``pivot``, ``paraphrase``) and
    ``inputs_key`` the config key of ``inputs``."""

    def __init__(self, ctx: StageContext, opts: BacktranslateConfig, inputs: list[InputConfig],
                 legs: list[Leg], schema: pa.Schema, unit: str, name: str,
                 inputs_key: str = "bitext.inputs"):
        super().__init__(ctx)
        self.opts, self.inputs, self.legs, self.inputs_key = opts, inputs, legs, inputs_key
        self.schema, self.unit, self.name = schema, unit, name
        self.output, self.overwrite, self.key = opts.output, opts.overwrite, f"{name}.output"
        self.options = section_print(opts, Scope.WORK, mode="python")

    def plan(self) -> Plan:
        """Check the models and inputs; one shard per ``bitext.shard_rows`` rows."""
        for leg in self.legs:
            for model in leg.model.values() if isinstance(leg.model, dict) else [leg.model]:
                check_model_dir(model)
        if not self.inputs:
            raise BitextError(f"{self.name}: no inputs configured (set bitext.inputs, or "
                              "pivot.inputs for round trips)")
        bitext = self.ctx.bitext
        shards = plan_shards(self.inputs, bitext.shard_rows, self.ctx.storage)
        legs = [leg.__dict__ for leg in self.legs]
        prints = {s.key: fingerprint(s.to_dict(), self.options, bitext.max_chars, legs,
                                     bitext.checks.model_dump()) for s in shards}
        return bitext_plan(shards, prints)

    def claimed(self) -> tuple[dict[str, str], dict]:
        """The bitext inputs; the options, legs and reader limits."""
        bitext = self.ctx.bitext
        return bitext_inputs(self.inputs, self.inputs_key), {
            **self.options, "max_chars": bitext.max_chars,
            "legs": [leg.__dict__ for leg in self.legs], "checks": bitext.checks.model_dump()}

    def work(self, cluster: dict, keys: list[str]) -> Work:
        """One pool of :class:`ShardActor` (``fuse_io``), or read tasks, a
        :class:`TranslateActor` pool per leg and write tasks."""
        opts, bitext = self.opts, self.ctx.bitext
        plan = actor_plan(opts, cluster, bitext.shard_rows)
        read = {"max_chars": bitext.max_chars, "s3": self.ctx.storage,
                "checks": bitext.checks.model_dump()}
        legs = [actor_kwargs(opts, leg, plan) for leg in self.legs]
        pool = {"what": f"{self.name} translation actor", "min_size": plan["min"],
                "max_size": plan["max"], "num_cpus": plan["num_cpus"],
                "num_gpus": plan["num_gpus"], "resources": opts.actor_resources}
        if opts.fuse_io:
            kwargs = {"legs": legs, "read": read, "write": write_kwargs(self)}
            return Work([Actor(ShardActor, kwargs, batch_size=1, **pool)], write=False)
        return Work([Actor(TranslateActor, kw, batch_size=plan["rows_per_batch"], **pool)
                     for kw in legs], read=read_shards, read_kwargs=read)

