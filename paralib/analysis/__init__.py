"""Analysis of a scored corpus (Wieting et al. 2017 §5.6.1, Tables 9-11).

``analyze(df, out_dir)`` writes ``report.html`` (with PNG plots) and ``report.json``.
"""

from paralib.analysis.ngrams import (
    average_idf,
    entropy,
    idf_table,
    repetition_rate,
    sentence_repetition_rates,
)
from paralib.analysis.report import REPORT_HTML, REPORT_JSON, analyze
from paralib.analysis.tables import diversity_table, pref_correlations

__all__ = [
    "REPORT_HTML", "REPORT_JSON", "analyze", "average_idf", "diversity_table", "entropy",
    "idf_table", "pref_correlations", "repetition_rate", "sentence_repetition_rates",
]
