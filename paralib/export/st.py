"""The sentence-transformers folder of a paralib model (``paralib export --to
sentence-transformers``).

A static model (:mod:`paralib.export.static`: one averaging part over SP or WORD tokens)
becomes a ``StaticEmbedding`` (the table and its ``tokenizer.json``), which sentence-transformers
loads with nothing from paralib. Every other model becomes a :class:`ParalibModule` around the
paralib model folder, which needs paralib installed and ``trust_remote_code=True``. No
``Normalize`` module follows: ``encode`` gives paralib's vectors as they are (cosine
similarity, ``similarity_fn_name``), and ``normalize_embeddings=True`` scales them.
"""

from __future__ import annotations

from pathlib import Path

import torch

from paralib.export.static import not_static, static_table
from paralib.models.pretrained import SentenceEncoder

STATIC, CUSTOM = "StaticEmbedding", "ParalibModule"


def write_sentence_transformers(encoder: SentenceEncoder, folder: Path) -> str:
    """Save ``encoder`` as a sentence-transformers model into ``folder``; returns the module
    kind (:data:`STATIC` or :data:`CUSTOM`)."""
    from sentence_transformers import SentenceTransformer

    if not_static(encoder.model.config) is None:
        from sentence_transformers.sentence_transformer.modules import StaticEmbedding

        table = static_table(encoder.model)
        module = StaticEmbedding(table.tokenizer,
                                 embedding_weights=torch.from_numpy(table.vectors))
        kind = STATIC
    else:
        from paralib.export.st_module import ParalibModule

        module, kind = ParalibModule(encoder), CUSTOM
    model = SentenceTransformer(modules=[module], device="cpu", similarity_fn_name="cosine")
    model.save(str(folder), create_model_card=False)
    return kind
