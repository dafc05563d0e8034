"""Losses by name: ``margin`` (2017 §4.2) and ``contrastive`` (Opusparcus §3.2)."""

from paralib.losses.base import LOSSES, PairLoss
from paralib.losses.contrastive import ContrastiveLoss
from paralib.losses.margin import MarginLoss

__all__ = ["LOSSES", "ContrastiveLoss", "MarginLoss", "PairLoss"]
