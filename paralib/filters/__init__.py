"""Scoring and selection of candidate paraphrases (2017 §5.4-5.8, 2018 §3.2).

Importing this package registers the built-in scorers.
"""

from paralib.filters.base import SCORERS, Direction, Scorer, ScorerError, get_scorer, register

__all__ = ["SCORERS", "Direction", "Scorer", "ScorerError", "get_scorer", "register"]
