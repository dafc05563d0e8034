"""KenLM 3-gram language models of references, for the perplexity filter (2017 §5.6).

Names are imported on first use, so that reading a config does not import the trainer.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "KenLMNotFoundError": "paralib.lm.train",
    "find_kenlm_binary": "paralib.lm.train",
    "hold_out_references": "paralib.lm.train",
    "kenlm_tools_available": "paralib.lm.train",
    "train_lm": "paralib.lm.train",
    "train_lms": "paralib.lm.train",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
