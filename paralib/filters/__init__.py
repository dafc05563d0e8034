"""Scoring and selection of candidate paraphrases (2017 §5.4-5.8, 2018 §3.2).

The built-in scorers are one module each, listed in ``SCORER_MODULES`` of
:mod:`paralib.filters.base` (add a module name there to register a new one); they are imported
on first use of a name below (``from paralib.filters import SCORERS, get_scorer``), so that
reading a config (``paralib.filters.config``) imports none of them.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = ("SCORERS", "Direction", "Scorer", "ScorerError", "get_scorer", "register")
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    base = importlib.import_module("paralib.filters.base")
    base.builtin_scorers()
    return getattr(base, name)
