"""Smoothed sentence BLEU of Nakov et al. 2012 (2017 §5.7)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu

from paralib.filters import ScorerError, get_scorer
from paralib.filters.bleu import nakov_bleu
from paralib.filters.tokenize import encode_pairs
from paralib.text import detokenized


def test_bleu_by_hand(hand_pairs):
    out = get_scorer("bleu").score(hand_pairs).bleu.to_numpy()
    # p_n = (m_n + 1) / (h_n + 1), BP = min(1, exp(1 - (r + 1) / c)), BLEU = BP * (prod p_n)^(1/4)
    # Row 0: hyp "a little white dog jumping on the ground ." c = 9, ref r = 8
    #   m = 5, 2, 1, 0 (no shared 4-gram); h = 9, 8, 7, 6
    #   p = 6/10, 3/9, 2/8, 1/7; r + 1 = 9 = c, so BP = 1
    row0 = (6 / 10 * 3 / 9 * 2 / 8 * 1 / 7) ** 0.25  # = (1/140)^(1/4) = 0.290715
    # Row 1: identical, c = r = 10: every p_n = (h+1)/(h+1) = 1; BP = exp(1 - 11/10)
    row1 = math.exp(-0.1)  # 0.90484: the smoothed BP keeps identical pairs below 1
    # Row 2: hyp "three well dressed blond children in a cage ." c = 9, r = 8
    #   m = 6, 3, 2, 1 ("in a cage ."); h = 9, 8, 7, 6
    #   p = 7/10, 4/9, 3/8, 2/7; product = 168/5040 = 1/30; BP = 1
    row2 = (1 / 30) ** 0.25  # 0.427287
    # Row 3: row 0 swapped: hyp "a small dog jumping on a street ." c = 8, r = 9
    #   m = 5, 2, 1, 0; h = 8, 7, 6, 5; p = 6/9, 3/8, 2/7, 1/6; product = 36/3024 = 1/84
    #   BP = exp(1 - 10/8) = exp(-0.25)
    row3 = math.exp(-0.25) * (1 / 84) ** 0.25  # 0.778801 * 0.330316 = 0.257251
    np.testing.assert_allclose(out, [row0, row1, row2, row3], rtol=1e-12)
    assert out[0] == pytest.approx(0.290715, abs=1e-6)
    assert out[3] == pytest.approx(0.257251, abs=1e-6)


def test_counts_match_sacrebleu(m30k_pairs):
    """Our n-gram statistics equal sacrebleu's on the same tokens; its add-k score differs
    (unigrams and brevity penalty unsmoothed), which is why the score is computed here."""
    batch = m30k_pairs.head(300)
    toks = encode_pairs(batch.ref, batch.trans)
    refs, hyps = detokenized(batch.ref), detokenized(batch.trans)
    ours = get_scorer("bleu").score(batch).bleu.to_numpy()
    differs = 0
    for i, (h, r) in enumerate(zip(hyps, refs, strict=True)):
        sb = sacrebleu.sentence_bleu(h, [r], tokenize="none", smooth_method="none")
        assert sb.sys_len == toks.lengths["trans"][i] and sb.ref_len == toks.lengths["ref"][i]
        m = [toks.matches(n)[i] for n in (1, 2, 3, 4)]
        t = [toks.totals("trans", n)[i] for n in (1, 2, 3, 4)]
        assert [int(c) for c in sb.counts] == m and [int(c) for c in sb.totals] == t
        assert ours[i] == pytest.approx(nakov_bleu(np.array(m)[:, None], np.array(t)[:, None],
                                                   np.array([sb.sys_len]),
                                                   np.array([sb.ref_len]))[0])
        addk = sacrebleu.sentence_bleu(h, [r], tokenize="none", smooth_method="add-k",
                                       smooth_value=1)
        differs += abs(addk.score / 100 - ours[i]) > 1e-6
    assert differs > 250


def test_empty_translation(m30k_pairs):
    batch = m30k_pairs.head(2).copy()
    batch.loc[0, "trans"] = ""
    sc = get_scorer("bleu")
    assert sc.invalid(batch).tolist() == ["empty trans", ""]
    out = sc.score(batch).bleu
    assert np.isnan(out[0]) and 0 < out[1] < 1


def test_missing_column(m30k_pairs):
    with pytest.raises(ScorerError, match="trans"):
        get_scorer("bleu").score(m30k_pairs[["id", "ref"]])
