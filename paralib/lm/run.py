"""``paralib lm train``: hold out references from candidate pairs, train one KenLM per
language/corpus, and record the held-out pair ids so that selection leaves them out."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from paralib.contracts import LMModels
from paralib.io import fs as pfs
from paralib.io.context import StageContext
from paralib.lm.config import LMConfig
from paralib.lm.train import hold_out_references, train_lms
from paralib.select.files import read_pairs

HELDOUT_FILE = "heldout.parquet"


def run(cfg: LMConfig, ctx: StageContext) -> LMModels:
    """Train the language models; returns what was made (models folder, references,
    held-out pairs).

    ``cfg.output`` may be ``s3://``: the models are trained into a local folder and uploaded
    there, and the ``lm`` scorer's actors download them (:func:`paralib.io.fs.local_copy`).
    Every ``s3://`` bucket of ``ctx.config`` is checked before any work.
    """
    ctx.check_buckets()
    s3 = ctx.storage
    pairs = read_pairs(cfg.input, s3)
    held = hold_out_references(pairs, n=cfg.references, max_fraction=cfg.max_fraction,
                               seed=cfg.seed)
    ids = held.explode("ids")
    table = pa.table({"corpus": ids["corpus"].astype(str).tolist(),
                      "id": ids["ids"].astype(str).tolist()})
    with pfs.output_dir(cfg.output, s3) as out:
        train_lms(held, out, order=cfg.order)
        pq.write_table(table, out / HELDOUT_FILE)
    return LMModels(models=cfg.output, references=len(held), heldout_pairs=table.num_rows,
                    heldout_file=pfs.join(cfg.output, HELDOUT_FILE))
