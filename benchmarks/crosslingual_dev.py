"""Choose a cross-lingual model on development data only (a model chosen
on a test set overstates its test score; 2019 §3).

Every candidate model folder (``--model NAME=DIR``, each trained by ``paralib train``, which
already kept its best epoch on its ``train.dev``) is scored on the XNLI dev retrieval suite
(``paralib evaluate --suite xnli``: ar, de, es, fr, tr ↔ en, both directions, 3,320 sentences
a language), with the arithmetic of ``train.dev: xnli-dev`` (:mod:`paralib.evaluate.retrieval`).
The XNLI dev mean picks the model; STS Benchmark dev (from the folder's ``training.json``) is
shown beside it. No test set is read: the chosen model is measured once, afterwards, by
``benchmarks/quality.py``.

    python -m benchmarks crosslingual_dev --model xl=output/models/paralib-xl \
        --model xl-d600=output/models/paralib-xl-d600 [--out NAME]

Prints a table and writes ``benchmarks/results/crosslingual_dev.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path

from benchmarks.common import model_folders, table, write_json
from paralib.contracts import EvalReport, TrainingSummary
from paralib.evaluate.retrieval import mean_score, report_scores
from paralib.train.config import XNLI_DEV_LANGS as XNLI


def dev_row(name: str, folder: Path, report: EvalReport) -> dict:
    """One candidate's row: XNLI dev accuracy per language (mean of both directions), their
    mean, and its STS Benchmark dev Pearson from ``training.json``."""
    by_lang = report_scores(report.tasks["xnli"].models[name].get("sets", {}), XNLI)
    row: dict = {"model": name, "folder": str(folder),
                 **{f"xnli {lang}": score for lang, score in by_lang.items()},
                 "xnli mean": mean_score(by_lang)}
    summary = folder / "training.json"
    train = TrainingSummary.load(json.loads(summary.read_text())) if summary.is_file() else None
    stsb = train.best_dev()[0] if train and train.dev == "stsb-dev" else None
    row["stsb dev"] = math.nan if stsb is None else stsb
    row["pairs"] = train.pairs if train else None
    row["best epoch"] = train.best_epoch if train else None
    return row


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", action="append", required=True, metavar="NAME=DIR")
    p.add_argument("--out", default="crosslingual_dev", help="JSON name under results/")
    args = p.parse_args(argv)
    from paralib.evaluate import Evaluation, evaluate
    from paralib.io.context import StageContext

    models = model_folders(p, args.model)
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        report = evaluate(Evaluation({n: str(f) for n, f in models.items()}, ["xnli"], Path(tmp)),
                          StageContext(progress=False))
    rows = sorted((dev_row(n, f, report) for n, f in models.items()),
                  key=lambda r: -r["xnli mean"])
    cols = ["model", *(f"xnli {lang}" for lang in XNLI), "xnli mean", "stsb dev", "pairs",
            "best epoch"]
    shown = [{c: (f"{r[c]:.1f}" if isinstance(r[c], float) else r[c]) for c in cols}
             for r in rows]
    print(table(shown, cols))
    print(f"chosen on XNLI dev: {rows[0]['model']} ({rows[0]['folder']})")
    path = write_json(args.out, {
        "metric": "XNLI dev retrieval accuracy, mean of xx->en and en->xx over ar, de, es, "
                  "fr, tr (the choice); STS Benchmark dev from training.json (shown)",
        "seconds": round(time.time() - t0, 1), "rows": rows, "chosen": rows[0]["model"]})
    print(f"wrote {path}")
