"""``paralib backtranslate``: bitext shards → CTranslate2 actors on Ray Data → candidate pairs.

2017 §3 and 2018 §3: the non-English side of bitext is translated into English with beam
search; every hypothesis of the k-best list, paired with the English reference, is a
candidate paraphrase. Output rows: ``id, corpus, src_lang, src, ref, trans, rank, cost``.

Ray Data streams the shards: a read stage (tasks), a translation stage (an actor pool of
:class:`~paralib.translate.stages.TranslateActor`, one GPU per actor when the cluster has
GPUs, fractional CPUs otherwise so that reads still get a CPU on a 2-core machine) and a
write stage. The driver only receives per-shard counts; it writes a shard's completion
marker once every input row of the shard is written, so a killed job resumes.
"""

from __future__ import annotations

import time

from paralib.config import BacktranslateConfig, Config
from paralib.io import fs as pfs
from paralib.io.bitext import plan_shards
from paralib.io.stage import StageReport, collect, finish, pending, write_parts
from paralib.runtime import init_ray
from paralib.translate.stages import OUTPUT_SCHEMA, TranslateActor, read_shards
from paralib.translate.translator import check_model_dir


def actor_plan(bt: BacktranslateConfig, resources: dict) -> dict:
    """Resources and CTranslate2 settings of the translation actors.

    ``device: auto`` uses one GPU per actor when the cluster reports GPUs (at most one actor
    per GPU), CPU actors otherwise. On CPU each actor reserves ``num_cpus_per_actor`` and runs
    ``intra_threads`` threads. ``device: cuda`` requests GPUs even when none is up yet, so an
    autoscaler starts GPU nodes.
    """
    gpus = int(resources.get("GPU", 0))
    use_gpu = bt.device == "cuda" or (bt.device == "auto" and gpus > 0)
    if use_gpu:
        size = bt.actors if bt.device == "cuda" else max(1, min(bt.actors, gpus))
        return {"device": "cuda", "num_gpus": 1, "num_cpus": 1, "min": min(bt.min_actors, size),
                "max": size, "intra_threads": 1}
    return {"device": "cpu", "num_gpus": 0, "num_cpus": bt.num_cpus_per_actor,
            "min": bt.min_actors, "max": bt.actors, "intra_threads": bt.intra_threads}


def backtranslate(cfg: Config, progress: bool = True) -> StageReport:
    """Run back-translation as configured; returns the counts (also in ``_summary.json``)."""
    import ray

    bt, s3 = cfg.backtranslate, cfg.s3.options()
    check_model_dir(bt.model)
    if not cfg.bitext.inputs:
        raise ValueError("bitext.inputs is empty: name at least one bitext input")
    t0 = time.perf_counter()
    shards = plan_shards(cfg.bitext.inputs, cfg.bitext.shard_rows, s3)
    if bt.overwrite:
        pfs.delete_dir(bt.output, s3)
    report = StageReport(output=bt.output, unit="candidate pairs", shards=len(shards))
    keys = pending([s.key for s in shards], bt.output, s3, report)
    todo = [s for s in shards if s.key in set(keys)]
    if todo:
        resources = init_ray(cfg.ray)
        plan = actor_plan(bt, resources)
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = progress
        options = {
            "beam_size": bt.beam_size, "num_hypotheses": bt.num_hypotheses,
            "length_penalty": bt.length_penalty, "max_input_length": bt.max_input_length,
            "max_decoding_length": bt.max_decoding_length, "max_batch_size": bt.batch_size,
            "batch_type": bt.batch_type,
        }
        ds = ray.data.from_items([s.to_dict() for s in todo], override_num_blocks=len(todo))
        ds = ds.map_batches(read_shards, batch_size=1, batch_format="pandas", num_cpus=0.25,
                            fn_kwargs={"max_chars": cfg.bitext.max_chars, "s3": s3})
        ds = ds.map_batches(
            TranslateActor,
            fn_constructor_kwargs={"model": bt.model, "options": options,
                                   "device": plan["device"], "compute_type": bt.compute_type,
                                   "intra_threads": plan["intra_threads"]},
            batch_size=bt.rows_per_batch,
            batch_format="pandas",
            compute=ray.data.ActorPoolStrategy(min_size=plan["min"], max_size=plan["max"]),
            num_cpus=plan["num_cpus"],
            num_gpus=plan["num_gpus"],
            resources=bt.actor_resources or None,
        )
        ds = ds.map_batches(write_parts, batch_size=None, batch_format="pandas", num_cpus=0.25,
                            fn_kwargs={"out": bt.output, "s3": s3, "schema": OUTPUT_SCHEMA})
        collect(ds, keys, bt.output, s3, report, progress, "backtranslate")
    return finish(report, s3, t0)

