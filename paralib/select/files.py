"""Reading scored pairs and writing a selection (Parquet in, Parquet and JSON out)."""

from __future__ import annotations

import io
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from paralib.io import fs
from paralib.io.fs import S3Options
from paralib.io.parquet import read_parquet
from paralib.io.shards import stage_files

PAIRS_FILE, REPORT_FILE = "pairs.parquet", "selection.json"


def read_pairs(path: str, s3: S3Options | None = None) -> pd.DataFrame:
    """All rows of a finished stage output folder (its complete shards, through
    :func:`paralib.io.shards.stage_files`, which refuses an unfinished output and names the
    stage that has to finish), a selection folder (``pairs.parquet``), a Parquet file or a
    glob."""
    if fs.WILDCARDS.search(path) or path.endswith(".parquet"):
        files = fs.expand_glob(path, s3)
    elif fs.exists(fs.join(path, PAIRS_FILE), s3):
        files = [fs.join(path, PAIRS_FILE)]
    else:
        files = stage_files(path, s3)
        if not files:
            raise FileNotFoundError(f"no input file matches: {fs.join(path, 'data')}: "
                                    "the stage output holds no rows")
    tables = []
    for f in files:
        filesystem, inner = fs.resolve(f, s3)
        tables.append(read_parquet(inner, filesystem, expected="scored or selected pairs "
                                   "(the output of paralib score, select or decontaminate)"))
    return pa.concat_tables(tables, promote_options="default").to_pandas()


def write_selection(df: pd.DataFrame, report: dict, output: str,
                    s3: S3Options | None = None) -> dict[str, str]:
    """Write ``<output>/pairs.parquet`` and, next to it, ``<output>/selection.json``."""
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(df.reset_index(drop=True), preserve_index=False), buf)
    paths = {"pairs": fs.join(output, PAIRS_FILE), "report": fs.join(output, REPORT_FILE)}
    fs.write_bytes(paths["pairs"], buf.getvalue(), s3)
    fs.write_bytes(paths["report"], json.dumps(report, indent=2, default=str).encode(), s3)
    return paths
