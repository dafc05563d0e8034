"""A paraphrastic sentence model: parts (tokeniser + encoder) combined by sum or concatenation
(2018 §5.6), with the tokenisation and padding that turn text into encoder input."""

from __future__ import annotations

import torch
from torch import nn

from paralib.models.bags import Bags
from paralib.models.config import ModelConfig
from paralib.models.encoders import ENCODERS, Encoder
from paralib.models.init import init_embedding
from paralib.models.tokenizers import Tokenizer, build_tokenizer


def fit_tokenizers(config: ModelConfig, texts: list[str]) -> list[Tokenizer]:
    """One fitted tokeniser per part (parts with the same settings share one)."""
    done: dict[tuple, Tokenizer] = {}
    out = []
    for part in config.parts:
        key = (part.tokens, part.vocab_size, part.sp_model_type)
        if key not in done:
            params = {"model_type": part.sp_model_type} if part.tokens == "sp" else {}
            done[key] = build_tokenizer(part.tokens, part.vocab_size, **params).fit(texts)
        out.append(done[key])
    return out


def token_streams(config: ModelConfig, tokenizers: list[Tokenizer]
                  ) -> tuple[list[int], list[tuple[Tokenizer, int]]]:
    """The distinct ``(tokeniser, max_tokens)`` streams of the parts, and each part's stream
    index: parts with the same tokeniser and cut read the same ids (tokenised once)."""
    keys: dict[tuple[int, int], int] = {}
    streams: list[tuple[Tokenizer, int]] = []
    slots = []
    for tok, part in zip(tokenizers, config.parts, strict=True):
        key = (id(tok), part.max_tokens)
        if key not in keys:
            keys[key] = len(streams)
            streams.append((tok, part.max_tokens))
        slots.append(keys[key])
    return slots, streams


class ParaphraseModel(nn.Module):
    """``g(s)``: every part encodes the sentence; the vectors are summed or concatenated."""

    def __init__(self, config: ModelConfig, tokenizers: list[Tokenizer]):
        super().__init__()
        if len(tokenizers) != len(config.parts):
            raise ValueError(f"{len(config.parts)} parts but {len(tokenizers)} tokenizers")
        self.config = config
        self.tokenizers = tokenizers
        self.parts = nn.ModuleList(
            ENCODERS[p.encoder](tok.size, p.dim, **_extra(p))
            for p, tok in zip(config.parts, tokenizers, strict=True))

    @property
    def out_dim(self) -> int:
        dims = [enc.out_dim for enc in self.parts]
        return dims[0] if self.config.combine == "sum" else sum(dims)

    def initialise(self) -> list[dict]:
        """Initial embeddings of every part (random ranges or pretrained vectors)."""
        return [init_embedding(enc.embedding.weight, p, tok.pieces())
                for enc, p, tok in zip(self.parts, self.config.parts, self.tokenizers,
                                       strict=True)]

    def token_ids(self, texts: list[str]) -> list[list[list[int]]]:
        """Ids of ``texts`` under each part's tokeniser (shared tokenisers run once)."""
        cache: dict[int, list[list[int]]] = {}
        return [cache.setdefault(id(tok), tok.encode(texts)) for tok in self.tokenizers]

    def batch(self, ids: list[list[list[int]]], device: torch.device | str = "cpu"
              ) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Padded tensors per part: right-padded ``(B, T)`` ids, cut to the part's
        ``max_tokens``, and ``(B,)`` lengths (:meth:`Bags.padded`)."""
        return [Bags.from_lists(seqs, part.max_tokens).padded(device)
                for part, seqs in zip(self.config.parts, ids, strict=True)]

    def slots(self) -> list[int]:
        """For every part, the index of its token stream (:func:`token_streams`)."""
        return token_streams(self.config, self.tokenizers)[0]

    def bags(self, texts: list[str]) -> list[Bags]:
        """Token-id bags of ``texts``, one per token stream (:func:`token_streams`)."""
        return [Bags.from_lists(tok.encode(texts), n)
                for tok, n in token_streams(self.config, self.tokenizers)[1]]

    def forward(self, batches: list[tuple[torch.Tensor, torch.Tensor]] | list[Bags]
                ) -> torch.Tensor:
        """Sentence vectors from padded ``(ids, lengths)`` per part, or from the bags of
        every token stream (:meth:`bags`; training's pre-tokenised batches)."""
        if batches and isinstance(batches[0], Bags):
            vecs = [enc.forward_bags(batches[slot])
                    for enc, slot in zip(self.parts, self.slots(), strict=True)]
        else:
            vecs = [enc(ids, lengths)
                    for enc, (ids, lengths) in zip(self.parts, batches, strict=True)]
        if len(vecs) == 1:
            return vecs[0]
        return torch.stack(vecs).sum(0) if self.config.combine == "sum" else torch.cat(vecs, -1)

    def embed(self, texts: list[str]) -> torch.Tensor:
        """Vectors of ``texts`` (gradients flow when the model trains)."""
        device = next(self.parameters()).device
        return self(self.batch(self.token_ids(texts), device))

    def word_embeddings(self) -> list[nn.Parameter]:
        """The embedding tables W_w of every part (2017 §4.2)."""
        return [enc.embedding.weight for enc in self.parts]

    def compositional_parameters(self) -> list[nn.Parameter]:
        """W_c: all parameters other than the embedding tables (2017 §4.2)."""
        return [p for enc in self.parts for p in Encoder.compositional_parameters(enc)]


def _extra(part) -> dict:
    if part.encoder == "avg":
        return {"dropout": part.dropout, "dropout_on": part.dropout_on}
    return {"dropout": part.dropout, "hidden": part.hidden}
