"""``paralib score``: add one column per scorer to every candidate pair, on Ray Data.

Reads the complete shards of a stage output (``_markers``), runs the configured scorers over
whole batches (in an actor pool when a scorer loads a model, so it loads once per actor),
and writes the rows plus score columns per shard with markers, so a rerun resumes. Rows a
scorer cannot score (an empty translation, a NaN cost, an all-unknown sentence) are written
to ``rejects/`` with the reason, never dropped silently (2017 §5.4-5.7, 2018 §3.2).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from paralib.contracts import StageManifest
from paralib.filters.base import Scorer, ScorerError, get_scorer
from paralib.filters.config import ScoreConfig, ScorerSpec
from paralib.filters.tokenize import BatchCache
from paralib.io import fs as pfs
from paralib.io.context import StageContext
from paralib.io.fs import S3Options
from paralib.io.runner import Actor, Plan, ShardedStage, Work, run_stage
from paralib.io.shards import MARKERS, NoOutputError, complete_shards, read_marker, write_marker
from paralib.io.stage import StageReport, fingerprint, line_of

SCORERS = "_scorers.json"  # the scorers and the input of a score output
INTERNAL = ("shard_key", "shard_total", "reason", "raw", "line", "_first")


def input_shards(folder: str, s3: S3Options | None) -> dict[str, list[str]]:
    """Complete shards of a finished stage output: ``{shard_key: [parquet files]}``
    (:func:`paralib.io.shards.complete_shards`: an unfinished output is refused, naming the
    stage that has to finish).

    Raises :class:`FileNotFoundError` when the folder holds no completed shard.
    """
    out = complete_shards(folder, s3)
    if not out or list(out) == [""]:
        raise NoOutputError(f"no completed shard in {folder} (no {folder}/{MARKERS}/*.json)")
    # (a shard whose every row was a reject has a marker and no data files)
    return out


def input_rows(folder: str, keys: list[str], s3: S3Options | None) -> int | None:
    """Data rows of the input shards ``keys`` (their markers' output rows, ``hypotheses``):
    the total of the stage's progress bar; ``None`` when a marker lacks the count."""
    marks = [read_marker(folder, k, s3) for k in keys]
    if any(m is None or "hypotheses" not in m.model_fields_set for m in marks):
        return None
    return int(sum(m.hypotheses for m in marks if m is not None))


def input_columns(shards: dict[str, list[str]], s3: S3Options | None) -> list[str]:
    """Column names of the input (from the first Parquet file's schema)."""
    for files in shards.values():
        if files:
            fs, inner = pfs.resolve(files[0], s3)
            with fs.open_input_file(inner) as f:
                return pq.ParquetFile(f).schema_arrow.names
    return []


def check_scorers(specs: list[ScorerSpec], columns: list[str]) -> list[Scorer]:
    """Instantiate the scorers and check, before any work, that their inputs exist."""
    scorers = [get_scorer(s.type, **s.params) for s in specs]
    available = set(columns)
    for sc in scorers:
        missing = [c for c in sc.requires if c not in available]
        if missing:
            raise ScorerError(f"scorer '{sc.name}' needs column(s) {', '.join(missing)}, "
                              f"which the input does not have ({', '.join(columns)})")
        available.update(sc.columns)
    return scorers


def read_inputs(batch: pd.DataFrame, s3: S3Options | None) -> pd.DataFrame:
    """Read the Parquet parts of the shards named in ``batch``."""
    frames = []
    for key, files in zip(batch["key"], batch["files"], strict=True):
        parts = []
        for f in files:
            fs, inner = pfs.resolve(f, s3)
            parts.append(pq.read_table(inner, filesystem=fs).to_pandas())
        df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        df["shard_key"] = key
        df["shard_total"] = len(df)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


class ScoreActor:
    """Runs every configured scorer over a batch; unscorable rows become rejects."""

    def __init__(self, specs: list[dict], s3: S3Options | None = None):
        self.scorers = [get_scorer(s["type"], **s.get("params", {})) for s in specs]
        shared = BatchCache()  # one tokenisation of each batch for every scorer
        for sc in self.scorers:
            sc.s3 = s3  # for scorers whose model is on S3 (lm, classifier)
            sc.tokens = shared
            sc.setup()

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        reason = pd.Series("", index=batch.index, dtype=object)
        for sc in self.scorers:
            sc.check(batch)
            why = sc.invalid(batch)
            reason = reason.where(reason != "", why.astype(object))
        ok = (reason == "").to_numpy()
        good = batch[ok].copy()
        for sc in self.scorers:
            cols = sc.score(good) if len(good) else pd.DataFrame(columns=list(sc.columns))
            for c in sc.columns:
                good[c] = cols[c].to_numpy() if len(good) else []
        bad = batch[~ok].copy()
        bad["reason"] = reason[~ok].to_numpy()
        good["reason"] = ""
        res = pd.concat([good, bad], ignore_index=True)
        res["_first"] = True
        res["line"] = np.array([line_of(i) for i in res["id"]], dtype=np.int64)
        texts = [res[c].astype(str).str.slice(0, 200) for c in ("ref", "trans")
                 if c in res.columns]
        res["raw"] = ["\t".join(t) for t in zip(*texts, strict=True)] if texts else ""
        return res


class Scoring(ShardedStage):
    """The complete shards of ``section.input`` through a pool of :class:`ScoreActor`."""

    name, key, unit, extra = "score", "score.output", "scored pairs", (SCORERS,)

    def __init__(self, section: ScoreConfig, ctx: StageContext):
        super().__init__(ctx)
        self.section, self.output, self.overwrite = section, section.output, section.overwrite
        self.specs = [s.model_dump() for s in section.scorers]

    def plan(self) -> Plan:
        """The input's complete shards, its columns checked against the scorers' needs; a
        shard's fingerprint includes the input marker's."""
        sc, s3 = self.section, self.ctx.storage
        self.shards = input_shards(sc.input, s3)
        columns = input_columns(self.shards, s3)
        scorers = check_scorers(sc.scorers, columns)
        self.columns = [c for c in columns if c not in INTERNAL]
        self.columns += [c for s in scorers for c in s.columns if c not in self.columns]
        upstream = {k: getattr(read_marker(sc.input, k, s3), "fingerprint", None)
                    for k in self.shards}
        self.prints = {k: fingerprint(files, self.specs, upstream[k])
                       for k, files in self.shards.items()}
        return Plan({k: {"key": k, "files": files} for k, files in self.shards.items()},
                    self.prints, rows=lambda keys: input_rows(sc.input, keys, s3))

    def claimed(self) -> tuple[dict[str, str], dict]:
        """The input folder; the scorers."""
        return {"score.input": self.section.input}, {"scorers": self.specs}

    def before(self, keys: list[str], report: StageReport) -> list[str]:
        """Mark the shards without data (every input row of them was a reject) as done."""
        for key in [k for k in keys if not self.shards[k]]:
            counts = StageManifest(rows_in=0, rows_out=0, rows_rejected=0, hypotheses=0,
                                   reasons={}, fingerprint=self.prints[key], stage="score")
            write_marker(self.output, key, counts, self.ctx.storage)
            report.add(counts)
        return [k for k in keys if self.shards[k]]

    def work(self, cluster: dict, keys: list[str]) -> Work:
        """Read tasks, the scoring pool, write tasks."""
        sc, s3 = self.section, self.ctx.storage
        actor = Actor(ScoreActor, {"specs": self.specs, "s3": s3}, "score.num_cpus_per_actor",
                      batch_size=sc.rows_per_batch, max_size=sc.actors,
                      num_cpus=sc.num_cpus_per_actor)
        return Work([actor], read=read_inputs, read_kwargs={"s3": s3})

    def after(self, report: StageReport) -> None:
        """Record the scorers and the input next to the output (``_scorers.json``)."""
        meta = {"scorers": self.specs, "input": self.section.input}
        pfs.write_bytes(pfs.join(self.output, SCORERS), json.dumps(meta).encode(),
                        self.ctx.storage)


def run(section: ScoreConfig, ctx: StageContext) -> StageReport:
    """Score ``section.input`` into ``section.output``; returns its counts (also in
    ``_summary.json``). The output folder is claimed before any work
    (:func:`paralib.io.ownership.claim`: not the input, not another stage's output, not the
    output of another input without ``overwrite``, one writer at a time)."""
    return run_stage(Scoring(section, ctx))
