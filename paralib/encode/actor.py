"""The encode actor: Ray's batch-inference shape (a callable class that loads the model once
in ``__init__`` and runs it in ``__call__``, used with ``map_batches(EncodeActor,
compute=ActorPoolStrategy(...))``).

Each call gets whole shards (their :class:`~paralib.io.bitext.ShardSpec`), reads them
(:func:`paralib.encode.read.read_text_shard`), encodes the good lines with
:meth:`paralib.models.SentenceEncoder.encode` and writes one Parquet part of vectors and one
of rejects per shard; it returns only the shard's counts (the coverage rows of
:mod:`paralib.io.stage`), so neither text nor vectors pass through Ray's object store.
"""

from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pyarrow as pa

from paralib.encode.read import read_text_shard
from paralib.encode.vectors import PARQUET_OPTIONS, vectors_table
from paralib.io.bitext import ShardSpec
from paralib.io.fs import S3Options, local_copy
from paralib.io.shards import write_part
from paralib.io.stage import COVERAGE_COLUMNS, REJECT_SCHEMA


def load_encoder(model: str, s3: S3Options | None = None, device: str = "cpu",
                 threads: int = 0):
    """``paralib.load`` of a model folder (an ``s3://`` one through the node's cache) on
    ``device``, with ``threads`` torch threads (0: torch's default)."""
    import torch

    from paralib.models.pretrained import load

    if threads:
        torch.set_num_threads(threads)
    encoder = load(local_copy(model, s3))
    if device != "cpu":
        encoder.model.to(device)
    return encoder


class EncodeActor:
    """Encodes the shards of each batch and writes their parts under ``out``."""

    def __init__(self, model: str, out: str, dtype: str, normalize: bool, batch_size: int,
                 max_chars: int, s3: S3Options | None = None, device: str = "cpu",
                 threads: int = 1):
        self.encoder = load_encoder(model, s3, device, threads)
        self.out, self.dtype, self.normalize = out, dtype, normalize
        self.batch_size, self.max_chars, self.s3 = batch_size, max_chars, s3

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        rows = [self.encode_shard(ShardSpec.from_dict(item))
                for item in batch.to_dict("records")]
        return pd.DataFrame(rows, columns=COVERAGE_COLUMNS)

    def encode_shard(self, spec: ShardSpec) -> dict:
        """Read, encode and write one shard; its coverage row."""
        ids, texts, bad = read_text_shard(spec, self.max_chars, self.s3)
        if ids:
            emb = self.encoder.encode(texts, batch_size=self.batch_size,
                                      normalize=self.normalize)
            table = vectors_table(ids, texts, spec.src_lang, emb, self.dtype)
            write_part(self.out, "data", spec.key, table, self.s3, **PARQUET_OPTIONS)
        if bad:
            write_part(self.out, "rejects", spec.key,
                       pa.Table.from_pylist(bad, schema=REJECT_SCHEMA), self.s3)
        reasons = Counter(r["reason"] for r in bad)
        # the planned line count: a file that shrank since planning leaves the shard unmarked
        return {"shard_key": spec.key, "covered": len(ids) + len(bad),
                "total": int(spec.rows), "rows_out": len(ids),
                "rows_rejected": len(bad), "hypotheses": len(ids),
                "reasons": json.dumps(reasons)}
