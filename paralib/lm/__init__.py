"""KenLM 3-gram language models of references, for the perplexity filter (2017 §5.6)."""

from paralib.lm.train import (
    KenLMNotFoundError,
    find_kenlm_binary,
    hold_out_references,
    kenlm_tools_available,
    train_lm,
    train_lms,
)

__all__ = ["KenLMNotFoundError", "find_kenlm_binary", "hold_out_references",
           "kenlm_tools_available", "train_lm", "train_lms"]
