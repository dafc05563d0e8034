"""The streaming-stage machinery shared by every stage: counts, per-shard writes, markers.

A stage's rows carry ``shard_key``, ``shard_total`` (input rows of the shard), ``reason``
(non-empty for a reject) and ``_first`` (true on exactly one output row per input row, so a
stage that expands rows, like a k-best list, still counts each input once). The driver only
receives per-part coverage rows and writes a shard's marker once all its input rows are in.
Every drop has a reason and a counter (datatrove's ``stat_update`` and excluded-rows writer).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

import pandas as pd
import pyarrow as pa
import pyarrow.fs as pafs
from tqdm import tqdm

from paralib.contracts import StageManifest
from paralib.errors import ConfigurationError
from paralib.fingerprint import stage_print
from paralib.io import fs as pfs
from paralib.io.fs import S3Options
from paralib.io.shards import (
    MARKERS,
    SUMMARY,
    clear_partial,
    marker_keys,
    read_marker,
    summary_path,
    write_marker,
    write_part,
)

# A reject: ``reason`` is its kind, a stable text that ``_summary.json`` counts
# ("source longer than 300 characters"); what is particular to the row (a byte offset, a
# length, a parser's message) is in ``detail``, and its bytes or texts are in ``raw``.
REJECT_SCHEMA = pa.schema(
    [("id", pa.string()), ("corpus", pa.string()), ("src_lang", pa.string()),
     ("line", pa.int64()), ("reason", pa.string()), ("detail", pa.string()),
     ("raw", pa.string())])
REJECT_COLUMNS = REJECT_SCHEMA.names
COVERAGE_COLUMNS = ["shard_key", "covered", "total", "rows_out", "rows_rejected", "hypotheses",
                    "reasons"]


@dataclass
class StageReport:
    """Counts of a streaming stage: ``rows_in = rows_out + rows_rejected``."""

    output: str
    unit: str = "output rows"
    stage: str = ""
    shards: int = 0
    shards_skipped: int = 0
    rows_in: int = 0
    rows_out: int = 0
    rows_rejected: int = 0
    hypotheses: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, counts: StageManifest | dict) -> None:
        """Add one shard's marker counts."""
        counts = StageManifest.load(counts)
        self.rows_in += counts.rows_in
        self.rows_out += counts.rows_out
        self.rows_rejected += counts.rows_rejected
        self.hypotheses += counts.hypotheses
        for reason, n in counts.reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + n

    def balanced(self) -> bool:
        """True when every input row is either an output row or a reject."""
        return self.rows_in == self.rows_out + self.rows_rejected

    def text(self) -> str:
        """A human summary."""
        lines = [
            f"rows_in={self.rows_in} = rows_out={self.rows_out} + "
            f"rows_rejected={self.rows_rejected}; {self.hypotheses} {self.unit}; "
            f"{self.shards} shards ({self.shards_skipped} already done) in {self.seconds:.1f}s",
            f"output: {self.output}/data   rejects: {self.output}/rejects",
            *(f"  rejected {n}: {reason}" for reason, n in sorted(self.reasons.items()))]
        return "\n".join(lines)


class StageError(ConfigurationError, RuntimeError):
    """An output folder holds shards made with another configuration."""


fingerprint = stage_print
"""The name the stages import: :func:`paralib.fingerprint.stage_print`."""


def line_of(row_id: object, missing: int = -1) -> int:
    """The source line of a row id ``input:shard:line[:sub]`` (``missing`` when it names
    none)."""
    parts = str(row_id).split(":")
    return int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else missing


def differing(old: dict, new: dict, limit: int = 6) -> str:
    """``key: old -> new`` for the keys whose values differ (at most ``limit`` named)."""
    keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    shown = [f"{k.split('.', 1)[-1]}: {old.get(k, '(none)')} -> {new.get(k, '(none)')}"
             for k in keys[:limit]]  # without the part's index, "0."
    more = f" and {len(keys) - limit} more" if len(keys) > limit else ""
    return "; ".join(shown) + more


