"""Translation cost scorer: the NMT system's NLL per token of the translation (2017 §5.6).

"Translation Cost: we use the cost (negative log likelihood) of the translation from the NMT
system, divided by the number of tokens in the translation." The back-translation stage already
writes it as ``cost`` (per target token, end token included); this scorer passes it through as
``cost`` and names the rows whose cost is missing, NaN, infinite or negative, which no
threshold could judge.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from paralib.filters.base import Direction, Scorer, ScorerError, register


@register
class CostScorer(Scorer):
    """``cost``: translation NLL per token, clean when low (tuned upper bound 0.2-1, §5.6)."""

    name = "cost"
    columns = ("cost",)
    requires = ("cost",)
    direction = Direction.CLEAN_LOW

    def _values(self, batch: pd.DataFrame) -> np.ndarray:
        self.check(batch)
        try:
            return pd.to_numeric(batch["cost"], errors="coerce").to_numpy(dtype=float,
                                                                        na_value=np.nan)
        except (TypeError, ValueError) as e:
            raise ScorerError(f"scorer 'cost': column cost is not numeric ({e})") from e

    def invalid(self, batch: pd.DataFrame) -> pd.Series:
        """Reasons: ``cost is NaN`` (missing or not a number), ``cost is inf``,
        ``cost is negative``."""
        v = self._values(batch)
        reasons = np.full(len(v), "", dtype=object)
        reasons[np.isnan(v)] = "cost is NaN"
        reasons[np.isinf(v)] = "cost is inf"
        reasons[np.isfinite(v) & (v < 0)] = "cost is negative"
        return pd.Series(reasons, index=batch.index, dtype=object)

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """The ``cost`` column as float64 (invalid rows keep their NaN/inf)."""
        return pd.DataFrame({"cost": self._values(batch)}, index=batch.index)
