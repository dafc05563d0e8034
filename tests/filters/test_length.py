"""Length scorer (2017 §5.5)."""

from __future__ import annotations

import pytest

from paralib.filters import ScorerError, get_scorer


def test_lengths_by_hand(hand_pairs):
    out = get_scorer("length").score(hand_pairs)
    # "a little white dog jumping on the ground ." = 9, "a small dog jumping on a street ." = 8
    # "a person parasails on the crest of a wave ." = 10 (both sides)
    # "three well dressed blond children in a cage ." = 9, "the three children are in a cage ." = 8
    assert out.len_trans.tolist() == [9, 10, 9, 8]
    assert out.len_ref.tolist() == [8, 10, 8, 9]
    assert list(out.index) == list(hand_pairs.index)


def test_empty_translation_is_invalid(m30k_pairs):
    batch = m30k_pairs.head(3).copy()
    batch.loc[1, "trans"] = "   "
    reasons = get_scorer("length").invalid(batch)
    assert reasons.tolist() == ["", "empty trans", ""]


def test_missing_column_names_it(m30k_pairs):
    with pytest.raises(ScorerError, match="trans"):
        get_scorer("length").score(m30k_pairs[["ref"]])
