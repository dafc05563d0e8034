"""paralib: paraphrastic sentence embeddings from bitext, as distributed batch jobs on Ray.

Stages, one subpackage each: ``paralib.io`` (bitext in, shards out), ``paralib.mt``
(translation models), ``paralib.translate`` (back-translation on Ray Data), ``paralib.filters``
(scoring), ``paralib.select``, ``paralib.models`` (encoders), ``paralib.train`` (Ray Train),
``paralib.evaluate``.

``paralib.load(path)`` loads a trained encoder (torch on CPU, no Ray).
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def load(path: Any):
    """Load a trained model folder; see :func:`paralib.models.load`."""
    from paralib.models import load as _load

    return _load(path)
