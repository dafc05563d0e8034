"""``paralib analyze``: the analysis report of a scored corpus (2017 Tables 9-11), with
canonicalising paraphrases when ``analyze.paraphrase_model`` is set (ParaNMT 2018 §6)."""

from __future__ import annotations

from pathlib import Path

from paralib.analysis.config import AnalyzeConfig
from paralib.analysis.report import REPORT_HTML, analyze
from paralib.io.context import StageContext
from paralib.io.fs import is_s3, join, output_dir
from paralib.select.files import read_pairs
from paralib.translate.translator import check_model_dir


def run(cfg: AnalyzeConfig, ctx: StageContext) -> Path | str:
    """Read ``cfg.input`` (a stage output folder or Parquet files), write the report; returns
    the report's path. An ``s3://`` output is written locally and then uploaded.
    Every ``s3://`` bucket of ``ctx.config`` is checked before any work."""
    ctx.check_buckets()
    s3 = ctx.storage
    if cfg.paraphrase_model is not None:
        check_model_dir(cfg.paraphrase_model)  # before reading: fail fast on a wrong path
    pairs = read_pairs(cfg.input, s3)
    with output_dir(cfg.output, s3) as out:
        analyze(pairs, out, seed=cfg.seed, k=cfg.examples,
                paraphrase_model=cfg.paraphrase_model, paraphrase_inputs=cfg.paraphrase_inputs,
                paraphrase_beam=cfg.paraphrase_beam)
    if is_s3(cfg.output):
        return join(cfg.output, REPORT_HTML)
    return Path(cfg.output) / REPORT_HTML
