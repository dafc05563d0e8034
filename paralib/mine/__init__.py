"""``paralib mine``: translation pairs between two monolingual corpora by margin-scored
nearest neighbours (Artetxe & Schwenk 2019; 2019 §3.4, the BUCC task).

:mod:`paralib.mine.margin` is the core (k-NN, ratio margin, max-score selection) that the
BUCC evaluation uses too; :mod:`paralib.mine.index` picks the faiss index (exact, IVF or
HNSW); :mod:`paralib.mine.stage` runs ``paralib mine``. Names are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {"mine": "margin", "mine_pairs": "margin", "knn": "margin", "max_score": "margin",
            "IndexSpec": "index", "build_index": "index", "MineConfig": "config",
            "run_mine": "stage"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"paralib.mine.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'paralib.mine' has no attribute {name!r}")
