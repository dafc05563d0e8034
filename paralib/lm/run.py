"""``paralib lm train``: hold out references from candidate pairs, train one KenLM per
language/corpus, and record the held-out pair ids so that selection leaves them out."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from paralib.io import fs as pfs
from paralib.io.fs import S3Options
from paralib.lm.config import LMConfig
from paralib.lm.train import hold_out_references, train_lms
from paralib.select.files import read_pairs

HELDOUT_FILE = "heldout.parquet"


def run_lm(cfg: LMConfig, s3: S3Options | None = None) -> dict:
    """Train the language models; returns a summary (models folder, references, held-out)."""
    pairs = read_pairs(cfg.input, s3)
    held = hold_out_references(pairs, n=cfg.references, max_fraction=cfg.max_fraction,
                               seed=cfg.seed)
    out = Path(cfg.output)
    train_lms(held, out, order=cfg.order)
    ids = held.explode("ids")
    table = pa.table({"corpus": ids["corpus"].astype(str).tolist(),
                      "id": ids["ids"].astype(str).tolist()})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    pfs.write_bytes(str(out / HELDOUT_FILE), buf.getvalue())
    return {"models": str(out), "references": len(held), "heldout_pairs": table.num_rows,
            "heldout_file": str(out / HELDOUT_FILE)}
