"""Decontamination: find training pairs that share a side with an evaluation set (2019 §3),
which would otherwise inflate the scores measured on it.

    from paralib.decontaminate import EvalIndex
    index = EvalIndex.cached(data_root())
    reasons = index.match_pairs(src_sentences, en_sentences)  # None = keep

:mod:`~paralib.decontaminate.evalsets` reads every evaluation sentence,
:mod:`~paralib.decontaminate.normalise` defines normal forms, tokens and stable hashes, and
:mod:`~paralib.decontaminate.index` holds the hashed index and the matcher.

Names are imported on first use: :mod:`~paralib.io` reads normal forms without the index.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".evalsets": "EVAL_SETS EvalSource eval_files eval_sentences eval_sources missing_sets",
    ".index": "EvalIndex default_cache_dir fingerprint",
    ".normalise": "bulk_forms hash_strings ngram_hashes normal_form tokens window_hashes",
})
