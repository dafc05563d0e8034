"""Paraphrastic sentence encoders (2017 §4, 2018 §4, 2019 §2, Opusparcus §3): tokenisers,
encoders registered by name, their combinations, the model folder and ``load``.

Names are imported on first use, so that reading a config does not import torch.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ModelConfig": "paralib.models.config", "PartConfig": "paralib.models.config",
    "ParaphraseModel": "paralib.models.model", "fit_tokenizers": "paralib.models.model",
    "ModelLoadError": "paralib.models.errors", "SentenceEncoder": "paralib.models.pretrained",
    "load": "paralib.models.pretrained", "save_model": "paralib.models.pretrained",
    "random_encoder": "paralib.models.random",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'paralib.models' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
