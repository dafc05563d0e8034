"""``paralib decontaminate``: the training-ready corpus, streamed on Ray Data, so
that no corpus has to fit in memory.

Every input of ``bitext.inputs`` and ``bitext.corpora`` is read in shards (the back-translation
reader: undecodable, empty, over-long, untranslated and wrong-script lines are rejects), then
an actor pool matches both sides against the evaluation sets (:class:`EvalIndex`, loaded once
per actor) and writes Parquet parts with markers, resumable per shard. A last pass in the
driver removes exact duplicate pairs across shards: it reads only the 8-byte ``pair_hash``
column, keeps each pair's first occurrence (shard order, then row order) and moves the others
to the rejects, so its memory grows by 8 bytes a row and every other step streams.

Output (local or ``s3://``), the layout of every stage::

    data/<input>-<shard>/part-*.parquet     id corpus set src_lang src ref group pair_hash
    rejects/<input>-<shard>/part-*.parquet  id corpus src_lang line reason raw
    _markers/<input>-<shard>.json           shard complete (its counts)
    _summary.json                           rows_in = rows_out + rows_rejected, reasons

Read it for training as ``{kind: corpus, path: OUTPUT}``.
"""

from __future__ import annotations

import logging
from collections import Counter

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paralib.config import DecontaminateConfig
from paralib.contracts import StageManifest
from paralib.decontaminate.index import EvalIndex
from paralib.io import fs as pfs
from paralib.io.bitext import BitextError, group_ids, plan_shards, read_shards
from paralib.io.context import StageContext
from paralib.io.fs import S3Options
from paralib.io.ownership import bitext_inputs
from paralib.io.runner import Actor, Plan, ShardedStage, Work, bitext_plan, run_stage
from paralib.io.shards import parquet_files, read_marker, write_marker, write_part
from paralib.io.stage import REJECT_SCHEMA, StageReport, fingerprint, line_of
from paralib.paths import data_root
from paralib.runtime import ray_results, stall_timeout

log = logging.getLogger(__name__)

CORPUS_SCHEMA = pa.schema(
    [("id", pa.string()), ("corpus", pa.string()), ("set", pa.string()),
     ("src_lang", pa.string()), ("src", pa.string()), ("ref", pa.string()),
     ("group", pa.int64()), ("pair_hash", pa.int64())]
)
DUPLICATE = "duplicate pair"


class DecontaminateActor:
    """Holds one :class:`EvalIndex` (built once in the driver and shipped through the object
    store, so worker nodes need no copy of the evaluation sets); a row with a side in an
    evaluation set becomes a reject whose reason names the set
    (``contaminated: sts2014 (exact)``)."""

    def __init__(self, index):
        import ray

        self.index: EvalIndex = ray.get(index) if isinstance(index, ray.ObjectRef) else index

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        ok = (batch["reason"] == "").to_numpy()
        good = batch[ok]
        found = self.index.match_pairs(good["src"].tolist(), good["ref"].tolist())
        reasons = batch["reason"].to_numpy(dtype=object).copy()
        reasons[np.flatnonzero(ok)] = [r or "" for r in found]
        batch = batch.assign(reason=reasons)
        hit = ok & (reasons != "")
        batch.loc[hit, "raw"] = (batch.loc[hit, "src"].str.slice(0, 200) + "\t"
                                 + batch.loc[hit, "ref"].str.slice(0, 200))
        # int64 hashes of (src_lang, src, ref): equal pairs, equal hashes
        batch["pair_hash"] = group_ids(
            (batch["src_lang"] + "\t" + batch["src"] + "\t" + batch["ref"]).tolist())
        batch["_first"] = True
        return batch


