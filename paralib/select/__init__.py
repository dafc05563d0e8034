"""Building a training set from scored candidate pairs (2017 §5.2, 2018 §5.4, Opusparcus
§3.2 and §4.2).

``select(df, spec) -> (selected, report)`` applies a :class:`SelectSpec`;
``write_selection`` writes the pairs and, next to them, the report (bounds, counts kept per
step, seed); ``run_select(spec)`` does both from ``spec.input`` to ``spec.output``.

Names are imported on first use, so that reading a config does not import pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Bound": "paralib.select.config",
    "FoldSpec": "paralib.select.config",
    "NoiseSpec": "paralib.select.config",
    "SelectSpec": "paralib.select.config",
    "SelectError": "paralib.select.steps",
    "fold_numbers": "paralib.select.steps",
    "read_pairs": "paralib.select.files",
    "write_selection": "paralib.select.files",
    "exclude_heldout": "paralib.select.run",
    "run_select": "paralib.select.run",
    "select": "paralib.select.run",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
