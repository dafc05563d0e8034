"""Config section of ``paralib select``: how a training set is built from scored pairs.

Bounds (2017 §5.5-5.7), folds by tenths (2018 §5.4), a fixed-size sample with a seed (the
24,000-pair protocol of 2017 §5.2), a noise level (the 80/70/60 % clean sets of Opusparcus
§4.2) and labelled output with random negatives (Opusparcus §3.2).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from paralib.schema import ChangesResults, ExpandedPath, KeptForOldRecords, Strict
from paralib.wiring import Reads


class Bound(Strict):
    """Keep rows with ``lower <= column <= upper`` (either bound may be left out)."""

    column: ChangesResults[str] = Field(description="Score column bounded.")
    lower: ChangesResults[float | None] = Field(
        default=None,
        description="Keep rows with ``column`` ≥ this; null: no lower bound.")
    upper: ChangesResults[float | None] = Field(
        default=None,
        description="Keep rows with ``column`` ≤ this; null: no upper bound.")

    @model_validator(mode="after")
    def _some_bound(self) -> Bound:
        if self.lower is None and self.upper is None:
            raise ValueError(f"bound on '{self.column}' needs lower, upper or both")
        if self.lower is not None and self.upper is not None and self.lower > self.upper:
            raise ValueError(f"bound on '{self.column}': lower {self.lower} > upper {self.upper}")
        return self


def _check_folds(folds: list[int], n: int, what: str) -> None:
    bad = [f for f in folds if not 1 <= f <= n]
    if bad or len(set(folds)) != len(folds):
        raise ValueError(f"{what} must be distinct folds in 1..{n}, got {folds}")


class FoldSpec(Strict):
    """Rank by ``column``, split into ``n_folds`` (fold 1 = the lowest tenth), keep ``keep``."""

    column: ChangesResults[str] = Field(
        description="Score column whose ranking splits the rows into folds.")
    keep: ChangesResults[list[int]] = Field(
        min_length=1,
        description="Folds kept, from 1 (the lowest) to ``n_folds``.")
    n_folds: ChangesResults[int] = Field(
        default=10, ge=2,
        description="Number of equal folds (2018 §5.4: tenths).")

    @model_validator(mode="after")
    def _valid(self) -> FoldSpec:
        _check_folds(self.keep, self.n_folds, "folds.keep")
        return self


class NoiseSpec(Strict):
    """``clean_fraction`` of the pairs from ``clean_folds`` of ``column``, the rest from
    ``noisy_folds`` (folds as in :class:`FoldSpec`; fold 1 is the lowest)."""

    column: ChangesResults[str] = Field(
        description="Score column whose folds tell clean pairs from noisy ones.")
    clean_fraction: ChangesResults[float] = Field(
        gt=0, le=1,
        description="Share of pairs from ``clean_folds`` (Opusparcus §4.2: 0.8, 0.7, 0.6).")
    clean_folds: ChangesResults[list[int]] = Field(
        default_factory=lambda: [6, 7, 8, 9, 10], min_length=1,
        description="Folds the clean pairs come from.")
    noisy_folds: ChangesResults[list[int]] = Field(
        default_factory=lambda: [1, 2, 3, 4, 5], min_length=1,
        description="Folds the other pairs come from.")
    n_folds: ChangesResults[int] = Field(default=10, ge=2, description="Number of equal folds.")

    @model_validator(mode="after")
    def _valid(self) -> NoiseSpec:
        _check_folds(self.clean_folds, self.n_folds, "noise.clean_folds")
        _check_folds(self.noisy_folds, self.n_folds, "noise.noisy_folds")
        if set(self.clean_folds) & set(self.noisy_folds):
            raise ValueError("noise.clean_folds and noise.noisy_folds overlap")
        return self


class SelectSpec(Strict):
    """``paralib select``: from scored pairs to a training set.

    Steps, in order: drop ``exclude``-d references (held out for the LM and the classifier),
    ``bounds`` one after the other, ``hypotheses`` (``best``: the lowest-ranked surviving
    hypothesis per reference; ``random``: one at random; ``all``: the k-best list), ``folds``,
    ``noise`` (needs ``size`` or takes the most it can), a ``size`` sample, then ``labelled``
    output (``s1, s2, label`` with as many random negatives as positives).
    """

    input: ChangesResults[ExpandedPath] = Field(
        default="output/score",
        description="Scored pairs: a ``paralib score`` output folder.")
    output: KeptForOldRecords[ExpandedPath] = Field(
        default="output/select",
        description="Folder of the training set (a ``pairs`` source of ``paralib train``).")
    exclude: Annotated[ChangesResults[list[ExpandedPath]],
                       Reads(stages=("lm", "classifier"), file="heldout.parquet")] = Field(
        default_factory=list,
        description="Stages whose held-out references are dropped: ``@lm`` and "
                    "``@classifier`` read the ``heldout.parquet`` each writes, so select runs "
                    "after them (or ``heldout.parquet`` paths).")
    bounds: ChangesResults[list[Bound]] = Field(default_factory=list)
    hypotheses: ChangesResults[Literal["best", "random", "all"]] = Field(
        default="best",
        description="Hypotheses kept per reference: ``best`` (lowest-ranked left), ``random`` "
                    "(one) or ``all``.")
    folds: ChangesResults[FoldSpec | None] = None
    noise: ChangesResults[NoiseSpec | None] = None
    size: ChangesResults[int | None] = Field(
        default=None, ge=1,
        description="Sample this many pairs (2017 §5.2: 24,000); null: every pair left.")
    seed: ChangesResults[int] = Field(
        default=0,
        description="Seed of every random draw (hypotheses, noise, sample, negatives).")
    labelled: ChangesResults[bool] = Field(
        default=False,
        description="Write ``s1, s2, label`` with as many random negatives as positives "
                    "(Opusparcus §3.2).")


