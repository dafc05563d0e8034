"""Analysis of a scored corpus (Wieting et al. 2017 §5.6.1, Tables 9-11).

``analyze(df, out_dir)`` writes ``report.html`` (with PNG plots) and ``report.json``.

The names below are imported on first use, so that ``paralib.analysis.config`` (read by the
configuration schema of every stage, translation actors included) does not pull in scipy and
matplotlib.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".ngrams": "average_idf entropy idf_table repetition_rate sentence_repetition_rates",
    ".report": "REPORT_HTML REPORT_JSON analyze", ".tables": "diversity_table pref_correlations",
})
