"""n-gram overlap scorer (2017 §5.7): shared n-grams over the n-grams of the shorter side."""

from __future__ import annotations

import numpy as np
import pytest

from paralib.filters import ScorerError, get_scorer


def test_overlap_by_hand(hand_pairs):
    out = get_scorer("overlap").score(hand_pairs)
    # Row 0. ref  "a small dog jumping on a street ."          8 tokens
    #        trans "a little white dog jumping on the ground ." 9 tokens
    #   unigrams shared (clipped): a (min(2,1)=1), dog, jumping, on, "."  = 5; shorter side 8
    #   bigrams  shared: "dog jumping", "jumping on"                        = 2; of 7
    #   trigrams shared: "dog jumping on"                                   = 1; of 6
    # Row 1. identical sentences: 1, 1, 1.
    # Row 2. ref  "the three children are in a cage ."           8 tokens
    #        trans "three well dressed blond children in a cage ." 9 tokens
    #   unigrams: three, children, in, a, cage, "."                         = 6; of 8
    #   bigrams:  "in a", "a cage", "cage ."                                = 3; of 7
    #   trigrams: "in a cage", "a cage ."                                   = 2; of 6
    # Row 3. row 0 swapped: the same (overlap is symmetric).
    want = np.array([[5 / 8, 2 / 7, 1 / 6], [1, 1, 1], [6 / 8, 3 / 7, 2 / 6],
                     [5 / 8, 2 / 7, 1 / 6]])
    np.testing.assert_allclose(out[["overlap1", "overlap2", "overlap3"]].to_numpy(), want)


def test_short_sides_are_named_and_nan(m30k_pairs):
    batch = m30k_pairs.head(4).copy()
    batch.loc[1, "trans"] = "Dogs."  # 2 tokens: no trigram
    batch.loc[2, "ref"] = ""
    sc = get_scorer("overlap")
    reasons = sc.invalid(batch)
    assert reasons[0] == "" and reasons[3] == ""
    assert reasons[1] == "trans has fewer than 3 tokens: overlap3 undefined"
    assert reasons[2] == "empty ref"
    out = sc.score(batch)
    assert out.overlap1[1] >= 0 and np.isnan(out.overlap3[1])
    assert out.notna().all(axis=1).tolist() == [True, False, False, True]


def test_overlap_is_within_bounds_on_real_pairs(m30k_pairs):
    out = get_scorer("overlap").score(m30k_pairs)
    values = out.to_numpy()
    assert np.nanmin(values) >= 0 and np.nanmax(values) <= 1
    # higher orders overlap less on independent captions
    assert out.overlap1.mean() > out.overlap2.mean() > out.overlap3.mean()


def test_missing_column(m30k_pairs):
    with pytest.raises(ScorerError, match="ref"):
        get_scorer("overlap").score(m30k_pairs.drop(columns=["ref"]))
