"""Correlations, cosines and classification scores used by every task.

Correlations are ``scipy.stats`` Pearson's r and Spearman's ρ, × 100 as in the papers' tables
(2018 Table 8, 2019 Table 2); a constant input has no correlation (``None``).
"""

from __future__ import annotations

import math

import numpy as np

from paralib.evaluate.evalmodel import unit_rows


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def correlations(pred: np.ndarray, gold: np.ndarray) -> dict[str, float | None]:
    """Pearson's r and Spearman's ρ (× 100) of predictions with gold scores, and ``n``."""
    from scipy import stats

    pred, gold = np.asarray(pred, dtype=float), np.asarray(gold, dtype=float)
    if len(pred) < 2 or np.ptp(pred) == 0 or np.ptp(gold) == 0:
        return {"pearson": None, "spearman": None, "n": len(pred)}
    return {"pearson": _finite(100 * stats.pearsonr(pred, gold).statistic),
            "spearman": _finite(100 * stats.spearmanr(pred, gold).statistic),
            "n": len(pred)}


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of ``a[i]`` and ``b[i]`` for every row (0 where a vector is zero)."""
    return np.einsum("ij,ij->i", unit_rows(a), unit_rows(b)).astype(float)


def mean_of(values: list[float | None]) -> float | None:
    """Mean of the values that exist (``None`` when none does)."""
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def accuracy_f1(pred: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    """Accuracy and F1 of the positive class (paraphrase = 1), × 100 (Opusparcus Table 7)."""
    pred, gold = np.asarray(pred).astype(int), np.asarray(gold).astype(int)
    tp = int(((pred == 1) & (gold == 1)).sum())
    fp = int(((pred == 1) & (gold == 0)).sum())
    fn = int(((pred == 0) & (gold == 1)).sum())
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return {"accuracy": 100 * float((pred == gold).mean()), "f1": 100 * f1}


def precision_recall_f1(tp: int, predicted: int, gold: int) -> dict[str, float]:
    """Precision, recall and F1 (× 100) from counts."""
    p = tp / predicted if predicted else 0.0
    r = tp / gold if gold else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": 100 * p, "recall": 100 * r, "f1": 100 * f1}
