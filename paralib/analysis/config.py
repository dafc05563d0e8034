"""Config section of ``paralib analyze`` (2017 Tables 9-11)."""

from __future__ import annotations

from pydantic import Field

from paralib.schema import ExpandedPath, Strict


class AnalyzeConfig(Strict):
    """Which scored corpus to analyse and where the report goes."""

    input: ExpandedPath = "output/score"
    output: ExpandedPath = "output/analysis"
    examples: int = Field(default=5, ge=1)
    seed: int = 0

