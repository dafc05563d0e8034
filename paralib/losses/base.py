"""Training objectives, one per file, registered by name (sentence-transformers' layout)."""

from __future__ import annotations

from typing import ClassVar

from torch import nn

LOSSES: dict[str, type[PairLoss]] = {}


def register(cls: type[PairLoss]) -> type[PairLoss]:
    """Class decorator: make a loss available under ``cls.name``."""
    LOSSES[cls.name] = cls
    return cls


class PairLoss(nn.Module):
    """Base: ``needs_negatives`` says whether the trainer mines negatives for the loss and
    ``needs_labels`` whether the pairs carry a 0/1 ``label``."""

    name: ClassVar[str] = ""
    needs_negatives: ClassVar[bool] = False
    needs_labels: ClassVar[bool] = False