def _repeats(flat: np.ndarray, bucket_rows: int = 250_000) -> np.ndarray:
    """True at every position whose value occurred at an earlier position. Worked through in
    buckets of about ``bucket_rows`` hashes (by hash value), so the sort's temporaries stay
    the same size however many rows there are."""
    repeat = np.zeros(len(flat), dtype=bool)
    buckets = max(1, -(-len(flat) // bucket_rows))
    key = flat.view(np.uint64) % np.uint64(buckets)
    for b in range(buckets):
        where = np.flatnonzero(key == b)
        _, first = np.unique(flat[where], return_index=True)
        mask = np.ones(len(where), dtype=bool)
        mask[first] = False
        repeat[where[mask]] = True
    return repeat


def drop_repeats(out: str, key: str, parts: list[tuple[str, np.ndarray]],
                 s3: S3Options | None) -> int:
    """Move the rows marked in each ``(part path, mask)`` of shard ``key`` to its rejects
    (reason ``duplicate pair``) and update its marker; returns the rows moved. Arrow
    throughout, no Python object per row; run as a Ray task, one per shard."""
    fs, _ = pfs.resolve(out, s3)
    moved = 0
    for path, mask in parts:
        table = pq.read_table(path, filesystem=fs)
        dup = table.filter(pa.array(mask))
        n = dup.num_rows
        raw = pc.binary_join_element_wise(pc.utf8_slice_codeunits(dup["src"], 0, 200),
                                          pc.utf8_slice_codeunits(dup["ref"], 0, 200), "\t")
        lines = pa.array([line_of(i, 0) for i in dup["id"].to_pylist()], pa.int64())
        write_part(out, "rejects", key, pa.table(
            [dup["id"], dup["corpus"], dup["src_lang"], lines,
             pa.array([DUPLICATE] * n, pa.string()), pa.array([""] * n, pa.string()), raw],
            schema=REJECT_SCHEMA), s3)
        kept = table.filter(pa.array(~mask))
        if kept.num_rows:
            write_part(out, "data", key, kept, s3)
        fs.delete_file(path)
        moved += n
    counts = read_marker(out, key, s3) or StageManifest()
    counts.rows_out -= moved
    counts.hypotheses -= moved
    counts.rows_rejected += moved
    counts.reasons = {**counts.reasons, DUPLICATE: counts.reasons.get(DUPLICATE, 0) + moved}
    write_marker(out, key, counts, s3)
    return moved


def remove_duplicates(out: str, keys: list[str], s3: S3Options | None,
                      report: StageReport) -> int:
    """Move every repeat of an earlier pair to the rejects (reason ``duplicate pair``),
    updating the shard markers and ``report``; returns how many were moved. Idempotent: a
    rerun finds none, since first occurrences are never moved.

    The driver reads only the ``pair_hash`` column (8 bytes a row) and finds the repeats;
    the shards that hold some are rewritten by Ray tasks (:func:`drop_repeats`), so the
    driver never holds a row's text."""
    import ray

    fs, inner = pfs.resolve(pfs.join(out, "data"), s3)
    # (shard key, part path) of every data part, in shard order then part order
    parts = [(key, f) for key in keys for f in parquet_files(fs, pfs.join(inner, key))]
    if not parts:
        return 0
    cols = [pq.read_table(p, columns=["pair_hash"], filesystem=fs).column(0).to_numpy()
            for _, p in parts]
    sizes = [len(c) for c in cols]
    flat = np.concatenate(cols)
    del cols
    repeat = _repeats(flat)
    del flat
    todo: dict[str, list[tuple[str, np.ndarray]]] = {}
    for (key, path), mask in zip(parts, np.split(repeat, np.cumsum(sizes)[:-1]), strict=True):
        if mask.any():
            todo.setdefault(key, []).append((path, mask.copy()))
    task = ray.remote(num_cpus=0.25)(drop_repeats)
    refs = [task.remote(out, key, masks, s3) for key, masks in todo.items()]
    moved = sum(ray_results(refs, stall_timeout(), "decontaminate: removing repeated pairs"))
    report.rows_out -= moved
    report.hypotheses -= moved
    report.rows_rejected += moved
    if moved:
        report.reasons[DUPLICATE] = report.reasons.get(DUPLICATE, 0) + moved
    return moved


def per_eval_set(reasons: dict[str, int]) -> dict[str, int]:
    """Pairs removed per evaluation set, from a report's reject reasons."""
    out: Counter = Counter()
    for reason, n in reasons.items():
        if reason.startswith("contaminated: "):
            out[reason[len("contaminated: "):].split(" ", 1)[0]] += n
    return dict(sorted(out.items()))


class Decontamination(ShardedStage):
    """The bitext shards through a pool of :class:`DecontaminateActor`, then the repeats of
    earlier pairs moved to the rejects (``dedupe``)."""

    name, key, unit, schema, ray_bars = ("decontaminate", "decontaminate.output", "pairs",
                                         CORPUS_SCHEMA, False)

    def __init__(self, section: DecontaminateConfig, ctx: StageContext):
        super().__init__(ctx)
        self.section, self.output, self.overwrite = section, section.output, section.overwrite

    def plan(self) -> Plan:
        """The evaluation-set index (a missing set is a warning) and the bitext shards."""
        dc, bitext = self.section, self.ctx.bitext
        self.inputs = bitext.all_inputs()
        if not self.inputs:
            raise BitextError("decontaminate: no inputs configured (set bitext.corpora or "
                              "bitext.inputs)")
        self.index = EvalIndex.cached(data_root(), ngram=dc.ngram, min_tokens=dc.min_tokens)
        for name, path in sorted(self.index.missing.items()):
            log.warning("decontaminate: evaluation set %s not checked: %s not found", name,
                        path)
        shards = plan_shards(self.inputs, bitext.shard_rows, self.ctx.storage)
        self.keys = [s.key for s in shards]
        checks = bitext.checks.model_dump()
        return bitext_plan(shards, {s.key: fingerprint(s.to_dict(), bitext.max_chars, checks,
                                                       dc.ngram, dc.min_tokens)
                                    for s in shards})

    def claimed(self) -> tuple[dict[str, str], dict]:
        """The bitext inputs; the reader limits and the matching options."""
        dc, bitext = self.section, self.ctx.bitext
        return bitext_inputs(self.inputs), {
            "max_chars": bitext.max_chars, "checks": bitext.checks.model_dump(),
            "ngram": dc.ngram, "min_tokens": dc.min_tokens, "dedupe": dc.dedupe}

    def work(self, cluster: dict, keys: list[str]) -> Work:
        """Read tasks, the matching pool (the index shipped once through the object store),
        write tasks."""
        import ray

        dc, bitext = self.section, self.ctx.bitext
        actor = Actor(DecontaminateActor, {"index": ray.put(self.index)},
                      "decontaminate.num_cpus_per_actor", max_size=dc.actors,
                      num_cpus=dc.num_cpus_per_actor)
        return Work([actor], read=read_shards, read_kwargs={
            "max_chars": bitext.max_chars, "s3": self.ctx.storage,
            "checks": bitext.checks.model_dump()})

    def after(self, report: StageReport) -> None:
        """Move the repeats of earlier pairs to the rejects (``dedupe``)."""
        if self.section.dedupe:
            self.ctx.init_ray()
            remove_duplicates(self.output, self.keys, self.ctx.storage, report)


def run(section: DecontaminateConfig, ctx: StageContext) -> StageReport:
    """Read, check, decontaminate, group and de-duplicate every input of ``ctx.bitext`` into
    ``section.output``; returns the stage's counts (``_summary.json``). The output folder is
    claimed before any work (:func:`paralib.io.ownership.claim`: not an input, not another
    stage's output, not the output of other inputs without ``overwrite``, one writer at a
    time)."""
    return run_stage(Decontamination(section, ctx))
