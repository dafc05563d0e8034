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

import json
import logging
import time
from dataclasses import asdict, dataclass, field

from tqdm import tqdm

from paralib.config import BacktranslateConfig, Config
from paralib.io import fs as pfs
from paralib.io.bitext import ShardSpec, plan_shards
from paralib.io.shards import clear_partial, read_marker, write_marker
from paralib.runtime import init_ray
from paralib.translate.stages import TranslateActor, read_shards, write_parts
from paralib.translate.translator import check_model_dir

log = logging.getLogger(__name__)


@dataclass
class StageReport:
    """Counts of a streaming stage: ``rows_in = rows_out + rows_rejected``."""

    output: str
    shards: int = 0
    shards_skipped: int = 0
    rows_in: int = 0
    rows_out: int = 0
    rows_rejected: int = 0
    hypotheses: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, counts: dict) -> None:
        """Add one shard's marker counts."""
        self.rows_in += counts["rows_in"]
        self.rows_out += counts["rows_out"]
        self.rows_rejected += counts["rows_rejected"]
        self.hypotheses += counts["hypotheses"]
        for reason, n in counts["reasons"].items():
            self.reasons[reason] = self.reasons.get(reason, 0) + n

    def balanced(self) -> bool:
        """True when every input row is either an output row or a reject."""
        return self.rows_in == self.rows_out + self.rows_rejected

    def text(self) -> str:
        """A one-paragraph human summary."""
        lines = [
            f"rows_in={self.rows_in} = rows_out={self.rows_out} + "
            f"rows_rejected={self.rows_rejected}; {self.hypotheses} candidate pairs; "
            f"{self.shards} shards ({self.shards_skipped} already done) in {self.seconds:.1f}s",
            f"output: {self.output}/data   rejects: {self.output}/rejects",
        ]
        lines += [f"  rejected {n}: {reason}" for reason, n in sorted(self.reasons.items())]
        return "\n".join(lines)


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


def _pending(shards: list[ShardSpec], out: str, s3, report: StageReport) -> list[ShardSpec]:
    todo = []
    for spec in shards:
        counts = read_marker(out, spec.key, s3)
        if counts is None:
            clear_partial(out, spec.key, s3)
            todo.append(spec)
        else:
            report.shards_skipped += 1
            report.add(counts)
    return todo


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
    report = StageReport(output=bt.output, shards=len(shards))
    todo = _pending(shards, bt.output, s3, report)
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
                            fn_kwargs={"out": bt.output, "s3": s3})
        _collect(ds, todo, bt.output, s3, report, progress)
    report.seconds = time.perf_counter() - t0
    pfs.write_bytes(pfs.join(bt.output, "_summary.json"),
                    json.dumps(asdict(report), indent=2).encode(), s3)
    if not report.balanced():
        raise RuntimeError(f"row accounting does not balance: {report.text()}")
    return report


def _collect(ds, todo: list[ShardSpec], out: str, s3, report: StageReport,
             progress: bool) -> None:
    """Consume per-part coverage rows; mark each shard complete once all its rows are in."""
    state: dict[str, dict] = {}
    bar = tqdm(total=len(todo), unit="shard", desc="backtranslate", disable=not progress)
    for batch in ds.iter_batches(batch_size=None, batch_format="pandas"):
        for row in batch.to_dict("records"):
            s = state.setdefault(row["shard_key"], {"rows_in": row["total"], "covered": 0,
                                                    "rows_out": 0, "rows_rejected": 0,
                                                    "hypotheses": 0, "reasons": {}})
            s["covered"] += row["covered"]
            for k in ("rows_out", "rows_rejected", "hypotheses"):
                s[k] += row[k]
            for reason, n in json.loads(row["reasons"]).items():
                s["reasons"][reason] = s["reasons"].get(reason, 0) + n
            if s["covered"] == s["rows_in"]:
                counts = {k: v for k, v in s.items() if k != "covered"}
                write_marker(out, row["shard_key"], counts, s3)
                report.add(counts)
                bar.update(1)
                bar.set_postfix(rows=report.rows_in, rejected=report.rows_rejected)
    bar.close()
    unfinished = [spec.key for spec in todo if read_marker(out, spec.key, s3) is None]
    if unfinished:
        raise RuntimeError(f"shards not completed: {', '.join(unfinished[:10])}")
