"""Decontamination, groups and duplicates of a table of pairs held in memory (the training
path; :mod:`paralib.decontaminate.stage` streams the same over sharded corpora).

A pair one of whose sides is in an evaluation set is a
reject naming the set; exact duplicate pairs are rejects; the rest get a ``group`` such that
pairs sharing a normalised English side, or an explicit group (the versions of one Bible
verse, the captions of one image), are in one group. Groups are the connected components of
the graph linking each pair to its keys, so a chain of paraphrases (A-B, B-C) is one group:
its members are positives of each other, never negatives (2019 §3.1's mega-batching mines
negatives from other groups only).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from paralib.decontaminate.index import EvalIndex
from paralib.decontaminate.normalise import hash_strings, normal_form


def duplicated(*columns: pd.Series) -> np.ndarray:
    """True for every row that repeats an earlier row's values in all ``columns``."""
    keys = pd.DataFrame({str(i): c.astype(str).to_numpy() for i, c in enumerate(columns)})
    return keys.duplicated(keep="first").to_numpy()


def group_components(df: pd.DataFrame, english: list[str],
                     explicit: str | None = "group") -> np.ndarray:
    """Group ids (int64, the smallest row index of the component) of every row of ``df``.

    Rows are linked through the normal forms of their ``english`` columns (empty normal forms
    link nothing) and through equal values of the ``explicit`` column where it is present.
    """
    n = len(df)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    keys, rows = [], []
    for col in english:
        # each distinct sentence normalised and hashed once (a corpus repeats its English)
        codes, distinct = pd.factorize(df[col].astype(str), use_na_sentinel=False)
        forms = [normal_form(t) for t in distinct]
        have = np.array([bool(f) for f in forms], dtype=bool)[codes]
        keys.append(hash_strings([f"t:{f}" for f in forms])[codes][have])
        rows.append(np.flatnonzero(have))
    if explicit and explicit in df.columns:
        vals = df[explicit]
        have = vals.notna().to_numpy()
        keys.append(hash_strings([f"g:{v}" for v in vals[have]]))
        rows.append(np.flatnonzero(have))
    all_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.uint64)
    all_rows = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    _, key_ids = np.unique(all_keys, return_inverse=True)
    nodes = n + (int(key_ids.max()) + 1 if len(key_ids) else 0)
    graph = coo_matrix((np.ones(len(all_rows)), (all_rows, n + key_ids)), shape=(nodes, nodes))
    _, labels = connected_components(graph, directed=False)
    first = np.full(labels.max() + 1, n, dtype=np.int64)
    np.minimum.at(first, labels[:n], np.arange(n))
    return first[labels[:n]]


def clean_pairs(df: pd.DataFrame, index: EvalIndex | None, english: list[str] | None = None
                ) -> tuple[pd.DataFrame, pd.DataFrame, Counter]:
    """``df`` without contaminated pairs (sides ``s1``, ``s2``) and exact duplicates (equal
    ``s1``, ``s2``, ``lang2``), with a ``group`` column (linked by ``english``, default ``s1``).

    Returns ``(kept, rejected, per_set)``: ``rejected`` is the removed rows with a ``reason``
    column; ``per_set`` counts the pairs each evaluation set removed. ``index`` None skips
    decontamination (``decontaminate: false``).
    """
    reasons = pd.Series("", index=df.index, dtype=object)
    per_set: Counter = Counter()
    if index is not None and len(df):
        found = index.match_pairs(df["s1"].astype(str).tolist(), df["s2"].astype(str).tolist())
        hit = [r or "" for r in found]
        reasons[:] = hit
        per_set.update(r.split(": ", 1)[1].split(" ", 1)[0] for r in hit if r)
    dup = duplicated(*(df[c] for c in ("s1", "s2", "lang2") if c in df.columns))
    reasons[(reasons == "").to_numpy() & dup] = "duplicate pair"
    bad = (reasons != "").to_numpy()
    rejected = df[bad].assign(reason=reasons[bad].to_numpy())
    kept = df[~bad].reset_index(drop=True)
    kept["group"] = group_components(kept, english or ["s1"])
    return kept, rejected, per_set
