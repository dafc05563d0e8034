"""``paralib encode`` at scale: monolingual text (local or ``s3://``) → sentence vectors in
Parquet, on a Ray Data actor pool, resumable per shard (issue 29, item 3).

``encode(cfg)`` (:mod:`paralib.encode.pipeline`) runs the stage; :mod:`paralib.encode.vectors`
reads its output back. Names are imported on first use, so that reading a config (which
imports :mod:`paralib.encode.config`) does not import Ray or torch.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {"encode": "pipeline", "EncodeConfig": "config", "TextInput": "config",
            "read_vectors": "vectors", "Vectors": "vectors"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"paralib.encode.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'paralib.encode' has no attribute {name!r}")
