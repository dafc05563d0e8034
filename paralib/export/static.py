"""Which paralib models are a static embedding table, and that table.

A model is *static* when its vector is the mean of one table's rows over the ids of one
tokeniser: a single part with the averaging encoder over SP or WORD tokens (WORD / AVG and SP
of 2018 §4 and 2019 §2). sentence-transformers' ``StaticEmbedding`` and model2vec's
``StaticModel`` compute exactly that, given the tokeniser of :mod:`paralib.export.hf_tokenizer`.
TRIGRAM (overlapping character trigrams) and Morfessor segmentation have no ``tokenizers``
form, recurrent encoders are no mean, and several parts are several tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paralib.models.config import ModelConfig

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from paralib.models.model import ParaphraseModel

STATIC_KINDS = "one part of the averaging encoder over sp or word tokens (name sp or word)"


def describe(config: ModelConfig) -> str:
    """The model in words: ``avg(sp, vocabulary 20,000, dim 300)``, parts joined by ``+``."""
    parts = " + ".join(f"{p.encoder}({p.tokens}, vocabulary {p.vocab_size:,}, dim {p.dim})"
                       for p in config.parts)
    return parts if len(config.parts) == 1 else f"{parts} ({config.combine})"


def not_static(config: ModelConfig) -> str | None:
    """Why the model is no static embedding table, or ``None`` when it is one."""
    if len(config.parts) > 1:
        return f"it has {len(config.parts)} parts (several tables, {config.combine}-ed)"
    part = config.parts[0]
    if part.encoder != "avg":
        return f"its encoder {part.encoder!r} is recurrent, not a mean of token vectors"
    if part.tokens not in ("sp", "word"):
        return (f"its {part.tokens!r} tokens have no Hugging Face tokenizers form "
                "(only sp and word tokens do)")
    return None


# what each target does with a static table, and where a model it cannot express can go
STATIC_TARGETS = {
    "model2vec": ("model2vec", "It averages one table of token vectors",
                  "sentence-transformers"),
    "onnx": ("--to onnx", "The graph averages one table's rows over the ids of tokenizer.json",
             "sentence-transformers or paralib"),
}


def check_static(config: ModelConfig, where: str, to: str) -> None:
    """Raise :class:`~paralib.export.errors.ExportError` when the static-table target
    ``to`` (:data:`STATIC_TARGETS`) cannot express the model, before anything is written."""
    from paralib.export.errors import ExportError

    reason = not_static(config)
    if reason is not None:
        what, how, instead = STATIC_TARGETS[to]
        raise ExportError(f"{where}: {what} cannot express {describe(config)}: {reason}. "
                          f"{how}, so it takes {STATIC_KINDS}; export this model with --to "
                          f"{instead} instead")


@dataclass
class StaticTable:
    """The ``tokenizers`` tokeniser and the float32 table whose row ``i`` is id ``i``'s
    vector."""

    tokenizer: Tokenizer
    vectors: np.ndarray
    max_tokens: int


def static_table(model: ParaphraseModel) -> StaticTable:
    """The tokeniser and table of a static model (check :func:`not_static` first)."""
    from paralib.export.hf_tokenizer import convert

    reason = not_static(model.config)
    if reason is not None:
        raise ValueError(f"{describe(model.config)} is no static table: {reason}")
    part = model.config.parts[0]
    converted = convert(model.tokenizers[0], part.max_tokens)
    weight = model.parts[0].embedding.weight.detach().float().cpu().numpy()
    return StaticTable(converted.tokenizer, np.ascontiguousarray(weight[converted.rows]),
                       part.max_tokens)