OWN_ENTRIES = ("data", "rejects", MARKERS, SUMMARY)
# who made an output folder and its one-writer lock (:mod:`paralib.io.ownership`)
OWNER = ".paralib-output.json"
LOCK = ".paralib-lock"
# files a stage writes besides its parts and markers, by the stage that writes them
STAGE_FILES = {"mine.json": "mine"}
PART = re.compile(r"^part-.*\.parquet(\.tmp-\d+)?$")


def check_output(out: str, s3: S3Options | None, extra: tuple[str, ...] = (),
                 marks: tuple[str, ...] = ()) -> list[str]:
    """The entries of ``out`` that its stage made (:data:`OWN_ENTRIES` and ``extra``).

    ``out`` may be missing, empty, or a stage output (it has ``_markers/``,
    ``_summary.json`` or one of the stage's own ``marks``, or holds nothing but the stage's
    own entries, as an interrupted first run leaves it); anything else is a folder
    paralib did not make, and :class:`StageError` says so before any work: paralib never
    writes into it or deletes it.
    """
    kind = pfs.file_type(out, s3)
    if kind == pafs.FileType.NotFound:
        return []
    if kind != pafs.FileType.Directory:
        raise StageError(f"output {out} is a file, not a folder; choose another output")
    names = pfs.entry_names(out, s3)
    own = {*OWN_ENTRIES, *extra}
    if names and not names & {MARKERS, SUMMARY, OWNER, *marks} and not names <= {*own, LOCK}:
        shown = ", ".join(sorted(names)[:5])
        raise StageError(f"output {out} holds files that paralib did not write ({shown}) and "
                         f"no {MARKERS}/ or {SUMMARY}: choose another output folder")
    return sorted(names & own)


def _made_by_paralib(rel: str) -> bool:
    """True for a file (its path below the output) that a stage writes: Parquet parts,
    shard markers, summaries, output markers and locks."""
    parts = rel.split("/")
    name = parts[-1]
    return bool(PART.match(name)) or name in (SUMMARY, OWNER, LOCK, *STAGE_FILES) or (
        len(parts) >= 2 and parts[-2] == MARKERS and name.endswith(".json"))


def delete_entries(out: str, names: list[str] | tuple[str, ...],
                   s3: S3Options | None = None) -> list[str]:
    """Delete the entries ``names`` of ``out`` as a stage wrote them: a file entry whole, a
    folder entry file by file, only the files a stage writes (:func:`_made_by_paralib`),
    then the folders left empty. A user's file inside ``data/`` stays, with its folders.
    Returns the paths of the files deleted."""
    fs, inner = pfs.resolve(out, s3)
    gone: list[str] = []
    for name in names:
        path = pfs.join(inner, name)
        info = fs.get_file_info(path)
        if info.type == pafs.FileType.File:
            fs.delete_file(path)
            gone.append(path)
        elif info.type == pafs.FileType.Directory:
            infos = fs.get_file_info(pafs.FileSelector(path, recursive=True))
            for f in infos:
                if f.type == pafs.FileType.File and _made_by_paralib(f.path[len(inner) + 1:]):
                    fs.delete_file(f.path)
                    gone.append(f.path)
            dirs = sorted((f.path for f in infos if f.type == pafs.FileType.Directory),
                          key=len, reverse=True)
            for d in [*dirs, path]:
                if not fs.get_file_info(pafs.FileSelector(d)):
                    fs.delete_dir(d)
    return gone


def clear_output(out: str, s3: S3Options | None, extra: tuple[str, ...] = (),
                 marks: tuple[str, ...] = ()) -> None:
    """Delete what a stage wrote to ``out`` (``overwrite: true``): its own entries
    (:func:`check_output`), and inside them only the files a stage writes (Parquet parts,
    markers; :func:`delete_entries`): a user's file stays."""
    delete_entries(out, check_output(out, s3, extra, marks), s3)


