"""Per-shard outputs with completion markers, so that a killed job resumes (datatrove style).

Layout under a stage's output folder (local or ``s3://``)::

    data/<corpus>-<shard>/part-*.parquet     rows of the stage
    rejects/<corpus>-<shard>/part-*.parquet  rejected rows with their reason
    _markers/<corpus>-<shard>.json           written once the shard is complete (counts)
    _summary.json                            totals of the whole output

A shard without a marker is incomplete: its partial files are deleted and it is redone, so
the output holds every input row exactly once. An output without ``_summary.json`` is
unfinished: :func:`complete_shards`, the one reader of stage outputs that every later stage
uses, refuses it and names the stage that has to finish.
"""

from __future__ import annotations

import hashlib
import io
import json

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from paralib.contracts import StageManifest
from paralib.errors import InputError, MissingError
from paralib.io import fs as pfs
from paralib.io.fs import S3Options
from paralib.io.parquet import read_parquet

MARKERS = "_markers"
SUMMARY = "_summary.json"


def marker_path(out: str, key: str) -> str:
    """Path of the completion marker of shard ``key``."""
    return pfs.join(out, MARKERS, f"{key}.json")


def summary_path(out: str) -> str:
    """Path of the totals a stage writes last, once every shard is complete."""
    return pfs.join(out, SUMMARY)


def marker_keys(out: str, s3: S3Options | None = None) -> list[str]:
    """Sorted keys of the complete shards of ``out`` (none when it has no markers)."""
    fs, inner = pfs.resolve(out, s3)
    sel = pafs.FileSelector(pfs.join(inner, MARKERS), allow_not_found=True)
    return sorted(i.base_name[: -len(".json")] for i in fs.get_file_info(sel)
                  if i.base_name.endswith(".json"))


def stopped_part_way(out: str, s3: S3Options | None = None) -> bool:
    """True when ``out`` has a markers folder but no summary: its stage did not finish."""
    has_markers = pfs.file_type(pfs.join(out, MARKERS), s3) != pafs.FileType.NotFound
    return has_markers and not pfs.exists(summary_path(out), s3)


def read_marker(out: str, key: str, s3: S3Options | None = None) -> StageManifest | None:
    """The marker of shard ``key`` (its counts), or ``None`` when the shard is not complete."""
    path = marker_path(out, key)
    if not pfs.exists(path, s3):
        return None
    return StageManifest.load(json.loads(pfs.read_bytes(path, s3)))


def write_marker(out: str, key: str, counts: StageManifest | dict,
                 s3: S3Options | None = None) -> None:
    """Mark shard ``key`` complete with its :class:`~paralib.contracts.StageManifest`."""
    pfs.write_bytes(marker_path(out, key), json.dumps(StageManifest.load(counts).dump()).encode(),
                    s3)


def clear_partial(out: str, key: str, s3: S3Options | None = None) -> None:
    """Delete whatever an interrupted run left of shard ``key``."""
    for sub in ("data", "rejects"):
        pfs.delete_dir(pfs.join(out, sub, key), s3)


def write_part(out: str, sub: str, key: str, table: pa.Table, s3: S3Options | None = None,
               **parquet) -> str:
    """Write one Parquet part file of shard ``key`` under ``out/sub/key/``.

    The name is a hash of the rows' ids, so a retried task overwrites its own part instead
    of adding a second copy. ``parquet`` are options of :func:`pyarrow.parquet.write_table`
    (default: zstd compression).
    """
    ids = table.column("id").to_pylist() if "id" in table.column_names else []
    digest = hashlib.sha1("\n".join(map(str, ids)).encode()).hexdigest()[:16]
    path = pfs.join(out, sub, key, f"part-{digest}-{table.num_rows}.parquet")
    buf = io.BytesIO()
    pq.write_table(table, buf, **{"compression": "zstd", **parquet})
    pfs.write_bytes(path, buf.getvalue(), s3)
    return path


def parquet_files(fs, inner: str) -> list[str]:
    """Sorted paths of the Parquet files under ``inner`` of the pyarrow filesystem ``fs``
    (recursive; none when the folder is missing)."""
    infos = fs.get_file_info(pafs.FileSelector(inner, recursive=True, allow_not_found=True))
    return sorted(i.path for i in infos if i.path.endswith(".parquet"))


class IncompleteOutputError(InputError, RuntimeError):
    """A stage output that its stage has not finished (no ``_summary.json``)."""


class NoOutputError(MissingError, FileNotFoundError):
    """No stage output where one was expected."""


def stage_of(out: str, keys: list[str], s3: S3Options | None) -> str:
    """The stage that wrote ``out``, from the first of its markers that names it."""
    for key in keys[:20]:
        stage = getattr(read_marker(out, key, s3), "stage", "")
        if stage:
            return stage
    return ""


def complete_shards(out: str, s3: S3Options | None = None,
                    sub: str = "data") -> dict[str, list[str]]:
    """The Parquet parts of a finished stage output: ``{shard key: [paths]}`` (``s3://``
    URIs for an S3 output), in key order; a shard whose rows were all rejects has none.

    This is the one reader that every consumer of a stage output goes through. An output
    without ``_summary.json`` is refused with :class:`IncompleteOutputError`, which names
    the stage that has to finish (from its markers) and how many shards are complete; only
    shards with a marker are ever read, so a partial shard left by a killed run is not.
    """
    fs, inner = pfs.resolve(out, s3)
    if fs.get_file_info(inner).type == pafs.FileType.NotFound:
        raise NoOutputError(f"no stage output at {out}: run the stage that writes it first")
    keys = marker_keys(out, s3)
    finished = pfs.exists(summary_path(out), s3)
    if not finished and keys:
        stage = stage_of(out, keys, s3)
        name = f"`paralib {stage}`" if stage else "its stage"
        raise IncompleteOutputError(
            f"{out} is an unfinished output of {name} ({len(keys)} of its shards complete, "
            f"no {SUMMARY}): run {name} again to finish it before reading it")
    if not finished:
        if parquet_files(fs, pfs.join(inner, sub)):
            raise IncompleteOutputError(
                f"{out} has Parquet parts but no completion marker ({MARKERS}/ or {SUMMARY}): "
                "it is not a finished stage output; run the stage that writes it again")
        raise NoOutputError(f"no stage output at {out} (no {SUMMARY}): run the stage that "
                            "writes it first")
    uri = "s3://" if pfs.is_s3(out) else ""
    if not keys:  # an output written whole (no per-shard markers)
        return {"": [uri + f for f in parquet_files(fs, pfs.join(inner, sub))]}
    return {k: [uri + f for f in parquet_files(fs, pfs.join(inner, sub, k))] for k in keys}


def stage_files(out: str, s3: S3Options | None = None, sub: str = "data") -> list[str]:
    """Every Parquet part of the finished stage output ``out`` (:func:`complete_shards`)."""
    return [f for files in complete_shards(out, s3, sub).values() for f in files]


def read_output(out: str, sub: str = "data", s3: S3Options | None = None) -> pa.Table:
    """Read every Parquet part of the finished stage output ``out`` (``sub``: ``data`` or
    ``rejects``) into one table; an unfinished output is refused (:func:`complete_shards`)."""
    files = stage_files(out, s3, sub)
    if not files:
        return pa.table({})
    tables = []
    for f in files:
        fs, inner = pfs.resolve(f, s3)
        tables.append(read_parquet(inner, fs, expected=f"a part of the stage output {out}"))
    # parts written before a column was added (rejects' ``detail``) read as nulls there
    return pa.concat_tables(tables, promote_options="default")
