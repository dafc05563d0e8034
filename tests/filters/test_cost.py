"""Translation cost scorer (2017 §5.6)."""

from __future__ import annotations

import numpy as np
import pytest

from paralib.filters import ScorerError, get_scorer
from paralib.filters.base import within_bounds


def test_cost_passthrough_and_reasons(m30k_pairs):
    batch = m30k_pairs.head(6).copy()
    batch["cost"] = [0.41, np.nan, np.inf, -np.inf, -0.2, None]
    sc = get_scorer("cost")
    assert sc.invalid(batch).tolist() == ["", "cost is NaN", "cost is inf", "cost is inf",
                                          "cost is negative", "cost is NaN"]
    out = sc.score(batch)
    assert out.cost.iloc[0] == pytest.approx(0.41)
    assert np.isnan(out.cost.iloc[1]) and np.isinf(out.cost.iloc[2])
    assert within_bounds(out.cost.iloc[:3], upper=0.5).tolist() == [True, False, False]
    assert within_bounds(out.cost.iloc[:1], upper=0.4).tolist() == [False]


def test_non_numeric_cost_is_nan(m30k_pairs):
    batch = m30k_pairs.head(2).copy()
    batch["cost"] = ["0.3", "n/a"]
    assert get_scorer("cost").invalid(batch).tolist() == ["", "cost is NaN"]


def test_missing_cost_column(m30k_pairs):
    with pytest.raises(ScorerError, match="needs column\\(s\\) cost"):
        get_scorer("cost").score(m30k_pairs)
