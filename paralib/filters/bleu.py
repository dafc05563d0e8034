"""Smoothed sentence BLEU of the translation against the reference (2017 §5.7).

"We use a smoothed sentence-level BLEU variant from Nakov et al. (2012) that uses smoothing for
all n-gram lengths and also smooths the brevity penalty" (BLEU+1 as in Moses' sentence-level
BLEU with the smoothed brevity penalty). With m_n the clipped n-gram matches of the translation
(hypothesis) in the reference, h_n = max(c - n + 1, 0) its n-grams, c its length and r the
reference length, for n = 1..4:

    p_n  = (m_n + 1) / (h_n + 1)                 add-one on every order, unigrams included
    BP   = min(1, exp(1 - (r + 1) / c))          add-one on the reference length
    BLEU = BP * exp(mean_n log p_n)

``sacrebleu`` is not used for the score: its ``add-k`` smoothing leaves unigrams unsmoothed,
its brevity penalty is unsmoothed and it returns 0 when nothing matches, so it computes a
different number. Its match counts (``counts``/``totals`` with ``tokenize='none'``) are the
same as ours; the tests check that.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from paralib.filters.base import Direction, Scorer, register
from paralib.filters.tokenize import pair_tokens

ORDER = 4


def nakov_bleu(matches: np.ndarray, hyp_grams: np.ndarray, hyp_len: np.ndarray,
               ref_len: np.ndarray) -> np.ndarray:
    """BLEU+1 with the smoothed brevity penalty from per-order statistics.

    ``matches`` and ``hyp_grams`` have shape (orders, pairs); lengths shape (pairs,). Pairs
    with an empty hypothesis get NaN.
    """
    matches = np.asarray(matches, dtype=float)
    hyp_grams = np.asarray(hyp_grams, dtype=float)
    c = np.asarray(hyp_len, dtype=float)
    r = np.asarray(ref_len, dtype=float)
    log_p = np.log((matches + 1.0) / (hyp_grams + 1.0)).mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_bp = np.minimum(0.0, 1.0 - (r + 1.0) / c)
    return np.where(c > 0, np.exp(log_p + log_bp), np.nan)


@register
class BleuScorer(Scorer):
    """``bleu``: smoothed sentence BLEU in [0, 1], clean between bounds (tuned like overlap)."""

    name = "bleu"
    columns = ("bleu",)
    direction = Direction.CLEAN_BETWEEN

    def invalid(self, batch: pd.DataFrame) -> pd.Series:
        """Empty texts, and translations with no tokens (BLEU is undefined at c = 0)."""
        reasons = super().invalid(batch)
        toks = pair_tokens(batch, self.tokens)
        for side in ("trans", "ref"):
            bad = (toks.lengths[side] == 0) & (reasons == "").to_numpy()
            reasons[bad] = f"{side} has no tokens"
        return reasons

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """BLEU+1 of every translation against its reference."""
        self.check(batch)
        toks = pair_tokens(batch, self.tokens)
        matches = np.stack([toks.matches(n) for n in range(1, ORDER + 1)])
        grams = np.stack([toks.totals("trans", n) for n in range(1, ORDER + 1)])
        value = nakov_bleu(matches, grams, toks.lengths["trans"], toks.lengths["ref"])
        return pd.DataFrame({"bleu": value}, index=batch.index)
