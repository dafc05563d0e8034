"""The model2vec folder of a paralib model (``paralib export --to model2vec``).

model2vec's ``StaticModel`` averages one table's rows over a ``tokenizers`` tokeniser's ids,
so it expresses the static models of :mod:`paralib.export.static` (one averaging part over
SP or WORD tokens) and nothing else. Its ``encode`` drops the tokeniser's unknown token (the
tokeniser of :mod:`paralib.export.hf_tokenizer` never emits it) and, before tokenising, cuts
every text at ``max_length`` × the median token length in characters; ``max_length`` is the
part's ``max_tokens``, so texts longer than that may lose a few of their first ``max_tokens``
tokens.
"""

from __future__ import annotations

from pathlib import Path

from paralib.export.static import check_static, static_table
from paralib.models.pretrained import SentenceEncoder


def write_model2vec(encoder: SentenceEncoder, folder: Path, where: str,
                    int8: bool = False) -> str:
    """Save ``encoder`` as a model2vec ``StaticModel`` into ``folder`` (its table as int8
    rows, with each row's scale as model2vec's per-token ``weights``, when ``int8``); returns
    the model card's note on where model2vec cuts long texts."""
    import torch
    from model2vec import StaticModel

    from paralib.models.quantized import quantize_rows

    check_static(encoder.model.config, where, "model2vec")
    table = static_table(encoder.model)
    config = {"model_type": "model2vec", "architectures": ["StaticModel"],
              "hidden_dim": int(table.vectors.shape[1]), "pooling": "mean"}
    vectors, weights = table.vectors, None
    if int8:
        q, scale = quantize_rows(torch.from_numpy(table.vectors))
        vectors, weights = q.numpy(), scale.numpy()
    model = StaticModel(vectors, table.tokenizer, config=config, normalize=False,
                        language=list(encoder.languages), weights=weights,
                        max_length=table.max_tokens)
    model.save_pretrained(folder)
    cut = table.max_tokens * model.median_token_length
    return (f"model2vec cuts every text at `max_length` x the median token length = "
            f"{table.max_tokens} x {model.median_token_length} = {cut:,} characters before "
            f"tokenising, then at {table.max_tokens} tokens, as paralib does; a text longer "
            f"than {cut:,} characters may lose a few of its first {table.max_tokens} tokens.")
