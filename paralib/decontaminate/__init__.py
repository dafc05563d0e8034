"""Decontamination: find training pairs that share a side with an evaluation set (2019 §3 /
issue 'Bitext at scale').

    from paralib.decontaminate import EvalIndex
    index = EvalIndex.cached(data_root())
    reasons = index.match_pairs(src_sentences, en_sentences)  # None = keep

:mod:`~paralib.decontaminate.evalsets` reads every evaluation sentence,
:mod:`~paralib.decontaminate.normalise` defines normal forms, tokens and stable hashes, and
:mod:`~paralib.decontaminate.index` holds the hashed index and the matcher.
"""

from paralib.decontaminate.evalsets import (
    EVAL_SETS,
    EvalSource,
    eval_files,
    eval_sentences,
    eval_sources,
    missing_sets,
)
from paralib.decontaminate.index import EvalIndex, default_cache_dir, fingerprint
from paralib.decontaminate.normalise import (
    bulk_forms,
    hash_strings,
    ngram_hashes,
    normal_form,
    tokens,
    window_hashes,
)

__all__ = [
    "EVAL_SETS",
    "EvalIndex",
    "EvalSource",
    "bulk_forms",
    "default_cache_dir",
    "eval_files",
    "eval_sentences",
    "eval_sources",
    "fingerprint",
    "hash_strings",
    "missing_sets",
    "ngram_hashes",
    "normal_form",
    "tokens",
    "window_hashes",
]
