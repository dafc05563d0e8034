"""Config section of ``paralib classifier train`` (2017 §5.6.1)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from paralib.schema import ChangesResults, ExpandedPath, KeptForOldRecords, Strict


class ClassifierConfig(Strict):
    """Reference/translation classifiers (AVG and LSTM) trained on held-out candidate pairs."""

    input: ChangesResults[ExpandedPath] = Field(
        default="output/backtranslate",
        description="Candidate pairs with their k-best lists (a ``paralib backtranslate`` "
                    "output).")
    output: KeptForOldRecords[ExpandedPath] = Field(
        default="output/classifier",
        description="Folder of one model per encoder, ``metrics.json`` (2017 Table 8) and "
                    "``heldout.parquet`` (references for ``select.exclude``).")
    encoders: ChangesResults[list[Literal["avg", "lstm"]]] = Field(
        default_factory=lambda: ["avg", "lstm"], min_length=1,
        description="Classifier encoders trained: ``avg`` (word averaging) and/or ``lstm`` (2017 "
                    "§5.6.1).")
    negatives: ChangesResults[list[Literal["random", "hardest"]]] = Field(
        default_factory=lambda: ["random", "hardest"], min_length=1,
        description="How a reference's label-0 hypothesis is drawn from its k-best list: "
                    "``random``, or ``hardest`` (the most reference-like now, re-chosen every "
                    "epoch).")
    l2_grid: ChangesResults[list[float]] = Field(
        default_factory=lambda: [1e-5, 1e-6, 1e-7, 1e-8, 0.0], min_length=1,
        description="L2 weights tried; the best on dev is chosen.")
    epochs: ChangesResults[int] = Field(
        default=10, ge=1, description="Training epochs of each classifier.")
    lr: ChangesResults[float] = Field(default=0.001, gt=0, description="Learning rate.")
    batch_size: ChangesResults[int] = Field(
        default=100, ge=1, description="Examples per mini-batch.")
    max_fraction: ChangesResults[float] = Field(
        default=0.25, gt=0, le=1,
        description="Most references held out, as a fraction of the distinct references (2017: "
                    "50,000 of 190,000); split 8:1:1 into train, dev and test.")
    seed: ChangesResults[int] = Field(
        default=0,
        description="Seed of the held-out split, the random negatives and the initialisation.")
    threads: KeptForOldRecords[int | None] = Field(
        default=None, ge=1,
        description="Torch CPU threads; null: torch's default.")

