"""Config section of ``paralib classifier train`` (2017 §5.6.1)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from paralib.schema import ExpandedPath, Keyed, Strict


class ClassifierConfig(Strict):
    """Reference/translation classifiers (AVG and LSTM) trained on held-out candidate pairs."""

    input: Keyed[ExpandedPath] = "output/backtranslate"
    output: Keyed[ExpandedPath] = "output/classifier"
    encoders: Keyed[list[Literal["avg", "lstm"]]] = Field(default_factory=lambda: ["avg", "lstm"],
                                                   min_length=1)
    negatives: Keyed[list[Literal["random", "hardest"]]] = Field(
        default_factory=lambda: ["random", "hardest"], min_length=1)
    l2_grid: Keyed[list[float]] = Field(default_factory=lambda: [1e-5, 1e-6, 1e-7, 1e-8, 0.0],
                                 min_length=1)
    epochs: Keyed[int] = Field(default=10, ge=1)
    lr: Keyed[float] = Field(default=0.001, gt=0)
    batch_size: Keyed[int] = Field(default=100, ge=1)
    max_fraction: Keyed[float] = Field(default=0.25, gt=0, le=1)
    seed: Keyed[int] = 0
    threads: Keyed[int | None] = Field(default=None, ge=1)

