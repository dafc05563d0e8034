"""Encoders by name: ``avg``, ``lstm``, ``blstm``, ``gran``, ``gran-gru``."""

from paralib.models.encoders import average, gran, recurrent  # noqa: F401  (register)
from paralib.models.encoders.base import ENCODERS, Encoder, EncoderError, masked_mean

__all__ = ["ENCODERS", "Encoder", "EncoderError", "masked_mean"]
