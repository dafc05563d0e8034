"""The selection steps, each a function of a DataFrame (2017 §5.2, 2018 §5.4, Opusparcus §3.2,
§4.2). Every step appends what it did (rows in, rows kept, the values it chose) to ``log``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from paralib.errors import ConfigurationError
from paralib.filters.base import within_bounds
from paralib.select.config import Bound, FoldSpec, NoiseSpec


class SelectError(ConfigurationError, ValueError):
    """A selection cannot be made: a missing column, too few rows for a size."""


def group_keys(df: pd.DataFrame) -> list[str]:
    """Columns naming a reference: ``corpus`` and ``id`` (or ``ref`` when there is no ``id``)."""
    keys = [c for c in ("corpus", "id") if c in df.columns]
    return keys if "id" in keys else ["ref"]


def require(df: pd.DataFrame, columns: list[str], what: str) -> None:
    """Raise :class:`SelectError` naming any of ``columns`` missing from ``df``."""
    missing = [c for c in dict.fromkeys(columns) if c not in df.columns]
    if missing:
        raise SelectError(
            f"{what} names column(s) {', '.join(missing)} that the scored pairs do not have "
            f"(columns: {', '.join(map(str, df.columns))})")


def apply_bounds(df: pd.DataFrame, bounds: list[Bound], log: list[dict]) -> pd.DataFrame:
    """Keep rows inside every bound (NaN is outside); counts per bound, in turn (``kept``)
    and applied alone to the rows that reached the first bound (``kept_alone``)."""
    masks = [within_bounds(pd.to_numeric(df[b.column], errors="coerce").to_numpy(dtype=float),
                           b.lower, b.upper) for b in bounds]
    keep = np.ones(len(df), dtype=bool)
    for b, m in zip(bounds, masks, strict=True):
        log.append({"step": "bound", "column": b.column, "lower": b.lower, "upper": b.upper,
                    "rows_in": int(keep.sum()), "kept": int((keep & m).sum()),
                    "kept_alone": int(m.sum())})
        keep &= m
    return df[keep]


def choose_hypotheses(df: pd.DataFrame, mode: str, rng: np.random.Generator,
                      log: list[dict]) -> pd.DataFrame:
    """``best`` (lowest ``rank``), ``random`` (one at random) per reference, or ``all``."""
    if mode != "all" and len(df):
        keys = group_keys(df)
        order = (df.sort_values("rank", kind="stable") if mode == "best" and "rank" in df.columns
                 else df.iloc[rng.permutation(len(df))])
        df = df.loc[order.groupby(keys, sort=False).head(1).index].sort_index()
    log.append({"step": "hypotheses", "mode": mode, "kept": len(df)})
    return df


def fold_numbers(values: pd.Series, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold of each row, 1 (lowest tenth) .. ``n_folds``; ties broken at random; NaN → 0."""
    v = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    ok = np.flatnonzero(~np.isnan(v))
    order = ok[np.lexsort((rng.random(len(ok)), v[ok]))]
    folds = np.zeros(len(v), dtype=np.int64)
    folds[order] = np.arange(len(order)) * n_folds // max(len(order), 1) + 1
    return folds


def _fold_ranges(values: pd.Series, folds: np.ndarray, keep: list[int]) -> dict[str, list]:
    v = pd.to_numeric(values, errors="coerce")
    return {str(f): [float(v[folds == f].min()), float(v[folds == f].max())]
            for f in sorted(keep) if (folds == f).any()}


def keep_folds(df: pd.DataFrame, spec: FoldSpec, rng: np.random.Generator,
               log: list[dict]) -> pd.DataFrame:
    """2018 §5.4: rank by ``spec.column``, split into folds, keep ``spec.keep``."""
    folds = fold_numbers(df[spec.column], spec.n_folds, rng)
    keep = np.isin(folds, spec.keep)
    log.append({"step": "folds", "column": spec.column, "n_folds": spec.n_folds,
                "keep": spec.keep, "rows_in": len(df), "kept": int(keep.sum()),
                "value_ranges": _fold_ranges(df[spec.column], folds, spec.keep)})
    return df[keep]


