"""The sentence-transformers peer: a ``StaticEmbedding`` model trained on exactly paralib's
training pairs, as a sentence-transformers user would train it,
to compare quality and training speed on the same data.

- Tokeniser: a Hugging Face ``tokenizers`` WordPiece vocabulary (lower-cased, BERT
  pre-tokenisation) of ``vocab`` entries fitted on the pairs' text, the tool
  sentence-transformers' ``StaticEmbedding`` expects; embedding width ``dim``, random init.
- Loss: ``MultipleNegativesRankingLoss`` (in-batch negatives, ``batch`` pairs) or
  ``MegaBatchMarginLoss`` (Wieting's margin loss with the hardest in-batch negative, as
  sentence-transformers implements it; its mini-batched form refuses ``StaticEmbedding``
  models, so each batch of ``batch`` pairs is one step), Adam at ``lr``.
- Loop: sentence-transformers' own modules and losses, stepped by a plain PyTorch loop (its
  ``SentenceTransformerTrainer`` needs the ``datasets`` package, which this environment does
  not install; the forward, loss and update are the same).

Used by ``benchmarks/train_speed.py`` (pairs/s on the same pairs and cores) and
``benchmarks/quality.py`` (its STS scores).
"""

from __future__ import annotations

import time

import numpy as np


def wordpiece(texts: list[str], vocab: int):
    """A lower-cased WordPiece tokeniser of ``vocab`` entries fitted on ``texts``."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(
        vocab_size=vocab, special_tokens=["[PAD]", "[UNK]"], show_progress=False))
    return tok


def train_static(s1: list[str], s2: list[str], loss: str = "mnrl", lr: float = 0.01,
                 epochs: int = 1, batch: int = 100, dim: int = 300, vocab: int = 20_000,
                 seed: int = 1):
    """Train a ``StaticEmbedding`` sentence-transformer on the pairs ``(s1[i], s2[i])``;
    returns the model and the pairs per second of its training loop (tokenising included:
    sentence-transformers tokenises every batch)."""
    import torch
    from sentence_transformers import SentenceTransformer, losses
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding

    torch.manual_seed(seed)
    tok = wordpiece(s1 + s2, vocab)
    model = SentenceTransformer(modules=[StaticEmbedding(tok, embedding_dim=dim)],
                                device="cpu")
    objective = (losses.MultipleNegativesRankingLoss(model) if loss == "mnrl"
                 else losses.MegaBatchMarginLoss(model, use_mini_batched_version=False))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    model.train()
    pairs, seconds = 0, 0.0
    for _ in range(epochs):
        order = rng.permutation(len(s1))
        t0 = time.perf_counter()
        for i in range(0, len(order) - 1, batch):
            idx = order[i:i + batch]
            if len(idx) < 2:
                continue
            f1 = model.preprocess([s1[j] for j in idx])
            f2 = model.preprocess([s2[j] for j in idx])
            optimizer.zero_grad(set_to_none=True)
            value = objective([f1, f2], None)
            value.backward()
            optimizer.step()
            pairs += len(idx)
        seconds += time.perf_counter() - t0
    model.eval()
    return model, pairs / max(seconds, 1e-9)
