"""``paralib score``: add one column per scorer to every candidate pair, on Ray Data.

Reads the complete shards of a stage output (``_markers``), runs the configured scorers over
whole batches (in an actor pool when a scorer loads a model, so it loads once per actor),
and writes the rows plus score columns per shard with markers, so a rerun resumes. Rows a
scorer cannot score (an empty translation, a NaN cost, an all-unknown sentence) are written
to ``rejects/`` with the reason, never dropped silently (2017 §5.4-5.7, 2018 §3.2).
"""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from paralib.config import Config
from paralib.console import data_progress_bars
from paralib.contracts import StageManifest
from paralib.filters.base import Scorer, ScorerError, get_scorer
from paralib.filters.config import ScorerSpec
from paralib.filters.tokenize import BatchCache
from paralib.io import fs as pfs
from paralib.io.fs import S3Options
from paralib.io.ownership import claim
from paralib.io.shards import (
    MARKERS,
    NoOutputError,
    complete_shards,
    read_marker,
    write_marker,
)
from paralib.io.stage import (
    StageReport,
    collect,
    fingerprint,
    finish,
    pending,
    write_parts,
)
from paralib.runtime import check_fits, init_ray

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


def _line_of(row_id: object) -> int:
    """The source line of an id ``corpus:shard:line[:sub]`` (-1 when it has no line)."""
    parts = str(row_id).split(":")
    return int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else -1


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
        res["line"] = np.array([_line_of(i) for i in res["id"]], dtype=np.int64)
        texts = [res[c].astype(str).str.slice(0, 200) for c in ("ref", "trans")
                 if c in res.columns]
        res["raw"] = ["\t".join(t) for t in zip(*texts, strict=True)] if texts else ""
        return res


def score(cfg: Config, progress: bool = True) -> StageReport:
    """Run the scoring stage as configured; returns its counts (also in ``_summary.json``).
    The output folder is claimed before any work (:func:`paralib.io.ownership.claim`: not
    the input, not another stage's output, not the output of another input without
    ``overwrite``, one writer at a time)."""
    sc_cfg, s3 = cfg.score, cfg.s3.options()
    pfs.check_s3_paths(cfg.model_dump(), s3)  # every bucket of the config, before any work
    t0 = time.perf_counter()
    shards = input_shards(sc_cfg.input, s3)
    columns = input_columns(shards, s3)
    scorers = check_scorers(sc_cfg.scorers, columns)
    specs = [s.model_dump() for s in sc_cfg.scorers]
    with claim(sc_cfg.output, "score", {"score.input": sc_cfg.input}, {"scorers": specs}, s3,
               sc_cfg.overwrite, extra=(SCORERS,), key="score.output"):
        return _run(cfg, shards, columns, scorers, specs, s3, progress, t0)


def _run(cfg: Config, shards: dict[str, list[str]], columns: list[str], scorers: list[Scorer],
         specs: list[dict], s3: S3Options | None, progress: bool, t0: float) -> StageReport:
    """The stage on an output folder that :func:`score` holds."""
    import ray

    sc_cfg = cfg.score
    report = StageReport(output=sc_cfg.output, unit="scored pairs", shards=len(shards),
                         stage="score")
    upstream = {k: getattr(read_marker(sc_cfg.input, k, s3), "fingerprint", None)
                for k in shards}
    prints = {k: fingerprint(files, specs, upstream[k]) for k, files in shards.items()}
    keys = pending(list(shards), sc_cfg.output, s3, report, prints)
    for key in [k for k in keys if not shards[k]]:  # every input row of it was a reject
        counts = StageManifest(rows_in=0, rows_out=0, rows_rejected=0, hypotheses=0,
                               reasons={}, fingerprint=prints[key], stage="score")
        write_marker(sc_cfg.output, key, counts, s3)
        report.add(counts)
    keys = [k for k in keys if shards[k]]
    if keys:
        init_ray(cfg.ray)
        check_fits(cfg.ray, {"CPU": sc_cfg.num_cpus_per_actor}, "score.num_cpus_per_actor")
        ray.data.DataContext.get_current().enable_progress_bars = data_progress_bars(progress)
        ds = ray.data.from_items([{"key": k, "files": shards[k]} for k in keys],
                                 override_num_blocks=len(keys))
        ds = ds.map_batches(read_inputs, batch_size=1, batch_format="pandas", num_cpus=0.25,
                            fn_kwargs={"s3": s3})
        ds = ds.map_batches(
            ScoreActor, fn_constructor_kwargs={"specs": specs, "s3": s3},
            batch_size=sc_cfg.rows_per_batch, batch_format="pandas",
            compute=ray.data.ActorPoolStrategy(min_size=1, max_size=sc_cfg.actors),
            num_cpus=sc_cfg.num_cpus_per_actor,
        )
        out_cols = [c for c in columns if c not in INTERNAL]
        out_cols += [c for sc in scorers for c in sc.columns if c not in out_cols]
        ds = ds.map_batches(write_parts, batch_size=None, batch_format="pandas", num_cpus=0.25,
                            fn_kwargs={"out": sc_cfg.output, "s3": s3, "columns": out_cols})
        collect(ds, keys, sc_cfg.output, s3, report, progress, "score", prints,
                rows=input_rows(sc_cfg.input, keys, s3))
    meta = {"scorers": [s.model_dump() for s in sc_cfg.scorers], "input": sc_cfg.input}
    pfs.write_bytes(pfs.join(sc_cfg.output, SCORERS), json.dumps(meta).encode(), s3)
    return finish(report, s3, t0)
