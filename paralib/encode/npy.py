"""``paralib encode --output FILE.npy``: every line of one text file encoded in this process
into one matrix, row i being line i.

The file is read as the Ray Data job reads it (:func:`paralib.encode.read.read_text_shard`:
local or ``s3://``, ``.gz``, every line's verdict), so a line that cannot be read (bytes that
are not UTF-8, a NUL byte) is a reject with its reason, as in an output folder: its row is a
zero vector, and it is written with its reason to ``FILE.rejects.parquet`` next to the
matrix and counted in the summary. An empty line is a zero vector too, counted as before.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paralib.encode.config import TextInput
from paralib.encode.read import plan_text_shards, read_text_shard
from paralib.errors import ConfigurationError
from paralib.io import fs as pfs
from paralib.io.fs import S3Options
from paralib.io.ownership import check_overlap, check_parents
from paralib.io.stage import REJECT_SCHEMA

EMPTY = "empty line"


class NpyOutputError(ConfigurationError, FileExistsError):
    """A ``.npy`` output that would replace a file without ``--overwrite``."""


def rejects_path(output: str) -> str:
    """Where the rejects of ``output`` (``v.npy``) go: ``v.rejects.parquet``."""
    return output.removesuffix(".npy") + ".rejects.parquet"


def check_npy_output(output: str, input_path: str, overwrite: bool) -> None:
    """Refuse a ``.npy`` output that is an ``s3://`` path, lies below a file, is the input,
    or exists (or its rejects file does) without ``overwrite``."""
    if pfs.is_s3(output):
        raise ConfigurationError(f"--output {output}: a .npy output is a local file; give an "
                                 "output folder to write vectors to s3://")
    check_parents(output, "--output", file=True)
    check_overlap(output, {"--input": input_path}, "--output")
    found = [p for p in (output, rejects_path(output)) if os.path.lexists(p)]
    if found and not overwrite:
        raise NpyOutputError(f"--output {output}: {found[0]} exists; paralib encode does not "
                             "replace a file unless --overwrite is given")


def encode_npy(model: str, input_path: str, output: str, batch_size: int = 256,
               normalize: bool = False, overwrite: bool = False,
               s3: S3Options | None = None) -> dict:
    """Encode every line of ``input_path`` with the model folder ``model`` into ``output``
    (see the module's docstring); returns the summary."""
    from paralib.encode.actor import load_encoder

    check_npy_output(output, input_path, overwrite)
    encoder = load_encoder(model, s3)
    specs = plan_text_shards([TextInput(path=input_path)], sys.maxsize, s3)
    n = sum(s.rows for s in specs)
    rows: list[int] = []
    texts: list[str] = []
    rejects: list[dict] = []
    for spec in specs:
        ids, got, bad = read_text_shard(spec, sys.maxsize, s3)
        rows += [int(i.rsplit(":", 1)[1]) - 1 for i in ids]
        texts += got
        rejects += bad
    t0 = time.perf_counter()
    vecs = encoder.encode(texts, batch_size=batch_size, normalize=normalize)
    seconds = time.perf_counter() - t0
    dim = int(vecs.shape[1]) if vecs.ndim == 2 and len(texts) else encoder.dim
    matrix = np.zeros((n, dim), dtype=np.float32)
    if rows:
        matrix[np.asarray(rows)] = vecs
    _save(output, matrix)
    failed = [r for r in rejects if r["reason"] != EMPTY]
    reasons = dict(Counter(r["reason"] for r in failed))
    where = rejects_path(output)
    if failed:
        pq.write_table(pa.Table.from_pylist(failed, schema=REJECT_SCHEMA), where)
    elif os.path.lexists(where):  # an earlier run's, replaced with --overwrite
        os.remove(where)
    return {"output": output, "sentences": n, "dim": dim,
            "empty_lines": len(rejects) - len(failed), "rows_rejected": len(failed),
            "reasons": reasons, "rejects": where if failed else None,
            "sentences_per_s": round(len(texts) / max(seconds, 1e-9), 1)}


def _save(output: str, matrix: np.ndarray) -> None:
    """Write ``matrix`` to ``output`` whole or not at all."""
    path = Path(output)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        np.save(f, matrix)
    os.replace(tmp, path)
