"""Length scorer: tokens of the translation and of the reference (2017 §5.5).

The paper filters candidate pairs by the number of tokens in the translation, tuning lower and
upper bounds (the best range was [0, 10], Table 6). The reference length is kept too, so that
selection can bound either side.
"""

from __future__ import annotations

import pandas as pd

from paralib.filters.base import Direction, Scorer, register
from paralib.filters.tokenize import pair_tokens


@register
class LengthScorer(Scorer):
    """``len_trans``, ``len_ref``: token counts under :mod:`paralib.text`."""

    name = "length"
    columns = ("len_trans", "len_ref")
    direction = Direction.CLEAN_BETWEEN

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """Token counts of both sides of every pair."""
        self.check(batch)
        toks = pair_tokens(batch, self.tokens)
        return pd.DataFrame({"len_trans": toks.lengths["trans"], "len_ref": toks.lengths["ref"]},
                            index=batch.index)