def noise_mix(df: pd.DataFrame, spec: NoiseSpec, size: int | None, rng: np.random.Generator,
              log: list[dict]) -> pd.DataFrame:
    """Opusparcus §4.2: ``clean_fraction`` of ``size`` rows from the clean folds, the rest
    from the noisy ones (``size=None``: the largest set the pools allow)."""
    folds = fold_numbers(df[spec.column], spec.n_folds, rng)
    clean = df[np.isin(folds, spec.clean_folds)]
    noisy = df[np.isin(folds, spec.noisy_folds)]
    f = spec.clean_fraction
    if size is None:
        size = len(clean) if f == 1 else int(min(len(clean) / f, len(noisy) / (1 - f)))
    n_clean = round(f * size)
    n_noisy = size - n_clean
    if n_clean > len(clean) or n_noisy > len(noisy) or size < 1:
        raise SelectError(
            f"noise level {f:.0%} of {size} pairs needs {n_clean} from folds "
            f"{spec.clean_folds} and {n_noisy} from folds {spec.noisy_folds} of "
            f"'{spec.column}'; there are {len(clean)} and {len(noisy)}")
    picked = pd.concat([clean.iloc[rng.choice(len(clean), n_clean, replace=False)],
                        noisy.iloc[rng.choice(len(noisy), n_noisy, replace=False)]])
    log.append({"step": "noise", "column": spec.column, "clean_fraction": f,
                "clean_folds": spec.clean_folds, "noisy_folds": spec.noisy_folds,
                "rows_in": len(df), "clean_pool": len(clean), "noisy_pool": len(noisy),
                "clean": n_clean, "noisy": n_noisy, "kept": size,
                "clean_value_ranges": _fold_ranges(df[spec.column], folds, spec.clean_folds),
                "noisy_value_ranges": _fold_ranges(df[spec.column], folds, spec.noisy_folds)})
    return picked.iloc[rng.permutation(len(picked))]


def sample(df: pd.DataFrame, size: int, rng: np.random.Generator,
           log: list[dict]) -> pd.DataFrame:
    """A uniform sample of exactly ``size`` rows (2017 §5.2: 24,000 pairs)."""
    if size > len(df):
        raise SelectError(f"size {size} asked but only {len(df)} pairs pass the filters")
    log.append({"step": "sample", "size": size, "rows_in": len(df), "kept": size})
    return df.iloc[np.sort(rng.choice(len(df), size, replace=False))]


def labelled(df: pd.DataFrame, rng: np.random.Generator, log: list[dict],
             tries: int = 50) -> pd.DataFrame:
    """Opusparcus §3.2: positives ``(ref, trans, 1)`` and as many negatives ``(ref_i, x, 0)``
    where ``x`` is a random sentence (reference or translation) of another reference; a
    negative never repeats a positive pair and never pairs a sentence with itself."""
    n = len(df)
    if n < 2:
        raise SelectError(f"labelled output needs at least 2 pairs, got {n}")
    refs = df["ref"].astype(str).to_numpy()
    trans = df["trans"].astype(str).to_numpy()
    group = df.groupby(group_keys(df), sort=False).ngroup().to_numpy()
    if group.max() == 0:
        raise SelectError("labelled output needs pairs of at least 2 different references")
    pool, pool_group = np.concatenate([refs, trans]), np.concatenate([group, group])
    positives = set(zip(refs, trans, strict=True)) | set(zip(trans, refs, strict=True))

    def bad(rows: np.ndarray) -> np.ndarray:
        return np.array([group[i] == pool_group[k] or refs[i] == pool[k]
                         or (refs[i], pool[k]) in positives
                         for i, k in zip(rows, partner[rows], strict=True)], dtype=bool)

    partner = rng.integers(0, 2 * n, n)
    todo = np.flatnonzero(bad(np.arange(n)))
    for _ in range(tries):
        if not len(todo):
            break
        partner[todo] = rng.integers(0, 2 * n, len(todo))
        todo = todo[bad(todo)]
    if len(todo):
        raise SelectError(f"could not draw {len(todo)} negatives that differ from every "
                          f"positive pair in {tries} tries (too few distinct sentences)")
    out = pd.concat([
        pd.DataFrame({"s1": refs, "s2": trans, "label": np.ones(n, np.int64)}),
        pd.DataFrame({"s1": refs, "s2": pool[partner], "label": np.zeros(n, np.int64)}),
    ], ignore_index=True)
    log.append({"step": "labelled", "positives": n, "negatives": n, "kept": 2 * n})
    return out.iloc[rng.permutation(len(out))].reset_index(drop=True)
