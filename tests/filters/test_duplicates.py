"""Exact duplicates and identical pairs (no training signal, 2017 §5.7)."""

from __future__ import annotations

import pandas as pd
import pytest

from paralib.filters import ScorerError, get_scorer


def test_duplicates_and_identical(m30k_pairs):
    base = m30k_pairs.iloc[[346, 177, 649]]  # line 178 is identical in both files
    batch = pd.concat([base, base.iloc[[0]]], ignore_index=True)
    # a copy of row 2 that differs only in case and spacing of the period
    extra = base.iloc[[2]].assign(trans=" the three CHILDREN are in a cage . ")
    batch = pd.concat([batch, extra], ignore_index=True)
    out = get_scorer("duplicates").score(batch)
    assert out.duplicate.tolist() == [0, 0, 0, 1, 0]  # row 3 repeats row 0
    assert out.identical.tolist() == [0, 1, 0, 0, 0]
    assert out.identical_tokens.tolist() == [0, 1, 0, 0, 1]


def test_real_corpus_identical_rate(m30k_pairs):
    out = get_scorer("duplicates").score(m30k_pairs)
    want = (m30k_pairs.ref.str.strip() == m30k_pairs.trans.str.strip()).sum()
    assert out.identical.sum() == want > 0
    assert out.duplicate.sum() == m30k_pairs.duplicated(["ref", "trans"]).sum()


def test_missing_column(m30k_pairs):
    with pytest.raises(ScorerError, match="ref"):
        get_scorer("duplicates").score(m30k_pairs[["trans"]])
