"""KenLM 3-gram language models of references, for the perplexity filter (2017 §5.6).

Names are imported on first use, so that reading a config does not import the trainer.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".train": "KenLMNotFoundError find_kenlm_binary hold_out_references kenlm_tools_available "
              "train_lm train_lms",
})
