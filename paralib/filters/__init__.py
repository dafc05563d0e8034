"""Scoring and selection of candidate paraphrases (2017 §5.4-5.8, 2018 §3.2).

The built-in scorers are one module each, listed in ``SCORER_MODULES`` of
:mod:`paralib.filters.base` (add a module name there to register a new one); they are imported
on first use of a name below (``from paralib.filters import SCORERS, get_scorer``), so that
reading a config (``paralib.filters.config``) imports none of them.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__, {".base": "SCORERS Direction Scorer ScorerError get_scorer register"},
    prepare=lambda base: base.builtin_scorers())
