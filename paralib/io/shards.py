"""Per-shard outputs with completion markers, so that a killed job resumes (datatrove style).

Layout under a stage's output folder (local or ``s3://``)::

    data/<corpus>-<shard>/part-*.parquet     rows of the stage
    rejects/<corpus>-<shard>/part-*.parquet  rejected rows with their reason
    _markers/<corpus>-<shard>.json           written once the shard is complete (counts)
    _summary.json                            totals of the whole output

A shard without a marker is incomplete: its partial files are deleted and it is redone, so
the output holds every input row exactly once.
"""

from __future__ import annotations

import hashlib
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq

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
    import pyarrow.fs as pafs

    fs, inner = pfs.resolve(out, s3)
    sel = pafs.FileSelector(pfs.join(inner, MARKERS), allow_not_found=True)
    return sorted(i.base_name[: -len(".json")] for i in fs.get_file_info(sel)
                  if i.base_name.endswith(".json"))


def stopped_part_way(out: str, s3: S3Options | None = None) -> bool:
    """True when ``out`` has a markers folder but no summary: its stage did not finish."""
    import pyarrow.fs as pafs

    fs, inner = pfs.resolve(out, s3)
    has_markers = fs.get_file_info(pfs.join(inner, MARKERS)).type != pafs.FileType.NotFound
    return has_markers and not pfs.exists(summary_path(out), s3)


def read_marker(out: str, key: str, s3: S3Options | None = None) -> dict | None:
    """The marker of shard ``key`` (its counts), or ``None`` when the shard is not complete."""
    path = marker_path(out, key)
    if not pfs.exists(path, s3):
        return None
    return json.loads(pfs.read_bytes(path, s3))


def write_marker(out: str, key: str, counts: dict, s3: S3Options | None = None) -> None:
    """Mark shard ``key`` complete."""
    pfs.write_bytes(marker_path(out, key), json.dumps(counts).encode(), s3)


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
    import pyarrow.fs as pafs

    infos = fs.get_file_info(pafs.FileSelector(inner, recursive=True, allow_not_found=True))
    return sorted(i.path for i in infos if i.path.endswith(".parquet"))


def read_output(out: str, sub: str = "data", s3: S3Options | None = None) -> pa.Table:
    """Read every Parquet file of ``out/sub`` into one table (for tests and small outputs)."""
    fs, inner = pfs.resolve(pfs.join(out, sub), s3)
    files = parquet_files(fs, inner)
    if not files:
        return pa.table({})
    return pa.concat_tables([read_parquet(f, fs, expected=f"a part of the stage output {out}")
                             for f in files])
