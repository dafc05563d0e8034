"""paralib's one configuration schema: YAML in, validated objects out, clear errors.

Every subcommand reads a YAML file into :class:`Config` and applies ``--set a.b=value``
overrides through :mod:`paralib.overrides` (the value is parsed as YAML, so
``--set backtranslate.beam_size=8`` is an int; ``--set train.model.parts.0.dim=64`` indexes a
list of the file).
Unknown keys, wrong types and missing input files fail before any work starts with a message
that names the key and the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from paralib.analysis.config import AnalyzeConfig
from paralib.classifier.config import ClassifierConfig
from paralib.encode.config import EncodeConfig
from paralib.errors import ConfigurationError
from paralib.filters.config import ScoreConfig
from paralib.io.config import BitextConfig, CorpusRef, InputConfig, unique_corpora
from paralib.io.fs import S3Options
from paralib.lm.config import LMConfig
from paralib.mine.config import MineConfig
from paralib.overrides import OverrideError, parse, set_path
from paralib.schema import (
    ExpandedPath,
    Keyed,
    KeyedIfSet,
    Strict,
    Unkeyed,
    format_errors,
    read_yaml,
)
from paralib.select.config import SelectSpec
from paralib.train.config import TrainConfig


class ConfigError(ConfigurationError, ValueError):
    """A configuration file or override is invalid."""


class RayConfig(Strict):
    """How to reach Ray: ``address: null`` starts an embedded local instance (``ray.init()``)."""

    address: Keyed[str | None] = None
    num_cpus: Keyed[int | None] = Field(default=None, ge=1)
    include_dashboard: Keyed[bool | None] = None
    # a stage that makes no progress (no shard part written) for this long fails with a
    # message instead of waiting forever; null: wait forever
    stall_timeout_s: Unkeyed[float | None] = Field(default=1800.0, gt=0)
    # the cluster launcher YAML of a joined, autoscaling cluster (e.g. cluster/aws.yaml): its
    # available_node_types are what the autoscaler can add, so a request that fits none of
    # them fails at once instead of waiting (without it, such a request only warns)
    node_types: Unkeyed[ExpandedPath | None] = None


class S3Config(Strict):
    """S3 access; ``endpoint_url`` selects an S3-compatible store (MinIO, moto)."""

    endpoint_url: Keyed[str | None] = Field(default=None, pattern=r"^https?://")
    region: Keyed[str] = "us-east-1"
    access_key: Keyed[str | None] = None
    secret_key: Keyed[str | None] = None
    # tries of every S3 request, with exponential backoff between them (botocore's
    # "standard" retry mode and pyarrow's AWS standard strategy): rides out short outages
    max_attempts: Unkeyed[int] = Field(default=10, ge=1)

    def options(self) -> S3Options:
        """The picklable connection options used by readers and writers."""
        return S3Options(self.endpoint_url, self.region, self.access_key, self.secret_key,
                         self.max_attempts)


class DecontaminateConfig(Strict):
    """``paralib decontaminate`` (issue "Bitext at scale"): drop every pair one of whose sides
    is in an evaluation set, matched on the normal form (NFKC, case-folded, punctuation and
    whitespace removed) or, for sentences of at least ``min_tokens`` tokens, on a shared
    ``ngram``-token window; group the pairs; drop exact duplicates. Training runs the same
    matching on its sources unless ``train.decontaminate`` is false."""

    output: ExpandedPath = "output/decontaminate"
    ngram: int = Field(default=10, ge=2)
    min_tokens: int = Field(default=10, ge=1)
    dedupe: bool = True
    overwrite: bool = False
    actors: int = Field(default=2, ge=1)  # the matching actor pool grows up to this many
    num_cpus_per_actor: float = Field(default=0.5, gt=0)


class BacktranslateConfig(Strict):
    """Back-translation of the non-English side into English (2017 §3, 2018 §3).

    ``num_hypotheses`` > 1 keeps the k-best list (up to 50, 2017 §3); ``cost`` is the
    negative log-likelihood per token of each hypothesis (2017 §5.6).
    """

    model: Keyed[ExpandedPath] = "{models}/de-en"
    # one model per source language (``{de: "{models}/de-en", fr: ...}``), for bitext of
    # several languages in one run; when set, ``model`` is not used
    models: KeyedIfSet[dict[str, ExpandedPath]] = Field(default_factory=dict)
    output: Keyed[ExpandedPath] = "output/backtranslate"
    beam_size: Keyed[int] = Field(default=4, ge=1, le=64)
    num_hypotheses: Keyed[int] = Field(default=1, ge=1, le=50)
    length_penalty: Keyed[float] = 1.0
    max_input_length: Keyed[int] = Field(default=128, ge=1)
    max_decoding_length: Keyed[int] = Field(default=128, ge=1)
    batch_size: Keyed[int] = Field(default=1024, ge=1)
    batch_type: Keyed[Literal["examples", "tokens"]] = "tokens"
    rows_per_batch: Keyed[int | None] = Field(default=None, ge=1)
    compute_type: Keyed[str] = "auto"
    device: Keyed[Literal["auto", "cpu", "cuda"]] = "auto"
    actors: Keyed[int] = Field(default=2, ge=1)
    min_actors: Keyed[int] = Field(default=1, ge=1)
    num_cpus_per_actor: Keyed[float] = Field(default=0.5, gt=0)
    intra_threads: Keyed[int] = Field(default=1, ge=0)
    # CTranslate2 workers per actor, each translating its own batches of a call in parallel
    # (``inter_threads``); one actor with ``inter_threads`` = cores balances a call's batches
    # over the cores itself
    inter_threads: Unkeyed[int] = Field(default=1, ge=1)
    # each actor reads, translates and writes whole shards (one Ray Data operator); false:
    # read tasks → actor pool → write tasks, which overlaps slow reads (many small s3 shards)
    # with translation at the cost of copying every row through the object store
    fuse_io: Unkeyed[bool] = True
    actors_per_gpu: Unkeyed[int] = Field(default=1, ge=1)
    actor_resources: Keyed[dict[str, float]] = Field(default_factory=dict)
    overwrite: Keyed[bool] = False

    @field_validator("models")
    @classmethod
    def _model_langs(cls, v: dict[str, str]) -> dict[str, str]:
        from paralib.corpora.langs import canonical

        return {canonical(k): p for k, p in v.items()}

    def model_for(self) -> str | dict[str, str]:
        """The model folder, or the folders by source language when ``models`` is set."""
        return dict(self.models) if self.models else self.model

    @model_validator(mode="after")
    def _hyps_fit_beam(self) -> BacktranslateConfig:
        if self.num_hypotheses > self.beam_size:
            raise ValueError(
                f"num_hypotheses ({self.num_hypotheses}) cannot exceed beam_size ({self.beam_size})"
            )
        if self.min_actors > self.actors:
            raise ValueError(f"min_actors ({self.min_actors}) > actors ({self.actors})")
        return self


class PivotConfig(BacktranslateConfig):
    """Round-trip (pivot) paraphrases of English text (DCU 2016 §3.2): English → ``model``
    (English→X, ``pivot_hypotheses``-best) → ``model_back`` (X→English, ``num_hypotheses``-best).
    """

    inputs: Keyed[list[InputConfig]] = Field(default_factory=list)
    model: Keyed[ExpandedPath] = "{models}/en-de"
    model_back: Keyed[ExpandedPath] = "{models}/de-en"
    pivot_hypotheses: Keyed[int] = Field(default=1, ge=1, le=50)
    output: Keyed[ExpandedPath] = "output/pivot"

    @model_validator(mode="after")
    def _pivot_fits_beam(self) -> PivotConfig:
        if self.pivot_hypotheses > self.beam_size:
            raise ValueError(f"pivot_hypotheses ({self.pivot_hypotheses}) cannot exceed "
                             f"beam_size ({self.beam_size})")
        return self


class ParaphraseConfig(BacktranslateConfig):
    """``paralib paraphrase``: k-best paraphrases of English text from an English→English
    model trained on selected pairs (ParaNMT 2018 §6)."""

    inputs: Keyed[list[InputConfig]] = Field(default_factory=list)
    model: Keyed[ExpandedPath] = "{models}/en-en-paraphrase"
    output: Keyed[ExpandedPath] = "output/paraphrase"


class MTModelConfig(Strict):
    """Size of the Marian Transformer trained by ``paralib mt train``."""

    vocab_size: Keyed[int] = Field(default=8000, ge=100)
    d_model: Keyed[int] = Field(default=256, ge=16)
    encoder_layers: Keyed[int] = Field(default=3, ge=1)
    decoder_layers: Keyed[int] = Field(default=3, ge=1)
    attention_heads: Keyed[int] = Field(default=4, ge=1)
    ffn_dim: Keyed[int] = Field(default=1024, ge=16)
    dropout: Keyed[float] = Field(default=0.1, ge=0, lt=1)
    max_positions: Keyed[int] = Field(default=256, ge=16)


class MTTrainConfig(Strict):
    """Training recipe of ``paralib mt train`` (tuned for a CPU; see README): bitext from
    ``inputs`` and ``corpora`` (by name, as ``bitext.corpora``), trained on ``device``
    (``auto``: CUDA when there is one, with bfloat16 autocast)."""

    src_lang: Keyed[str] = "de"
    tgt_lang: Keyed[str] = "en"
    inputs: Keyed[list[InputConfig]] = Field(default_factory=list)
    corpora: KeyedIfSet[list[CorpusRef]] = Field(default_factory=list)
    # drop pairs with a side in an evaluation set of ``paralib evaluate`` or in the model's own
    # validation and test sides; false only where that is the point
    decontaminate: KeyedIfSet[bool] = True
    shard_rows: KeyedIfSet[int] = Field(default=20_000, ge=1)
    device: KeyedIfSet[Literal["auto", "cpu", "cuda"]] = "auto"
    valid_src: Keyed[ExpandedPath | None] = None
    valid_ref: Keyed[ExpandedPath | None] = None
    test_src: Keyed[ExpandedPath | None] = None
    test_ref: Keyed[ExpandedPath | None] = None
    output: Keyed[ExpandedPath] = "runs/mt-de-en"
    model: Keyed[MTModelConfig] = Field(default_factory=MTModelConfig)
    batch_tokens: Keyed[int] = Field(default=3000, ge=16)
    max_len: Keyed[int] = Field(default=64, ge=4)
    lr: Keyed[float] = Field(default=1e-3, gt=0)
    warmup_steps: Keyed[int] = Field(default=800, ge=0)
    label_smoothing: Keyed[float] = Field(default=0.1, ge=0, lt=1)
    max_steps: Keyed[int] = Field(default=100_000, ge=1)
    time_budget_minutes: Keyed[float] = Field(default=90.0, gt=0)
    eval_every: Keyed[int] = Field(default=1000, ge=1)
    average_last: Keyed[int] = Field(default=4, ge=1)
    beam_size: Keyed[int] = Field(default=4, ge=1)
    threads: Keyed[int] = Field(default=0, ge=0)
    seed: Keyed[int] = 1

    _unique = field_validator("inputs")(classmethod(lambda cls, v: unique_corpora(v)))

    def all_inputs(self) -> list[InputConfig]:
        """``inputs`` followed by the file pairs of every named corpus."""
        return unique_corpora(list(self.inputs) + [i for r in self.corpora for i in r.inputs()])


class Config(Strict):
    """The whole paralib configuration."""

    ray: Keyed[RayConfig] = Field(default_factory=RayConfig)
    s3: Keyed[S3Config] = Field(default_factory=S3Config)
    bitext: Keyed[BitextConfig] = Field(default_factory=BitextConfig)
    backtranslate: Keyed[BacktranslateConfig] = Field(default_factory=BacktranslateConfig)
    pivot: Keyed[PivotConfig] = Field(default_factory=PivotConfig)
    paraphrase: Keyed[ParaphraseConfig] = Field(default_factory=ParaphraseConfig)
    mt: Keyed[MTTrainConfig] = Field(default_factory=MTTrainConfig)
    decontaminate: Unkeyed[DecontaminateConfig] = Field(default_factory=DecontaminateConfig)
    score: Keyed[ScoreConfig] = Field(default_factory=ScoreConfig)
    lm: Keyed[LMConfig] = Field(default_factory=LMConfig)
    classifier: Keyed[ClassifierConfig] = Field(default_factory=ClassifierConfig)
    select: Keyed[SelectSpec] = Field(default_factory=SelectSpec)
    analyze: Keyed[AnalyzeConfig] = Field(default_factory=AnalyzeConfig)
    train: Keyed[TrainConfig] = Field(default_factory=TrainConfig)
    encode: Unkeyed[EncodeConfig] = Field(default_factory=EncodeConfig)
    mine: Unkeyed[MineConfig] = Field(default_factory=MineConfig)


def add_config_args(p, default: Path | None = None, example: str = "backtranslate.beam_size=8",
                    progress: bool = True, config: bool = True) -> None:
    """The arguments every configured subcommand takes on an ``argparse`` parser: ``--config``
    (unless ``config`` is false: an experiment's runs have theirs), ``--set`` (read by
    :func:`load_config`) and ``--no-progress`` (unless ``progress`` is false: a command
    without progress bars)."""
    if config:
        p.add_argument("--config", "-c", default=str(default) if default else None,
                       help="YAML configuration file" +
                       (f" (default: {default})" if default else ""))
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help=f"override a config value, e.g. --set {example}")
    if progress:
        p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> Config:
    """Load and validate a config file (or the defaults) with ``--set`` overrides applied."""
    tree: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        source = str(path)
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"config file not found: {path}")
        loaded = read_yaml(p, ConfigError)
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"{path}: top level must be a mapping of sections")
        tree = loaded
    try:
        for item in overrides or []:
            set_path(tree, *parse(item), label="--set")
    except OverrideError as exc:
        raise ConfigError(str(exc)) from None
    if overrides:
        source += " (with --set " + ", ".join(overrides) + ")"
    try:
        return Config.model_validate(tree)
    except ValidationError as exc:
        raise ConfigError(format_errors(exc, source)) from None
