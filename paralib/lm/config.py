"""Config section of ``paralib lm train`` (2017 §5.6: a 3-gram KenLM model per language and
corpus on references held out from the pairs being scored)."""

from __future__ import annotations

from pydantic import Field

from paralib.schema import ExpandedPath, Keyed, Strict


class LMConfig(Strict):
    """Where the candidate pairs are, where the models go, how many references to hold out."""

    input: Keyed[ExpandedPath] = "output/backtranslate"
    output: Keyed[ExpandedPath] = "output/lm"
    order: Keyed[int] = Field(default=3, ge=1, le=9)
    references: Keyed[int] = Field(default=40_000, ge=1)
    max_fraction: Keyed[float] = Field(default=0.25, gt=0, le=1)
    seed: Keyed[int] = 0

