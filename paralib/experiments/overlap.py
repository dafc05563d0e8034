"""SP overlap of a language with English (2019 §4.2, note 10): "the percentage of SPs in the
English corpus that also appear in the non-English corpus".

As in 2019 §4.2 ("we segmented the languages separately"), each side gets its own
sentencepiece model, trained on that side of the bitext; the overlap is the share of the
distinct pieces of the segmented English text that also occur in the segmented text of the
other language (types, not tokens). Both sides are the same line-aligned sentences, so only
the language differs, not the content.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paralib.config import Config

BOUNDARY = "\u2581"


def used_pieces(sentences: list[str], vocab_size: int) -> set[str]:
    """The distinct pieces of ``sentences`` segmented by a sentencepiece model (unigram,
    lower-cased, as the SP encoder's) trained on those sentences; without ``<pad>``,
    ``<unk>`` and the bare word-boundary piece ``▁``, which every language shares."""
    from paralib.models.tokenizers.sp import SentencePieceTokenizer

    tok = SentencePieceTokenizer(vocab_size).fit(sentences)
    pieces = tok.pieces()
    return {pieces[i] for ids in tok.encode(sentences) for i in ids
            if i > 1 and pieces[i] != BOUNDARY}


def sp_overlap(english: list[str], other: list[str], vocab_size: int = 8000) -> float:
    """Share of the English text's distinct pieces that occur in the other text (0-1)."""
    en, xx = used_pieces(english, vocab_size), used_pieces(other, vocab_size)
    if not en:
        raise ValueError("SP overlap: the English text has no pieces")
    return len(en & xx) / len(en)


def bitext_sp_overlap(cfg: Config, sentences: int = 5000, vocab_size: int = 8000,
                      seed: int = 1) -> float:
    """The SP overlap of a run's bitext (``cfg.bitext.inputs``, read as the ``bitext``
    training source reads it): ``sentences`` line-aligned pairs drawn with ``seed``."""
    from paralib.io.bitext import read_all

    rows, _ = read_all(cfg.bitext.all_inputs(), cfg.bitext.max_chars, cfg.s3.options())
    rows = [r for r in rows if (r.get("ref") or "").strip() and (r.get("src") or "").strip()]
    if not rows:
        raise ValueError("SP overlap: the run's bitext inputs gave no pairs")
    pick = np.random.default_rng(seed).permutation(len(rows))[:sentences]
    return sp_overlap([rows[i]["ref"] for i in pick], [rows[i]["src"] for i in pick],
                      vocab_size)


def measure(name: str, options: dict[str, Any], cfg: Config) -> float:
    """Property ``name`` of a run (:data:`paralib.experiments.spec.PROPERTIES`)."""
    if name == "sp_overlap":
        return bitext_sp_overlap(cfg, **options)
    raise ValueError(f"unknown run property '{name}'")
