"""Export paralib models for sentence-transformers and model2vec (issue 29).

``export(model_path, out, to)`` writes a paralib model folder (:func:`paralib.load`) as a
folder that ``SentenceTransformer(out)`` or ``model2vec.StaticModel.from_pretrained(out)``
loads, with the same vectors and a Hugging Face model card. ``paralib export`` is the command.

Names are imported on first use, so that the command line starts without torch.
"""

from __future__ import annotations

import importlib
from typing import Any

from paralib.export.errors import ExportError

_EXPORTS = {"export": "paralib.export.run", "Exported": "paralib.export.run",
            "TARGETS": "paralib.export.run", "ParalibModule": "paralib.export.st_module"}
__all__ = ["ExportError", "Exported", "ParalibModule", "TARGETS", "export"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'paralib.export' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
