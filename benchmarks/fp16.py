"""What float16 weights change in a model folder, measured, so that the
model card can state the difference to float32.

Each ``--model NAME=DIR`` is loaded as saved (float32) and again with every weight rounded to
float16 (``paralib.load`` computes in float32 either way: rounding is the whole difference).
Both encode the STS Benchmark dev sentences; the table gives each one's Pearson's r x 100,
the largest and the mean absolute difference of the pair cosines, and the size of the
weights in either precision. Only the development set is read: the numbers go on the card of
a model shipped in float16 (``scripts/ship_model.py --fp16``), which are then measured on the
test sets by ``benchmarks/quality.py`` like any other.

    python -m benchmarks fp16 --model paralib-en-word-trigram=output/models/paralib-en-word-trigram

Prints a table and writes ``benchmarks/results/fp16.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

import numpy as np
import torch

from benchmarks.common import model_folders, table, write_json
from paralib.models.pretrained import SentenceEncoder, load


def rounded(encoder: SentenceEncoder) -> SentenceEncoder:
    """A copy of ``encoder`` whose weights went through float16 and back."""
    model = copy.deepcopy(encoder.model)
    with torch.no_grad():
        for param in model.parameters():
            param.copy_(param.half().float())
    return SentenceEncoder(model, encoder.languages, encoder.info)


def compare(name: str, folder: Path, a: list[str], b: list[str], gold: np.ndarray) -> dict:
    """The row of one model: dev r in both precisions, cosine differences, weight sizes."""
    from paralib.train.dev import pearson

    full = load(folder)
    half = rounded(full)
    cos32, cos16 = full.similarity_pairwise(a, b), half.similarity_pairwise(a, b)
    diff = np.abs(cos32.astype(np.float64) - cos16.astype(np.float64))
    n = sum(p.numel() for p in full.model.parameters())
    return {"model": name, "folder": str(folder), "pairs": len(a),
            "dev r fp32": pearson(cos32, gold), "dev r fp16": pearson(cos16, gold),
            "max |dcos|": float(diff.max()), "mean |dcos|": float(diff.mean()),
            "MB fp32": n * 4 / 1e6, "MB fp16": n * 2 / 1e6}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", action="append", required=True, metavar="NAME=DIR")
    p.add_argument("--limit", type=int, default=None, help="the first N dev pairs (tests)")
    p.add_argument("--out", default="fp16", help="JSON name under results/")
    args = p.parse_args(argv)
    from paralib.train.dev import load_dev

    dev = load_dev("stsb-dev")
    a, b, gold = dev.a[: args.limit], dev.b[: args.limit], np.asarray(dev.gold[: args.limit])
    t0 = time.time()
    rows = [compare(name, folder, a, b, gold)
            for name, folder in model_folders(p, args.model).items()]
    cols = ["model", "dev r fp32", "dev r fp16", "max |dcos|", "mean |dcos|", "MB fp32",
            "MB fp16"]
    shown = [{c: (f"{r[c]:.2e}" if "dcos" in c else f"{r[c]:.2f}" if isinstance(r[c], float)
                  else r[c]) for c in cols} for r in rows]
    print(table(shown, cols))
    path = write_json(args.out, {
        "metric": "STS Benchmark dev Pearson's r x 100 and pair cosines, float32 weights "
                  "against the same weights rounded to float16",
        "seconds": round(time.time() - t0, 1), "rows": rows})
    print(f"wrote {path}")
