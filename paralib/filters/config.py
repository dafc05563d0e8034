"""Config section of ``paralib score``: which scorers run, on what, where the output goes.

Scorers are named like OpusFilter's YAML steps: ``{type: <registered name>, params: {...}}``.
Unknown names and bad parameters are config errors, raised before any work starts.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import Field, field_validator, model_validator

from paralib.paths import expand
from paralib.schema import ChangesResults, ExpandedPath, KeptForOldRecords, Strict

PATH_PARAMS = ("model", "encoder")


class ScorerSpec(Strict):
    """One scorer: its registered ``type`` and constructor ``params``."""

    type: ChangesResults[str] = Field(
        description="Registered scorer name: ``length``, ``cost``, ``overlap``, ``bleu``, "
                    "``duplicates``, ``lm``, ``classifier``, ``paraphrase``.")
    params: ChangesResults[dict[str, Any]] = Field(
        default_factory=dict,
        description="Keyword arguments of the scorer (its ``model`` / ``encoder`` paths made "
                    "absolute).")

    @field_validator("params")
    @classmethod
    def _absolute_paths(cls, params: dict[str, Any]) -> dict[str, Any]:
        """Model and encoder paths become absolute, so actors find them from any cwd."""
        out = dict(params)
        for key in PATH_PARAMS:
            value = out.get(key)
            if isinstance(value, str) and "/" in value and "://" not in value:
                out[key] = os.path.abspath(expand(value))
        return out

    @model_validator(mode="after")
    def _known(self) -> ScorerSpec:
        from paralib.filters.base import get_scorer

        get_scorer(self.type, **self.params)  # raises ScorerError (a ValueError) when invalid
        return self


class ScoreConfig(Strict):
    """``paralib score``: adds one column per scorer to the rows of a stage output."""

    input: ChangesResults[ExpandedPath] = Field(
        default="output/backtranslate",
        description="The stage output to score (e.g. ``output/backtranslate``), local or "
                    "``s3://``.")
    output: KeptForOldRecords[ExpandedPath] = Field(
        default="output/score",
        description="Folder of the scored rows: the input's columns plus one per scorer.")
    scorers: ChangesResults[list[ScorerSpec]] = Field(default_factory=lambda: [
        ScorerSpec(type=t) for t in ("length", "cost", "overlap", "bleu", "duplicates")])
    rows_per_batch: KeptForOldRecords[int | None] = Field(
        default=None, ge=1,
        description="Rows per call of a scoring actor; null: a whole shard.")
    actors: KeptForOldRecords[int] = Field(
        default=1, ge=1, description="Scoring actors in the pool.")
    num_cpus_per_actor: KeptForOldRecords[float] = Field(
        default=0.5, gt=0,
        description="CPUs each scoring actor reserves.")
    overwrite: KeptForOldRecords[bool] = Field(
        default=False,
        description="Delete the output first instead of resuming.")

