"""Scorers: one class per score, declared once, registered by name (OpusFilter's model).

A scorer computes one or more columns over a whole batch of candidate pairs (a pandas
DataFrame with at least ``ref`` and ``trans``), vectorised; :func:`within_bounds` turns a
column into a keep/drop mask given bounds, and ``direction`` says which side is clean, so that
tooling can propose thresholds from score distributions (2017 §5.5-5.7, 2018 §3.2).

Rows a scorer cannot score (an empty translation, a NaN cost) are named by
``invalid(batch)`` with a reason, so that the scoring stage can count and write them to
``rejects/`` instead of producing garbage numbers.
"""

from __future__ import annotations

import functools
import importlib
from enum import Enum
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from paralib.errors import ConfigurationError
from paralib.filters.tokenize import BatchCache


class Direction(str, Enum):
    """Which values of a score mean a clean pair."""

    CLEAN_LOW = "low"  # e.g. translation cost, perplexity
    CLEAN_HIGH = "high"  # e.g. P(reference), paraphrase score
    CLEAN_BETWEEN = "between"  # e.g. length, overlap (too similar is no paraphrase)


class ScorerError(ConfigurationError, ValueError):
    """A scorer was misconfigured or asked for a column that is not there."""


class Scorer:
    """Base class: subclasses set ``name``, ``columns``, ``requires`` and ``direction``."""

    name: ClassVar[str] = ""
    columns: ClassVar[tuple[str, ...]] = ()
    requires: ClassVar[tuple[str, ...]] = ("ref", "trans")
    direction: ClassVar[Direction] = Direction.CLEAN_BETWEEN
    needs_actor: ClassVar[bool] = False  # loads a model: run in an actor pool

    def __init__(self, **params: Any):
        if params:
            raise ScorerError(f"scorer '{self.name}' takes no parameters, got {sorted(params)}")

    @functools.cached_property
    def tokens(self) -> BatchCache:
        """The tokens of the last batch (:func:`~paralib.filters.tokenize.pair_tokens`): the
        scorer's own cache, or the one a scoring actor shares between all its scorers (set
        by assigning it)."""
        return BatchCache()

    def setup(self) -> None:
        """Load models or tables; called once per worker before the first batch."""

    def check(self, batch: pd.DataFrame) -> None:
        """Raise :class:`ScorerError` when a required column is missing."""
        missing = [c for c in self.requires if c not in batch.columns]
        if missing:
            raise ScorerError(
                f"scorer '{self.name}' needs column(s) {', '.join(missing)}; the input has "
                f"{', '.join(map(str, batch.columns))}"
            )

    def invalid(self, batch: pd.DataFrame) -> pd.Series:
        """Per row, why it cannot be scored ('' when it can). Default: empty texts."""
        reasons = pd.Series("", index=batch.index, dtype=object)
        for col in self.requires:
            if batch[col].dtype == object or pd.api.types.is_string_dtype(batch[col]):
                empty = batch[col].fillna("").astype(str).str.strip() == ""
                reasons[empty & (reasons == "")] = f"empty {col}"
        return reasons

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """Return a DataFrame with this scorer's ``columns`` for every row of ``batch``."""
        raise NotImplementedError(f"scorer '{self.name}' does not implement score()")


def within_bounds(values: pd.Series | np.ndarray, lower: float | None = None,
                  upper: float | None = None) -> np.ndarray:
    """Keep-mask for ``lower <= value <= upper`` (either bound optional; NaN never kept)."""
    v = np.asarray(values, dtype=float)
    keep = ~np.isnan(v)
    if lower is not None:
        keep &= v >= lower
    if upper is not None:
        keep &= v <= upper
    return keep


SCORERS: dict[str, type[Scorer]] = {}


def register(cls: type[Scorer]) -> type[Scorer]:
    """Class decorator: make a scorer available by its ``name``."""
    if not cls.name or not cls.columns:
        raise TypeError(f"{cls.__name__} must set name and columns")
    if cls.name in SCORERS and SCORERS[cls.name] is not cls:
        raise TypeError(f"scorer name '{cls.name}' registered twice")
    SCORERS[cls.name] = cls
    return cls


# The built-in scorers: one module of paralib.filters per scorer (add a module name here to
# register a new one). They are imported by builtin_scorers(), on first use.
SCORER_MODULES = ("length", "cost", "overlap", "bleu", "duplicates", "lm", "paraphrase",
                  "classifier")


def builtin_scorers() -> dict[str, type[Scorer]]:
    """Every registered scorer by name, the built-in ones imported (and so registered)."""
    for module in SCORER_MODULES:
        importlib.import_module(f"paralib.filters.{module}")
    return SCORERS


def get_scorer(name: str, **params: Any) -> Scorer:
    """Instantiate the registered scorer ``name`` with ``params``."""
    builtin_scorers()

    if name not in SCORERS:
        raise ScorerError(f"unknown scorer '{name}'; available: {', '.join(sorted(SCORERS))}")
    return SCORERS[name](**params)
