"""Decontamination: find training pairs that share a side with an evaluation set (2019 §3 /
issue 'Bitext at scale').

    from paralib.decontaminate import EvalIndex
    index = EvalIndex.cached(data_root())
    reasons = index.match_pairs(src_sentences, en_sentences)  # None = keep

:mod:`~paralib.decontaminate.evalsets` reads every evaluation sentence,
:mod:`~paralib.decontaminate.normalise` defines normal forms, tokens and stable hashes, and
:mod:`~paralib.decontaminate.index` holds the hashed index and the matcher.

Names are imported on first use: :mod:`~paralib.io` reads normal forms without the index.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "EVAL_SETS": "paralib.decontaminate.evalsets",
    "EvalSource": "paralib.decontaminate.evalsets",
    "eval_files": "paralib.decontaminate.evalsets",
    "eval_sentences": "paralib.decontaminate.evalsets",
    "eval_sources": "paralib.decontaminate.evalsets",
    "missing_sets": "paralib.decontaminate.evalsets",
    "EvalIndex": "paralib.decontaminate.index",
    "default_cache_dir": "paralib.decontaminate.index",
    "fingerprint": "paralib.decontaminate.index",
    "bulk_forms": "paralib.decontaminate.normalise",
    "hash_strings": "paralib.decontaminate.normalise",
    "ngram_hashes": "paralib.decontaminate.normalise",
    "normal_form": "paralib.decontaminate.normalise",
    "tokens": "paralib.decontaminate.normalise",
    "window_hashes": "paralib.decontaminate.normalise",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