def pending(keys: list[str], out: str, s3: S3Options | None, report: StageReport,
            prints: dict[str, str] | None = None,
            inputs: dict[str, tuple[str, tuple[str, ...]]] | None = None) -> list[str]:
    """Shards of ``keys`` without a marker (their partial files deleted); counts the rest.

    A marker made from another input or with other options (its ``fingerprint`` differs
    from ``prints[key]``) is an error: mixing the two would corrupt the output. ``inputs``
    (``{key: (content fingerprint, files)}``, :func:`paralib.io.fs.content_print`) lets the
    message say that the input files themselves changed. Shards of an earlier, larger run
    that ``keys`` does not hold are deleted (:func:`drop_stale`), so that the output and its
    summary count the same rows.
    """
    todo = []
    for key in keys:
        counts = read_marker(out, key, s3)
        if counts is not None and prints and counts.fingerprint != prints[key]:
            if inputs and counts.input not in (None, inputs[key][0]):
                raise StageError(
                    f"{out}: shard {key}: its input changed since the shard was made "
                    f"({', '.join(inputs[key][1])} has other content now); use another "
                    "output folder or set overwrite: true")
            was, now = counts.identity, getattr(prints[key], "identity", None)
            what = (f" ({differing(was, now)})" if isinstance(was, dict) and now
                    and differing(was, now) else "")
            raise StageError(
                f"{out}: shard {key} was made from another input or with other "
                f"options{what}; use another output folder or set overwrite: true")
        if counts is None:
            todo.append(key)
        else:
            report.shards_skipped += 1
            report.add(counts)
    drop_stale(out, set(keys), s3)
    for key in todo:
        clear_partial(out, key, s3)
    return todo


def drop_stale(out: str, keys: set[str], s3: S3Options | None) -> list[str]:
    """Delete the shards of ``out`` that are not in ``keys`` (a smaller rerun's leftovers):
    their markers and their ``data/``, ``rejects/`` folders, when these hold nothing but
    Parquet parts. Anything else (a user's file, even inside ``data/``) is kept, and a
    folder that is not a stage output is refused (:func:`check_output`). Returns the keys
    whose shards were deleted."""
    fs, inner = pfs.resolve(out, s3)
    stale = {k for k in marker_keys(out, s3) if k not in keys}
    folders: dict[str, list] = {}
    for sub in ("data", "rejects"):
        sel = pafs.FileSelector(pfs.join(inner, sub), allow_not_found=True)
        for info in fs.get_file_info(sel):
            if info.type == pafs.FileType.Directory and info.base_name not in keys:
                folders.setdefault(info.base_name, []).append(info.path)
    if not stale and not folders:
        return []
    check_output(out, s3)
    dropped = set(stale)
    for key, paths in folders.items():
        for path in paths:
            files = fs.get_file_info(pafs.FileSelector(path, recursive=True))
            if all(i.type == pafs.FileType.Directory or (i.base_name.startswith("part-")
                   and i.base_name.endswith(".parquet")) for i in files):
                fs.delete_dir(path)
                dropped.add(key)
    for key in stale:
        fs.delete_file(pfs.join(inner, MARKERS, f"{key}.json"))
    return sorted(dropped)


def write_parts(batch: pd.DataFrame, out: str, s3: S3Options | None,
                schema: pa.Schema | None = None, columns: list[str] | None = None
                ) -> pd.DataFrame:
    """Write each shard's rows and rejects as Parquet parts.

    The rows keep the columns of ``schema`` (with its types) or, without one, ``columns``
    (types inferred). Returns one coverage row per shard in the batch
    (see :data:`COVERAGE_COLUMNS`).
    """
    names = schema.names if schema is not None else list(columns or [])
    summary = []
    for key, group in batch.groupby("shard_key", sort=False):
        bad_mask = group["reason"] != ""
        good, bad = group[~bad_mask], group[bad_mask]
        if len(good):
            write_part(out, "data", key, pa.Table.from_pandas(
                good[names], schema=schema, preserve_index=False), s3)
        if len(bad):
            bad = bad.reindex(columns=REJECT_COLUMNS)  # a stage without details: empty
            bad["detail"] = bad["detail"].fillna("")
            write_part(out, "rejects", key, pa.Table.from_pandas(
                bad, schema=REJECT_SCHEMA, preserve_index=False), s3)
        rows_out = int(good["_first"].sum())
        summary.append({"shard_key": key, "covered": rows_out + len(bad),
                        "total": int(group["shard_total"].iloc[0]), "rows_out": rows_out,
                        "rows_rejected": len(bad), "hypotheses": len(good),
                        "reasons": json.dumps(bad["reason"].value_counts().to_dict())})
    return pd.DataFrame(summary, columns=COVERAGE_COLUMNS)


