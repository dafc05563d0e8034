"""Back-translation at scale: ``configs/news-backtranslate.yaml`` end to end, measured.

The German, French and Czech sides of every wmt-news and
tatoeba-challenge pair (about 130,000 sentences) back-translated into English with the
news-trained models (beam 4, 4-best with per-token cost, 2017 §3 and §5.6), then scored and
selected by the existing stages. Each stage runs in this process on an embedded Ray (as
``paralib backtranslate`` does); for each it records wall seconds, rows in and out, rows/s,
and the peak RSS of this driver, of the largest process below it and of all of them summed.

    python -m benchmarks bt_news [--fraction 0.1] [--overwrite]

``--fraction`` runs the first fraction of every file (a quick check); results go to
``benchmarks/results/bt-news.json`` (``bt-news-<fraction>.json`` for a fraction). The ratio of
Ray Data's throughput to plain CTranslate2 on the same model and threads is
``benchmarks/backtranslate.py``'s measurement (its ``--model``).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from benchmarks.common import TreeRSS, table, write_json
from paralib.config import load_config
from paralib.paths import PROJECT_ROOT

CONFIG = PROJECT_ROOT / "configs" / "news-backtranslate.yaml"


def measure(name: str, fn) -> tuple[dict, object]:
    """Run ``fn`` under an RSS sampler; the row of the table and ``fn``'s result."""
    with TreeRSS(os.getpid()) as rss:
        t0 = time.perf_counter()
        result = fn()
        seconds = time.perf_counter() - t0
    row = {"stage": name, "seconds": round(seconds, 1),
           "driver_peak_mb": round(rss.driver / 2**20), "largest_mb": round(rss.largest / 2**20),
           "largest_process": rss.largest_name, "all_processes_mb": round(rss.total / 2**20)}
    return row, result


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", type=Path, default=CONFIG)
    ap.add_argument("--fraction", type=float, default=None)
    ap.add_argument("--overwrite", action="store_true", help="redo stages already done")
    args = ap.parse_args(argv)

    sets = []
    if args.fraction:
        sets += [f"bitext.corpora.{i}.fraction={args.fraction}" for i in range(2)]
        sets += [f"{s}.output=output/news-bt-{args.fraction}/{s}" for s in
                 ("backtranslate", "score", "select")]
        sets += [f"score.input=output/news-bt-{args.fraction}/backtranslate",
                 f"select.input=output/news-bt-{args.fraction}/score"]
    if args.overwrite:
        sets += ["backtranslate.overwrite=true", "score.overwrite=true"]
    cfg = load_config(args.config, sets)

    from paralib.filters import stage as scoring
    from paralib.io.context import StageContext
    from paralib.select import run as selection
    from paralib.translate import backtranslate

    ctx = StageContext.of(cfg, progress=False)

    load_before = os.getloadavg()
    rows = []
    bt_row, bt = measure("backtranslate", lambda: backtranslate.run(cfg.backtranslate, ctx))
    bt_row.update(rows_in=bt.rows_in, rows_out=bt.rows_out, rows_rejected=bt.rows_rejected,
                  hypotheses=bt.hypotheses, shards=bt.shards,
                  rows_per_s=round(bt.rows_out / bt_row["seconds"], 1),
                  hypotheses_per_s=round(bt.hypotheses / bt_row["seconds"], 1),
                  reasons=bt.reasons)
    rows.append(bt_row)
    sc_row, sc = measure("score", lambda: scoring.run(cfg.score, ctx))
    sc_row.update(rows_in=sc.rows_in, rows_out=sc.rows_out,
                  rows_per_s=round(sc.rows_in / sc_row["seconds"], 1))
    rows.append(sc_row)
    se_row, se = measure("select", lambda: selection.run(cfg.select, ctx))
    se_row.update(rows_in=se["rows_in"], rows_out=se["rows_out"],
                  rows_per_s=round(se["rows_in"] / se_row["seconds"], 1))
    rows.append(se_row)

    result = {"config": str(args.config.relative_to(PROJECT_ROOT)),
              "fraction": args.fraction, "models": cfg.backtranslate.models,
              "beam": cfg.backtranslate.beam_size,
              "num_hypotheses": cfg.backtranslate.num_hypotheses,
              "actors": cfg.backtranslate.actors,
              "intra_threads": cfg.backtranslate.intra_threads,
              "load_average_before": load_before, "load_average_after": os.getloadavg(),
              "stages": rows}
    print(table(rows, ["stage", "seconds", "rows_in", "rows_out", "rows_per_s",
                       "driver_peak_mb", "largest_mb", "all_processes_mb"]))
    name = "bt-news" if not args.fraction else f"bt-news-{args.fraction}"
    print(f"wrote {write_json(name, result)}")
