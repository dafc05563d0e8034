"""Baseline sentence encoders that need no training (2018 §3.1 stand-ins)."""

from paralib.baselines.glove import GloveAverageEncoder

__all__ = ["GloveAverageEncoder"]
