"""What ``paralib export --dims N`` and ``--quantize int8`` do to a model before it is written.

``--dims N`` keeps the first ``N`` dimensions of every sentence vector. For an averaging model
that is the first ``N`` columns of its tables (the mean of sliced rows is the sliced mean): of
every table when the parts are summed, of the first tables up to ``N`` in all when they are
concatenated (a part left with no column is dropped). ``--quantize int8`` stores every table
as int8 rows with one scale per row (:mod:`paralib.models.quantized`). Both need a model that
is embedding tables only: a recurrent encoder's vector is no slice of its table, and its
recurrent weights have no rows to scale.
"""

from __future__ import annotations

import copy

import torch

from paralib.export.errors import ExportError
from paralib.export.static import describe
from paralib.models.model import ParaphraseModel
from paralib.models.pretrained import SentenceEncoder
from paralib.models.quantized import dequantized, quantize_rows

TABLES_ONLY = "a model of embedding tables only (every part the averaging encoder avg)"


def _not_tables(model: ParaphraseModel) -> str | None:
    recurrent = [p.encoder for p in model.config.parts if p.encoder != "avg"]
    return f"its {recurrent[0]!r} encoder is recurrent" if recurrent else None


def check_options(encoder: SentenceEncoder, where: str, to: str, dims: int | None,
                  quantize: str | None) -> None:
    """Raise :class:`ExportError` when the model (``where``) cannot take ``--dims`` or
    ``--quantize`` for target ``to``: one message naming the option, the model and what it
    has."""
    what = describe(encoder.model.config)
    if dims is not None:
        if not 1 <= dims <= encoder.dim:
            raise ExportError(f"--dims {dims}: {where} ({what}) has {encoder.dim} dimensions; "
                              f"expected --dims from 1 to {encoder.dim}")
        reason = _not_tables(encoder.model)
        if reason and dims < encoder.dim:
            raise ExportError(f"--dims {dims}: {where} is {what}, and {reason}: its vector "
                              f"is no slice of a table; expected {TABLES_ONLY}")
    if quantize is not None:
        reason = _not_tables(encoder.model)
        if reason:
            raise ExportError(f"--quantize {quantize}: {where} is {what}, and {reason}: its "
                              f"recurrent weights are no table of rows to scale; expected "
                              f"{TABLES_ONLY}")
        if to == "sentence-transformers":
            raise ExportError(f"--quantize {quantize} --to sentence-transformers: {where} "
                              f"({what}) would be written as a StaticEmbedding, which stores "
                              "float32 tables only; expected --to onnx, model2vec or paralib")


def truncate(encoder: SentenceEncoder, dims: int) -> SentenceEncoder:
    """A copy of the averaging ``encoder`` whose vectors are the first ``dims`` dimensions of
    its own."""
    model = encoder.model
    if dims == encoder.dim:
        return encoder
    concat = model.config.combine == "concat" and len(model.config.parts) > 1
    left, keep = dims, []
    for i, part in enumerate(model.config.parts):
        width = min(left, part.dim) if concat else dims
        if width > 0:
            keep.append((i, width))
        left -= width
    parts = [model.config.parts[i].model_copy(update={"dim": w}) for i, w in keep]
    config = model.config.model_copy(update={"parts": parts})
    new = ParaphraseModel(config, [model.tokenizers[i] for i, _ in keep])
    with torch.no_grad():
        for enc, (i, w) in zip(new.parts, keep, strict=True):
            enc.embedding.weight.copy_(model.parts[i].embedding.weight[:, :w])
    return SentenceEncoder(new.eval(), encoder.languages, encoder.info, encoder.card)


def through_int8(encoder: SentenceEncoder) -> SentenceEncoder:
    """A copy of the averaging ``encoder`` whose tables went through int8 and back: the
    vectors every ``--quantize int8`` export gives."""
    model = copy.deepcopy(encoder.model)
    with torch.no_grad():
        for table in model.word_embeddings():
            table.copy_(dequantized(*quantize_rows(table)))
    return SentenceEncoder(model.eval(), encoder.languages, encoder.info, encoder.card)
