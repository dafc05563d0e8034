"""``paralib analyze``: the analysis report of a scored corpus (2017 Tables 9-11)."""

from __future__ import annotations

from pathlib import Path

from paralib.analysis.config import AnalyzeConfig
from paralib.analysis.report import REPORT_HTML, analyze
from paralib.io.fs import S3Options
from paralib.select.files import read_pairs


def run_analyze(cfg: AnalyzeConfig, s3: S3Options | None = None) -> Path:
    """Read ``cfg.input`` (a stage output folder or Parquet files), write the report."""
    analyze(read_pairs(cfg.input, s3), cfg.output, seed=cfg.seed, k=cfg.examples)
    return Path(cfg.output) / REPORT_HTML
