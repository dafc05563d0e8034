"""Config section of ``paralib analyze`` (2017 Tables 9-11)."""

from __future__ import annotations

from pydantic import Field, field_validator

from paralib.paths import expand
from paralib.schema import Strict


class AnalyzeConfig(Strict):
    """Which scored corpus to analyse and where the report goes."""

    input: str = "output/score"
    output: str = "output/analysis"
    examples: int = Field(default=5, ge=1)
    seed: int = 0

    @field_validator("input", "output")
    @classmethod
    def _expand(cls, v: str) -> str:
        return expand(v)
