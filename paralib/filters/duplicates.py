"""Exact duplicate and identical pairs, which carry no training signal (2017 §5.7).

The diversity filters of §5.7 drop pairs with too much overlap because "too much n-gram
overlap will lead to pairs that are not useful for learning"; the extreme cases need no
threshold: a translation identical to its reference (``identical``), and a (ref, trans) pair
that already occurred earlier in the batch (``duplicate``; the first occurrence is kept, so
dropping ``duplicate == 1`` keeps one copy). Texts are compared after stripping surrounding
whitespace; ``identical_tokens`` also counts pairs that differ only in case, spacing or
punctuation spacing (equal under :mod:`paralib.text`).

Duplicates are found within the batch given; run the scorer over a whole shard (or a
repartitioned dataset keyed by pair) for corpus-wide de-duplication.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from paralib.filters.base import Direction, Scorer, register
from paralib.filters.tokenize import pair_tokens


@register
class DuplicatesScorer(Scorer):
    """``duplicate``, ``identical``, ``identical_tokens``: 0/1, clean when 0."""

    name = "duplicates"
    columns = ("duplicate", "identical", "identical_tokens")
    direction = Direction.CLEAN_LOW

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """0/1 flags per pair (int8)."""
        self.check(batch)
        ref = batch["ref"].fillna("").astype(str).str.strip()
        trans = batch["trans"].fillna("").astype(str).str.strip()
        identical = (ref == trans).to_numpy()
        dup = pd.DataFrame({"r": ref.to_numpy(), "t": trans.to_numpy()}).duplicated().to_numpy()
        toks = pair_tokens(batch, self.tokens)
        same_tok = pc.equal(toks.joined["ref"], toks.joined["trans"]).to_numpy(
            zero_copy_only=False)
        return pd.DataFrame({"duplicate": dup.astype(np.int8),
                             "identical": identical.astype(np.int8),
                             "identical_tokens": same_tok.astype(np.int8)}, index=batch.index)
