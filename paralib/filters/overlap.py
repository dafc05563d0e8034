"""n-gram overlap scorer (2017 §5.7, Table 12; 2018 Table 3 reports trigram overlap).

"Our n-gram overlap measures are calculated by counting n-grams of a given order in both the
reference and translation, then dividing the number of shared n-grams by the total number of
n-grams in the reference or translation, whichever has fewer." Shared n-grams are counted with
multiplicity, clipped as in BLEU: sum over n-grams g of min(count_ref(g), count_trans(g)), so
the score lies in [0, 1] (1: the shorter side's n-grams all occur in the longer one).

A pair whose shorter side has fewer than n tokens has no n-grams of order n: its
``overlap<n>`` is NaN and :meth:`OverlapScorer.invalid` names it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from paralib.filters.base import Direction, Scorer, register
from paralib.filters.tokenize import pair_tokens


def overlap(matches: np.ndarray, ref_grams: np.ndarray, trans_grams: np.ndarray) -> np.ndarray:
    """Shared n-grams over the n-grams of the side with fewer; NaN where that side has none."""
    denom = np.minimum(ref_grams, trans_grams).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denom > 0, matches / denom, np.nan)


@register
class OverlapScorer(Scorer):
    """``overlap1``, ``overlap2``, ``overlap3``: clean between bounds (tuned {0-0.3}, {0.6-1})."""

    name = "overlap"
    columns = ("overlap1", "overlap2", "overlap3")
    direction = Direction.CLEAN_BETWEEN
    orders = (1, 2, 3)

    def invalid(self, batch: pd.DataFrame) -> pd.Series:
        """Empty texts, and pairs whose shorter side has fewer than 3 tokens."""
        reasons = super().invalid(batch)
        toks = pair_tokens(batch, self.tokens)
        top = max(self.orders)
        for side in ("trans", "ref"):
            n = toks.lengths[side]
            short = (n < top) & (reasons == "").to_numpy()
            if short.any():
                reasons[short] = f"{side} has fewer than {top} tokens: overlap{top} undefined"
        return reasons

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """Overlap of orders 1-3 for every pair."""
        self.check(batch)
        toks = pair_tokens(batch, self.tokens)
        return pd.DataFrame({f"overlap{n}": overlap(toks.matches(n), toks.totals("ref", n),
                                                    toks.totals("trans", n))
                             for n in self.orders}, index=batch.index)
