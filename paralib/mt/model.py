"""The Marian Transformer used for back-translation (built with ``transformers``).

Back-translation (2017 §3, 2018 §3) needs an X→English NMT system; no pretrained one can be
downloaded here, so paralib trains a small Marian model. Embeddings are shared between
encoder, decoder and output layer. CTranslate2's Marian loader assumes the decoder start
token (``<pad>``) has a zero embedding, so :func:`zero_pad_row` is applied after every
optimiser step and before saving.
"""

from __future__ import annotations

import torch

from paralib.config import MTModelConfig


def build_model(cfg: MTModelConfig, vocab_size: int, pad_id: int, eos_id: int):
    """Create a randomly initialised ``MarianMTModel`` of the configured size."""
    from transformers import MarianConfig, MarianMTModel

    config = MarianConfig(
        vocab_size=vocab_size, decoder_vocab_size=vocab_size, d_model=cfg.d_model,
        encoder_layers=cfg.encoder_layers, decoder_layers=cfg.decoder_layers,
        encoder_attention_heads=cfg.attention_heads, decoder_attention_heads=cfg.attention_heads,
        encoder_ffn_dim=cfg.ffn_dim, decoder_ffn_dim=cfg.ffn_dim, dropout=cfg.dropout,
        attention_dropout=0.0, activation_dropout=0.0, activation_function="relu",
        max_position_embeddings=cfg.max_positions, pad_token_id=pad_id, eos_token_id=eos_id,
        decoder_start_token_id=pad_id, forced_eos_token_id=eos_id, scale_embedding=True,
        share_encoder_decoder_embeddings=True, tie_word_embeddings=True, num_beams=4,
        max_length=cfg.max_positions - 2, bad_words_ids=[[pad_id]])
    model = MarianMTModel(config)
    zero_pad_row(model)
    return model


@torch.no_grad()
def zero_pad_row(model) -> None:
    """Set the ``<pad>`` (decoder start) embedding to zero, as CTranslate2 assumes."""
    pad = model.config.pad_token_id
    base = model.model
    tables = (base.shared, base.encoder.embed_tokens, base.decoder.embed_tokens, model.lm_head)
    for emb in {id(e): e for e in tables}.values():
        emb.weight[pad].zero_()
