"""The analysis report of a scored corpus: HTML with PNG plots, and the same tables in JSON
(2017 §5.6.1, Tables 9-11), optionally with canonicalising paraphrases (ParaNMT 2018 §6)."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pandas as pd

from paralib.analysis import tables
from paralib.analysis.canonical import MIN_OVERLAP, paraphrase_examples
from paralib.evaluate.plots import plot_name, pyplot, save_figure
from paralib.evaluate.report import clean

REPORT_JSON, REPORT_HTML, PLOTS = "report.json", "report.html", "plots"


def _histograms(df: pd.DataFrame, cols: list[str], folder: Path) -> dict[str, str]:
    plt = pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for c in cols:
        v = pd.to_numeric(df[c].astype(float), errors="coerce").dropna()
        fig, ax = plt.subplots(figsize=(4.5, 3))
        ax.hist(v, bins=40 if v.nunique() > 40 else max(v.nunique(), 1))
        ax.set(title=c, xlabel=c, ylabel="pairs")
        files[c] = f"{PLOTS}/hist_{plot_name(c)}"
        save_figure(fig, folder.parent / files[c])
    return files


def _heatmap(corr: pd.DataFrame, folder: Path) -> str | None:
    if corr.empty:
        return None
    plt = pyplot()
    size = 1.5 + 0.5 * len(corr)
    fig, ax = plt.subplots(figsize=(size, size))
    im = ax.imshow(corr.to_numpy(dtype=float), vmin=-1, vmax=1, cmap="coolwarm")
    ax.set_xticks(range(len(corr)), corr.columns, rotation=90)
    ax.set_yticks(range(len(corr)), corr.index)
    fig.colorbar(im, ax=ax, fraction=0.046)
    ax.set_title("Spearman correlation of scores")
    name = f"{PLOTS}/correlation.png"
    save_figure(fig, folder.parent / name)
    return name


def _records(df: pd.DataFrame) -> list[dict]:
    return clean(df.to_dict(orient="records"))


def analyze(df: pd.DataFrame, out_dir: str | Path, seed: int = 0, k: int = 5,
            paraphrase_model: str | Path | None = None, paraphrase_inputs: int = 300,
            paraphrase_beam: int = 4) -> dict:
    """Write ``report.html``, ``report.json`` and ``plots/`` for a scored corpus to ``out_dir``.

    Holds the distribution of every score, Table 9 (entropy and repetition of references vs
    translations, per corpus and language), Table 10 (Spearman's ρ of ``p_ref`` with
    repetition, average IDF and length, when ``p_ref`` exists), the Spearman correlation
    matrix of all scores and Table 11 (the ``k`` top and bottom examples of every score).
    With ``paraphrase_model``, also ParaNMT 2018 §6: ``paraphrase_inputs`` references
    paraphrased by that model, a summary and the ``k`` most canonicalising examples.
    Returns the JSON report.
    """
    missing = [c for c in ("ref", "trans") if c not in df.columns]
    if missing:
        raise ValueError(f"analysis needs column(s) {', '.join(missing)}; the input has "
                         f"{', '.join(map(str, df.columns))}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    df = df.reset_index(drop=True)
    cols = tables.score_columns(df)
    dist = tables.distributions(df, cols)
    diversity = tables.diversity_table(df, seed)
    pref = tables.pref_correlations(df, seed=seed) if "p_ref" in df.columns else None
    corr = df[cols].astype(float).corr(method="spearman") if len(cols) > 1 else pd.DataFrame()
    ex = tables.examples(df, cols, k)
    para = None
    if paraphrase_model is not None:
        para = paraphrase_examples(df["ref"].drop_duplicates().tolist(), paraphrase_model,
                                   paraphrase_inputs, k, seed, paraphrase_beam)
    hists = _histograms(df, cols, out / PLOTS)
    heat = _heatmap(corr, out / PLOTS)
    report = {
        "rows": len(df), "scores": cols,
        "distributions": clean(dist.to_dict(orient="index")),
        "diversity": _records(diversity),
        "p_ref_correlations": None if pref is None else _records(pref),
        "correlation": clean(corr.to_dict(orient="index")),
        "examples": {c: _records(e) for c, e in ex.items()},
        "paraphrases": None if para is None else {"summary": clean(para[0]),
                                                  "examples": _records(para[1])},
        "plots": {"histograms": hists, "correlation": heat},
    }
    (out / REPORT_JSON).write_text(json.dumps(report, indent=2))
    (out / REPORT_HTML).write_text(_html(report, dist, diversity, pref, corr, ex, para))
    return report


def _table(df: pd.DataFrame, index: bool = False) -> str:
    return df.to_html(index=index, float_format=lambda x: f"{x:.4g}", na_rep="-", border=0)


def _paraphrase_html(s: dict, examples: pd.DataFrame) -> list[str]:
    return [
        "<h2>Canonicalising paraphrases (ParaNMT 2018 §6, Table 12)</h2>",
        f"<p>{s['inputs']} references paraphrased by <code>{html.escape(s['model'])}</code> "
        f"(beam search, best hypothesis). Copied unchanged: {s['copy_rate']:.1%}; shorter: "
        f"{s['shorter']:.1%}; lower mean IDF (more frequent words): {s['lower_idf']:.1%}; "
        f"words {s['mean_words_in']:.2f} → {s['mean_words_out']:.2f}, mean IDF "
        f"{s['mean_idf_in']:.3f} → {s['mean_idf_out']:.3f} (IDF from the corpus's "
        f"references). {s['canonicalising']} outputs canonicalise: changed, yet sharing at "
        f"least {MIN_OVERLAP:.0%} of the distinct words of the larger side, repeating no more "
        "words than the input, with more frequent or fewer words; those with the largest drop "
        "in mean IDF:</p>",
        _table(examples) if len(examples) else "<p>(none)</p>",
    ]


def _html(report: dict, dist: pd.DataFrame, diversity: pd.DataFrame, pref: pd.DataFrame | None,
          corr: pd.DataFrame, ex: dict[str, pd.DataFrame],
          para: tuple[dict, pd.DataFrame] | None = None) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>paralib analysis</title>",
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
        "img{margin:4px}</style></head><body>",
        f"<h1>Analysis of {report['rows']} scored pairs</h1>",
        "<h2>Score distributions</h2>", _table(dist, index=True),
        *[f"<img src='{html.escape(p)}' alt='{html.escape(c)}'>"
          for c, p in report["plots"]["histograms"].items()],
        "<h2>Entropy and repetition of references vs translations (2017 Table 9)</h2>",
        "<p>Entropy in bits; repetition in % of n-grams already seen in the sentence (unigrams:"
        " words of 3+ characters); <code>diff</code> = reference − translation; one random "
        "hypothesis per reference.</p>", _table(diversity),
    ]
    if pref is not None:
        parts += ["<h2>Spearman's ρ of P(reference) with measures of the translation "
                  "(2017 Table 10)</h2>",
                  "<p>IDF from the corpus's own references, lowercased tokens.</p>", _table(pref)]
    if not corr.empty:
        parts += ["<h2>Spearman correlation of scores</h2>", _table(corr, index=True)]
        if report["plots"]["correlation"]:
            parts.append(f"<img src='{report['plots']['correlation']}' alt='correlation'>")
    parts.append("<h2>Examples from the top and bottom of each score (2017 Table 11)</h2>")
    for c, e in ex.items():
        parts += [f"<h3>{html.escape(c)}</h3>", _table(e)]
    if para is not None:
        parts += _paraphrase_html(*para)
    parts.append("</body></html>")
    return "\n".join(parts)
