"""Config section of ``paralib lm train`` (2017 §5.6: a 3-gram KenLM model per language and
corpus on references held out from the pairs being scored)."""

from __future__ import annotations

from pydantic import Field

from paralib.schema import ExpandedPath, Strict


class LMConfig(Strict):
    """Where the candidate pairs are, where the models go, how many references to hold out."""

    input: ExpandedPath = "output/backtranslate"
    output: ExpandedPath = "output/lm"
    order: int = Field(default=3, ge=1, le=9)
    references: int = Field(default=40_000, ge=1)
    max_fraction: float = Field(default=0.25, gt=0, le=1)
    seed: int = 0