def collect(batches: Iterator[pd.DataFrame], keys: list[str], out: str,
            s3: S3Options | None, report: StageReport, progress: bool, desc: str,
            prints: dict[str, str] | None = None, rows: int | None = None,
            inputs: dict[str, tuple[str, tuple[str, ...]]] | None = None) -> None:
    """Consume the batches of coverage rows (from Ray Data, or
    :func:`paralib.io.runner.in_process`); mark each shard complete once all its input rows
    are in.

    ``desc`` is the stage's command (``score``): markers and the summary carry it, so that a
    reader of an unfinished output can say which stage has to finish. ``inputs`` are the
    content fingerprints of :func:`pending`, kept in each marker. The stage's one progress
    bar counts input rows (rows/s, ETA) when ``rows``, the input rows of ``keys``, is
    known, shards otherwise. When no coverage row comes for ``ray.stall_timeout_s`` seconds
    (:func:`paralib.runtime.stall_timeout`) the stage fails with
    :class:`paralib.runtime.StallError` instead of waiting forever."""
    from paralib.runtime import stall_timeout, watch

    report.stage = report.stage or desc
    state: dict[str, dict] = {}
    by_rows = rows is not None
    bar = tqdm(total=rows if by_rows else len(keys), unit="row" if by_rows else "shard",
               desc=desc, disable=not progress, unit_scale=by_rows, dynamic_ncols=True)
    def where() -> str:
        done = sum(1 for s in state.values() if s["covered"] == s["rows_in"])
        return f"{done} of {len(keys)} shards complete"

    batches = watch(batches, stall_timeout(), desc, where)
    try:
        for batch in batches:
            for row in batch.to_dict("records"):
                s = state.setdefault(row["shard_key"], {"rows_in": row["total"], "covered": 0,
                                                        "rows_out": 0, "rows_rejected": 0,
                                                        "hypotheses": 0, "reasons": {}})
                for k in ("covered", "rows_out", "rows_rejected", "hypotheses"):
                    s[k] += row[k]
                if by_rows:
                    bar.update(row["covered"])
                for reason, n in json.loads(row["reasons"]).items():
                    s["reasons"][reason] = s["reasons"].get(reason, 0) + n
                if s["covered"] == s["rows_in"]:
                    counts = StageManifest(**{k: v for k, v in s.items() if k != "covered"},
                                           stage=desc)
                    if prints:
                        made = prints[row["shard_key"]]
                        counts.fingerprint = str(made)
                        if getattr(made, "identity", None) is not None:
                            counts.identity = made.identity
                    if inputs:
                        counts.input = inputs[row["shard_key"]][0]
                    write_marker(out, row["shard_key"], counts, s3)
                    report.add(counts)
                    if not by_rows:
                        bar.update(1)
                    bar.set_postfix(shards=f"{len(state)}/{len(keys)}",
                                    rejected=report.rows_rejected, refresh=False)
    finally:
        # an error on this side (a stall, a marker S3 would not take) must not leave the
        # stage's actors holding their CPUs: closing the watch closes Ray Data's iterator
        batches.close()
    bar.close()
    unfinished = [k for k in keys if read_marker(out, k, s3) is None]
    if unfinished:
        raise RuntimeError(f"shards not completed: {', '.join(unfinished[:10])}")


def finish(report: StageReport, s3: S3Options | None, t0: float) -> StageReport:
    """Write ``_summary.json`` and check that every input row is accounted for."""
    report.seconds = time.perf_counter() - t0
    pfs.write_bytes(summary_path(report.output), json.dumps(asdict(report), indent=2).encode(),
                    s3)
    if not report.balanced():
        raise RuntimeError(f"row accounting does not balance: {report.text()}")
    return report
