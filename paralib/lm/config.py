"""Config section of ``paralib lm train`` (2017 §5.6: a 3-gram KenLM model per language and
corpus on references held out from the pairs being scored)."""

from __future__ import annotations

from pydantic import Field

from paralib.schema import ChangesResults, ExpandedPath, KeptForOldRecords, Strict


class LMConfig(Strict):
    """Where the candidate pairs are, where the models go, how many references to hold out."""

    input: ChangesResults[ExpandedPath] = Field(
        default="output/backtranslate",
        description="Candidate pairs (a ``paralib backtranslate`` output) whose references train "
                    "the LMs.")
    output: KeptForOldRecords[ExpandedPath] = Field(
        default="output/lm",
        description="Folder of the KenLM models (one per corpus and language) and "
                    "``heldout.parquet``.")
    order: ChangesResults[int] = Field(
        default=3, ge=1, le=9,
        description="N-gram order of the language models (2017 §5.6: 3).")
    references: ChangesResults[int] = Field(
        default=40_000, ge=1,
        description="Distinct references held out per corpus and language to train its LM (2017 "
                    "§5.6: 40,000).")
    max_fraction: ChangesResults[float] = Field(
        default=0.25, gt=0, le=1,
        description="At most this fraction of a group's distinct references is held out.")
    seed: ChangesResults[int] = Field(
        default=0, description="Seed of the draw of held-out references.")

