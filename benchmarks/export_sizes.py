"""What smaller exports of a model cost: STS Benchmark test Pearson and Spearman (x 100) and the
size of the weights at every ``--dims`` and with ``--quantize int8``.

Each row is one ``paralib export --to paralib`` of the model (into a temporary folder): the
full model, its first 256, 128, 64 and 32 dimensions (those below the model's size), and the
full model with int8 tables. The scores are those of the exported folder as ``paralib.load``
reads it (every target gives its vectors: ``tests/export``). Test data only scores here; no
choice of the shipped models is made from it.

    python -m benchmarks export_sizes --model models/paralib-en

Prints a table and writes ``benchmarks/results/export_sizes.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import table, write_json

DIMS = (256, 128, 64, 32)


def row(label: str, folder: Path, a: list[str], b: list[str], gold: np.ndarray,
        dims: int | None, quantize: str | None) -> dict:
    """The scores and sizes of one export of ``folder``."""
    import paralib
    from paralib.evaluate.metrics import correlations
    from paralib.export import export
    from paralib.export.measure import weight_bytes

    with tempfile.TemporaryDirectory(prefix="export-sizes-") as tmp:
        start = time.perf_counter()
        done = export(folder, Path(tmp) / "out", "paralib", dims=dims, quantize=quantize)
        seconds = time.perf_counter() - start
        model = paralib.load(done.out)
        got = correlations(model.similarity_pairwise(a, b), gold)
        size = weight_bytes(done.out)
    return {"export": label, "dims": done.dim, "table": quantize or "float32",
            "weight MB": round(size / 1e6, 2),
            "STSB test r": round(got["pearson"], 2), "STSB test rho": round(got["spearman"], 2),
            "export s": round(seconds, 1)}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="models/paralib-en", help="a paralib model folder")
    p.add_argument("--out", default="export_sizes", help="JSON name under results/")
    args = p.parse_args(argv)

    import paralib
    from paralib.evaluate.loaders import read_stsb
    from paralib.export.measure import table_precision
    from paralib.models.folder import WEIGHTS
    from paralib.paths import data_root

    folder = Path(args.model)
    stsb = read_stsb(data_root(), "test")
    gold = np.asarray(stsb.gold)
    full_dim = paralib.load(folder).dim
    runs = [(f"full ({table_precision(folder)} as saved)", None, None)]
    runs += [(f"--dims {d}", d, None) for d in DIMS if d < full_dim]
    runs += [("--quantize int8", None, "int8")]
    rows = [row(label, folder, stsb.a, stsb.b, gold, d, q) for label, d, q in runs]
    rows[0]["weight MB"] = round((folder / WEIGHTS).stat().st_size / 1e6, 2)
    print(table(rows, list(rows[0])))
    path = write_json(args.out, {"model": str(folder), "pairs": len(stsb.a),
                                 "data": "STS Benchmark test", "rows": rows})
    print(f"wrote {path}")
