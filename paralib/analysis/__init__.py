"""Analysis of a scored corpus (Wieting et al. 2017 §5.6.1, Tables 9-11).

``analyze(df, out_dir)`` writes ``report.html`` (with PNG plots) and ``report.json``.

The names below are imported on first use, so that ``paralib.analysis.config`` (read by the
configuration schema of every stage, translation actors included) does not pull in scipy and
matplotlib.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "average_idf": "ngrams", "entropy": "ngrams", "idf_table": "ngrams",
    "repetition_rate": "ngrams", "sentence_repetition_rates": "ngrams",
    "REPORT_HTML": "report", "REPORT_JSON": "report", "analyze": "report",
    "diversity_table": "tables", "pref_correlations": "tables",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"paralib.analysis.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'paralib.analysis' has no attribute {name!r}")
