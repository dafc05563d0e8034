"""Scoring and selection of candidate paraphrases (2017 §5.4-5.8, 2018 §3.2).

Importing this package registers the built-in scorers: one module per scorer, listed in
``SCORER_MODULES`` (add a module name there to register a new one).
"""

import importlib

from paralib.filters.base import SCORERS, Direction, Scorer, ScorerError, get_scorer, register

SCORER_MODULES = (
    "length",
    "cost",
    "overlap",
    "bleu",
    "duplicates",
    "lm",
    "paraphrase",
    "classifier",
)

for _module in SCORER_MODULES:
    importlib.import_module(f"paralib.filters.{_module}")

__all__ = ["SCORERS", "Direction", "Scorer", "ScorerError", "get_scorer", "register"]
