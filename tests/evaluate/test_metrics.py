"""Correlations on a tiny hand-made set match scipy; classification scores by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from paralib.evaluate.metrics import accuracy_f1, correlations, mean_of, row_cosines


def test_correlations_match_scipy():
    pred = np.array([0.9, 0.1, 0.5, 0.7, 0.3, 0.8])
    gold = np.array([5.0, 0.4, 2.0, 4.2, 1.0, 3.6])
    got = correlations(pred, gold)
    assert got["pearson"] == pytest.approx(100 * stats.pearsonr(pred, gold)[0])
    assert got["spearman"] == pytest.approx(100 * stats.spearmanr(pred, gold)[0])
    # ranks agree except one swap (0.8 vs 0.7 ranked against 3.6 vs 4.2)
    assert got["spearman"] == pytest.approx(100 * (1 - 6 * 2 / (6 * 35)))
    assert got["n"] == 6


def test_constant_prediction_has_no_correlation():
    assert correlations(np.ones(4), np.arange(4.0))["pearson"] is None


def test_row_cosines_and_zero_vectors():
    a = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    b = np.array([[2.0, 0.0], [-1.0, -1.0], [1.0, 0.0]])
    assert row_cosines(a, b) == pytest.approx([1.0, -1.0, 0.0])


def test_accuracy_f1_by_hand():
    pred, gold = np.array([1, 1, 0, 0, 1]), np.array([1, 0, 0, 1, 1])
    got = accuracy_f1(pred, gold)
    assert got["accuracy"] == pytest.approx(60.0)
    assert got["f1"] == pytest.approx(100 * 2 * 2 / (2 * 2 + 1 + 1))
    assert mean_of([1.0, None, 3.0]) == 2.0 and mean_of([None]) is None
