"""The tables of the analysis report, computed from the data (2017 Tables 9-11)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from paralib.analysis.ngrams import (
    average_idf,
    entropy,
    idf_table,
    repetition_rate,
    sentence_repetition_rates,
)
from paralib.text import tokenize_all

TEXT_COLUMNS = {"id", "corpus", "src_lang", "src", "ref", "trans", "rank", "shard_key"}


def score_columns(df: pd.DataFrame) -> list[str]:
    """Numeric or boolean columns other than identifiers and ``rank``."""
    return [c for c in df.columns if c not in TEXT_COLUMNS and (
        pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c]))]


def groups(df: pd.DataFrame) -> list[tuple[dict[str, str], pd.DataFrame]]:
    """The rows of each corpus and language (``corpus`` and ``src_lang`` where present) with
    their labels, then every row as ``All``."""
    cols = [c for c in ("corpus", "src_lang") if c in df.columns]
    parts = [(dict(zip(cols, key, strict=True)), g)
             for key, g in df.groupby(cols, sort=True)] if cols else []
    return [*parts, (dict.fromkeys(cols, "All"), df)]


def distributions(df: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    """Count, missing, mean, std and percentiles of every score."""
    rows = {}
    for c in cols:
        v = pd.to_numeric(df[c].astype(float), errors="coerce")
        q = v.quantile([0.05, 0.25, 0.5, 0.75, 0.95])
        rows[c] = {"count": int(v.notna().sum()), "missing": int(v.isna().sum()),
                   "mean": v.mean(), "std": v.std(), "min": v.min(), "p5": q[0.05],
                   "p25": q[0.25], "median": q[0.5], "p75": q[0.75], "p95": q[0.95],
                   "max": v.max()}
    return pd.DataFrame.from_dict(rows, orient="index")


def one_per_reference(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    """One random hypothesis per reference (2017 Table 9, footnote 5)."""
    keys = [c for c in ("corpus", "id") if c in df.columns] or ["ref"]
    shuffled = df.iloc[np.random.default_rng(seed).permutation(len(df))]
    return shuffled.groupby(keys, sort=False).head(1).sort_index()


def diversity_row(refs: list[str], trans: list[str]) -> dict[str, float]:
    """Entropy (bits) and repetition (%) of uni- and trigrams of both sides, and ref − trans."""
    r, t = tokenize_all(refs), tokenize_all(trans)
    row: dict[str, float] = {"pairs": len(refs)}
    for name, fn in (("ent", entropy), ("rep", repetition_rate)):
        for n, gram in ((1, "uni"), (3, "tri")):
            a, b = fn(r, n), fn(t, n)
            row[f"{name}_{gram}_ref"], row[f"{name}_{gram}_trans"] = a, b
            row[f"{name}_{gram}_diff"] = a - b
    return row


def diversity_table(df: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Table 9 per corpus and language, plus ``All``."""
    return pd.DataFrame([{**key, **diversity_row(g["ref"].tolist(), g["trans"].tolist())}
                         for key, g in groups(one_per_reference(df, seed))])


def pref_measures(df: pd.DataFrame) -> pd.DataFrame:
    """Per row, the measures of Table 10 for its translation; IDF from the corpus's refs."""
    out = pd.DataFrame(index=df.index)
    corpora = df.groupby("corpus", sort=False) if "corpus" in df.columns else [(None, df)]
    for _, g in corpora:
        toks = tokenize_all(g["trans"].tolist())
        idf, unseen = idf_table(tokenize_all(g["ref"].drop_duplicates().tolist()))
        out.loc[g.index, "rep_uni"] = sentence_repetition_rates(toks, 1)
        out.loc[g.index, "rep_tri"] = sentence_repetition_rates(toks, 3)
        out.loc[g.index, "avg_idf"] = average_idf(toks, idf, unseen)
        out.loc[g.index, "length"] = [len(t) for t in toks]
    return out


def pref_correlations(df: pd.DataFrame, max_rows: int = 100_000, seed: int = 0) -> pd.DataFrame:
    """Table 10: Spearman's ρ of P(reference) with repetition, average IDF and length."""
    if len(df) > max_rows:
        df = df.iloc[np.sort(np.random.default_rng(seed).choice(len(df), max_rows, False))]
    measures = pref_measures(df)
    rows = []
    for key, g in groups(df):
        rho = {m: float(spearmanr(g["p_ref"], measures.loc[g.index, m], nan_policy="omit")[0])
               for m in measures.columns}
        rows.append({**key, "pairs": len(g), **rho})
    return pd.DataFrame(rows)


def examples(df: pd.DataFrame, cols: list[str], k: int = 5) -> dict[str, pd.DataFrame]:
    """Table 11: the ``k`` highest and lowest rows of every score."""
    out = {}
    show = [c for c in ("ref", "trans") if c in df.columns]
    for c in cols:
        v = pd.to_numeric(df[c].astype(float), errors="coerce").dropna().sort_values()
        rows = [df.loc[v.index[::-1][:k], show].assign(end="top", value=v[::-1][:k].to_numpy()),
                df.loc[v.index[:k], show].assign(end="bottom", value=v[:k].to_numpy())]
        out[c] = pd.concat(rows, ignore_index=True)
    return out
