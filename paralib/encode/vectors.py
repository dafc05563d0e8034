"""The Parquet form of sentence vectors: ``id, text, lang, embedding`` (a fixed-size list of
float16 or float32), written per shard by the encode actors and read back whole by
``paralib mine``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from paralib.errors import InputError
from paralib.io import fs as pfs
from paralib.io.fs import S3Options
from paralib.io.parquet import read_parquet
from paralib.io.shards import SUMMARY, parquet_files


class VectorsError(InputError, ValueError):
    """Stored vectors that cannot be read (an unfinished encode output, missing columns)."""


# Floats neither repeat nor compress well as bytes (zstd saved under 10 % of a float32 part
# and took as long as encoding it): the vectors are stored plain, without a dictionary or
# min/max statistics (no reader filters on them; they cost a tenth of writing a part); the
# strings are compressed.
PARQUET_OPTIONS = {"compression": {"id": "zstd", "text": "zstd", "lang": "zstd",
                                   "embedding": "none"},
                   "use_dictionary": ["lang"], "write_statistics": ["id", "text", "lang"]}


def vectors_table(ids: list[str], texts: list[str], lang: str, emb: np.ndarray,
                  dtype: str) -> pa.Table:
    """One part: ``emb`` (n × d) stored as ``dtype``, row i being ``ids[i]``."""
    n, dim = emb.shape
    values = pa.array(np.ascontiguousarray(emb, dtype=np.dtype(dtype)).reshape(-1))
    value = pa.float16() if dtype == "float16" else pa.float32()
    return pa.Table.from_arrays(
        [pa.array(ids, pa.string()), pa.array(texts, pa.string()),
         pa.array([lang] * n, pa.string()), pa.FixedSizeListArray.from_arrays(values, dim)],
        schema=pa.schema([("id", pa.string()), ("text", pa.string()), ("lang", pa.string()),
                          ("embedding", pa.list_(value, dim))]))


@dataclass
class Vectors:
    """Sentences with their vectors (float32, in the order of the files and their rows)."""

    ids: list[str]
    texts: list[str]
    langs: list[str]
    matrix: np.ndarray

    def lang(self) -> str:
        """The one language of the rows (``und`` when there are several or none)."""
        found = set(self.langs)
        return found.pop() if len(found) == 1 else "und"


def is_encode_output(path: str, s3: S3Options | None = None) -> bool:
    """True when ``path`` is a folder written by ``paralib encode`` (finished or not)."""
    import pyarrow.fs as pafs

    if pfs.file_type(path, s3) != pafs.FileType.Directory:
        return False
    return bool(pfs.entry_names(path, s3) & {"_markers", SUMMARY})


def encode_model(path: str, s3: S3Options | None = None) -> tuple[str, dict] | None:
    """``(model folder, model stamp)`` of the ``paralib encode`` output ``path`` (its
    output marker, or the fingerprint of its first shard for an output of an earlier
    layout, whose folder is then unknown: ``?``); ``None`` for Parquet files."""
    from paralib.io.ownership import read_owner
    from paralib.io.shards import marker_keys, read_marker

    if not is_encode_output(path, s3):
        return None
    owner = read_owner(path, s3)
    if owner is not None and owner.options.get("model_stamp"):
        return str(owner.options.get("model", "?")), dict(owner.options["model_stamp"])
    keys = marker_keys(path, s3)
    marker = read_marker(path, keys[0], s3) if keys else None
    identity = getattr(marker, "identity", None) or {}
    stamp = {k.rsplit(".", 1)[-1]: v for k, v in identity.items()
             if k.startswith("1.model.")}
    return ("?", stamp) if stamp else None


def read_vectors(path: str, s3: S3Options | None = None) -> Vectors:
    """Every row of a finished ``paralib encode`` output folder, or of Parquet files (a file
    or a glob) with the columns ``id, text, embedding`` (and optionally ``lang``)."""
    if is_encode_output(path, s3):
        if not pfs.exists(pfs.join(path, SUMMARY), s3):
            raise VectorsError(f"{path} is an unfinished paralib encode output (no {SUMMARY}): "
                               "run paralib encode on it again to finish it")
        fs, inner = pfs.resolve(path, s3)
        files = parquet_files(fs, pfs.join(inner, "data"))
    else:
        files = [pfs.resolve(f, s3)[1] for f in pfs.expand_glob(path, s3)]
        fs = pfs.resolve(path, s3)[0]
    ids: list[str] = []
    texts: list[str] = []
    langs: list[str] = []
    blocks: list[np.ndarray] = []
    for f in files:
        table = read_parquet(f, fs, expected="sentence vectors as paralib encode writes them")
        missing = [c for c in ("id", "text", "embedding") if c not in table.column_names]
        kind = table.schema.field("embedding").type if "embedding" in table.column_names else 0
        if missing or not pa.types.is_fixed_size_list(kind):
            raise VectorsError(
                f"{f}: expected columns id, text and embedding (a fixed-size list of floats), "
                f"as paralib encode writes; found {', '.join(table.column_names)}")
        ids += table.column("id").to_pylist()
        texts += table.column("text").to_pylist()
        langs += (table.column("lang").to_pylist() if "lang" in table.column_names
                  else ["und"] * table.num_rows)
        emb = table.column("embedding").combine_chunks()
        flat = emb.flatten().to_numpy(zero_copy_only=False)
        blocks.append(flat.reshape(len(emb), kind.list_size).astype(np.float32, copy=False))
    dims = sorted({b.shape[1] for b in blocks})
    if len(dims) > 1:
        raise VectorsError(f"{path}: vectors of different sizes ({dims}): made by different "
                           "models")
    dim = dims[0] if dims else 0
    matrix = np.concatenate(blocks) if blocks else np.zeros((0, dim), np.float32)
    return Vectors(ids, texts, langs, matrix)
