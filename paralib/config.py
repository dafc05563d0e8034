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
    ChangesResults,
    ChangesResultsIfSet,
    ChangesResultsRekeyed,
    ExpandedPath,
    KeptForOldRecords,
    NotResults,
    Resumable,
    Strict,
    format_errors,
    read_yaml,
)
from paralib.select.config import SelectSpec
from paralib.train.config import TrainConfig
from paralib.wiring import resolve_references


class ConfigError(ConfigurationError, ValueError):
    """A configuration file or override is invalid."""


class RayConfig(Strict):
    """How to reach Ray: ``address: null`` starts an embedded local instance (``ray.init()``)."""

    # null: start an embedded local Ray; ``auto`` or ``ray://…``: join a cluster
    address: KeptForOldRecords[str | None] = None
    # CPUs of the embedded Ray; null: every core
    num_cpus: KeptForOldRecords[int | None] = Field(default=None, ge=1)
    # start the embedded Ray's dashboard; null: Ray's default
    include_dashboard: KeptForOldRecords[bool | None] = None
    # a stage that makes no progress (no shard part written) for this long fails with a
    # message instead of waiting forever; null: wait forever
    stall_timeout_s: NotResults[float | None] = Field(default=1800.0, gt=0)
    # the cluster launcher YAML of a joined, autoscaling cluster (e.g. cluster/aws.yaml): its
    # available_node_types are what the autoscaler can add, so a request that fits none of
    # them fails at once instead of waiting (without it, such a request only warns)
    node_types: NotResults[ExpandedPath | None] = None
    # run the sharded stages (backtranslate, score, decontaminate, encode) one shard after
    # another in this process, without Ray: the same actors and outputs, no Ray start-up (a
    # laptop's small job, a debugger, a machine without Ray)
    in_process: NotResults[bool] = False


class S3Config(Strict):
    """S3 access; ``endpoint_url`` selects an S3-compatible store (MinIO, moto)."""

    # S3-compatible endpoint (MinIO, moto); null: AWS
    endpoint_url: KeptForOldRecords[str | None] = Field(default=None, pattern=r"^https?://")
    # S3 region
    region: KeptForOldRecords[str] = "us-east-1"
    # S3 access key; null: the ``AWS_*`` environment variables
    access_key: KeptForOldRecords[str | None] = None
    # S3 secret key; null: the ``AWS_*`` environment variables
    secret_key: KeptForOldRecords[str | None] = None
    # tries of every S3 request, with exponential backoff between them (botocore's
    # "standard" retry mode and pyarrow's AWS standard strategy): rides out short outages
    max_attempts: NotResults[int] = Field(default=10, ge=1)

    def options(self) -> S3Options:
        """The picklable connection options used by readers and writers."""
        return S3Options(self.endpoint_url, self.region, self.access_key, self.secret_key,
                         self.max_attempts)


class DecontaminateConfig(Strict):
    """``paralib decontaminate``: drop every pair one of whose sides
    is in an evaluation set, matched on the normal form (NFKC, case-folded, punctuation and
    whitespace removed) or, for sentences of at least ``min_tokens`` tokens, on a shared
    ``ngram``-token window; group the pairs; drop exact duplicates. Training runs the same
    matching on its sources unless ``train.decontaminate`` is false."""

    # folder of the training-ready corpus, local or ``s3://``
    output: NotResults[ExpandedPath] = "output/decontaminate"
    # tokens of the shared window that matches a long sentence to an evaluation one
    ngram: ChangesResults[int] = Field(default=10, ge=2)
    # sentences of at least this many tokens are also matched on ``ngram`` windows
    min_tokens: ChangesResults[int] = Field(default=10, ge=1)
    # remove exact duplicate pairs
    dedupe: ChangesResults[bool] = True
    # delete the output first instead of resuming
    overwrite: NotResults[bool] = False
    # the matching actor pool grows up to this many
    actors: NotResults[int] = Field(default=2, ge=1)
    # CPUs each matching actor reserves
    num_cpus_per_actor: NotResults[float] = Field(default=0.5, gt=0)


class BacktranslateConfig(Strict):
    """Back-translation of the non-English side into English (2017 §3, 2018 §3).

    ``num_hypotheses`` > 1 keeps the k-best list (up to 50, 2017 §3); ``cost`` is the
    negative log-likelihood per token of each hypothesis (2017 §5.6).
    """

    # CTranslate2 model folder into English (with ``source.spm``, ``target.spm``)
    model: ChangesResults[ExpandedPath] = "{models}/de-en"
    # one model per source language (``{de: "{models}/de-en", fr: ...}``), for bitext of
    # several languages in one run; when set, ``model`` is not used
    models: ChangesResultsIfSet[dict[str, ExpandedPath]] = Field(default_factory=dict)
    # folder of the translated pairs, local or ``s3://``
    output: KeptForOldRecords[ExpandedPath] = "output/backtranslate"
    # beam size (ParaNMT used 12)
    beam_size: ChangesResults[int] = Field(default=4, ge=1, le=64)
    # k of the k-best list kept per sentence (≤ ``beam_size``; 2017 §3)
    num_hypotheses: ChangesResults[int] = Field(default=1, ge=1, le=50)
    # beam search length penalty (CTranslate2)
    length_penalty: ChangesResults[float] = 1.0
    # source tokens per sentence; longer ones are truncated
    max_input_length: ChangesResults[int] = Field(default=128, ge=1)
    # most target tokens of a hypothesis
    max_decoding_length: ChangesResults[int] = Field(default=128, ge=1)
    # CTranslate2 batch size, in ``batch_type`` units
    batch_size: ChangesResults[int] = Field(default=1024, ge=1)
    # whether ``batch_size`` counts ``tokens`` or ``examples``
    batch_type: ChangesResults[Literal["examples", "tokens"]] = "tokens"
    # rows per call of an actor; null: a whole shard (on a GPU actor ``bitext.shard_rows``: Ray Data
    # needs a number there)
    rows_per_batch: KeptForOldRecords[int | None] = Field(default=None, ge=1)
    # CTranslate2 compute type (``auto``, ``int8``, ``float16``, …)
    compute_type: Resumable[ChangesResults[str]] = "auto"
    # ``auto`` (GPU if the cluster has one), ``cpu`` or ``cuda``
    device: Resumable[ChangesResults[Literal["auto", "cpu", "cuda"]]] = "auto"
    # most translation actors: the pool autoscales from ``min_actors`` to this
    actors: KeptForOldRecords[int] = Field(default=2, ge=1)
    # fewest translation actors
    min_actors: KeptForOldRecords[int] = Field(default=1, ge=1)
    # CPUs each CPU actor reserves
    num_cpus_per_actor: KeptForOldRecords[float] = Field(default=0.5, gt=0)
    # CTranslate2 threads per translation (``intra_threads``; 0: its default)
    intra_threads: KeptForOldRecords[int] = Field(default=1, ge=0)
    # CTranslate2 workers per actor, each translating its own batches of a call in parallel
    # (``inter_threads``); one actor with ``inter_threads`` = cores balances a call's batches
    # over the cores itself
    inter_threads: NotResults[int] = Field(default=1, ge=1)
    # each actor reads, translates and writes whole shards (one Ray Data operator); false:
    # read tasks → actor pool → write tasks, which overlaps slow reads (many small s3 shards)
    # with translation at the cost of copying every row through the object store
    fuse_io: NotResults[bool] = True
    # actors sharing each GPU (a fraction each), so one tokenises while another translates
    actors_per_gpu: NotResults[int] = Field(default=1, ge=1)
    # custom Ray resources each actor requests (``{name: amount}``)
    actor_resources: KeptForOldRecords[dict[str, float]] = Field(default_factory=dict)
    # delete the output first instead of resuming
    overwrite: KeptForOldRecords[bool] = False

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

    inputs: ChangesResults[list[InputConfig]] = Field(default_factory=list)
    # English→X CTranslate2 model folder: the first leg of the round trip
    model: ChangesResults[ExpandedPath] = "{models}/en-de"
    # X→English model folder: the second leg (``num_hypotheses``-best)
    model_back: ChangesResults[ExpandedPath] = "{models}/de-en"
    # k-best of the first leg (≤ ``beam_size``): each is translated back
    pivot_hypotheses: ChangesResults[int] = Field(default=1, ge=1, le=50)
    # folder of the round-trip pairs, local or ``s3://``
    output: KeptForOldRecords[ExpandedPath] = "output/pivot"

    @model_validator(mode="after")
    def _pivot_fits_beam(self) -> PivotConfig:
        if self.pivot_hypotheses > self.beam_size:
            raise ValueError(f"pivot_hypotheses ({self.pivot_hypotheses}) cannot exceed "
                             f"beam_size ({self.beam_size})")
        return self


class ParaphraseConfig(BacktranslateConfig):
    """``paralib paraphrase``: k-best paraphrases of English text from an English→English
    model trained on selected pairs (ParaNMT 2018 §6)."""

    inputs: ChangesResults[list[InputConfig]] = Field(default_factory=list)
    # English→English CTranslate2 model folder (``paralib mt train`` on selected pairs)
    model: ChangesResults[ExpandedPath] = "{models}/en-en-paraphrase"
    # folder of the paraphrases, local or ``s3://``
    output: KeptForOldRecords[ExpandedPath] = "output/paraphrase"


class MTModelConfig(Strict):
    """Size of the Marian Transformer trained by ``paralib mt train``."""

    # pieces of the joint SentencePiece vocabulary of both languages
    vocab_size: ChangesResults[int] = Field(default=8000, ge=100)
    # width of the embeddings and hidden states
    d_model: ChangesResults[int] = Field(default=256, ge=16)
    # Transformer encoder layers
    encoder_layers: ChangesResults[int] = Field(default=3, ge=1)
    # Transformer decoder layers
    decoder_layers: ChangesResults[int] = Field(default=3, ge=1)
    # attention heads per layer
    attention_heads: ChangesResults[int] = Field(default=4, ge=1)
    # inner width of the feed-forward blocks
    ffn_dim: ChangesResults[int] = Field(default=1024, ge=16)
    # dropout probability
    dropout: ChangesResults[float] = Field(default=0.1, ge=0, lt=1)
    # most positions of a sentence (validation and test sides cut to this − 2)
    max_positions: ChangesResults[int] = Field(default=256, ge=16)


class MTTrainConfig(Strict):
    """Training recipe of ``paralib mt train`` (tuned for a CPU; docs/STAGES.md): bitext from
    ``inputs`` and ``corpora`` (by name, as ``bitext.corpora``), trained on ``device``
    (``auto``: CUDA when there is one, with bfloat16 autocast)."""

    # source language (``en`` → X reverses the bitext)
    src_lang: ChangesResults[str] = "de"
    # target language
    tgt_lang: ChangesResults[str] = "en"
    inputs: ChangesResults[list[InputConfig]] = Field(default_factory=list)
    corpora: ChangesResultsIfSet[list[CorpusRef]] = Field(default_factory=list)
    # drop pairs with a side in an evaluation set of ``paralib evaluate`` or in the model's own
    # validation and test sides; false only where that is the point
    decontaminate: ChangesResultsIfSet[bool] = True
    # rows per shard of the prepared bitext
    shard_rows: ChangesResultsIfSet[int] = Field(default=20_000, ge=1)
    # ``auto`` (CUDA with bfloat16 autocast when there is one), ``cpu`` or ``cuda``
    device: ChangesResultsIfSet[Literal["auto", "cpu", "cuda"]] = "auto"
    # source side of the validation set (validation loss), one sentence a line
    valid_src: ChangesResults[ExpandedPath | None] = None
    # target side of the validation set
    valid_ref: ChangesResults[ExpandedPath | None] = None
    # source side of the test set (BLEU after training), one sentence a line
    test_src: ChangesResults[ExpandedPath | None] = None
    # target side of the test set
    test_ref: ChangesResults[ExpandedPath | None] = None
    # folder of the prepared data, checkpoints and the trained model
    output: KeptForOldRecords[ExpandedPath] = "runs/mt-de-en"
    model: ChangesResults[MTModelConfig] = Field(default_factory=MTModelConfig)
    # tokens per training batch
    batch_tokens: ChangesResults[int] = Field(default=3000, ge=16)
    # pairs with a side longer than this many pieces are left out
    max_len: ChangesResults[int] = Field(default=64, ge=4)
    # peak learning rate, after warm-up
    lr: ChangesResults[float] = Field(default=1e-3, gt=0)
    # steps of learning-rate warm-up
    warmup_steps: ChangesResults[int] = Field(default=800, ge=0)
    # label smoothing of the cross-entropy
    label_smoothing: ChangesResults[float] = Field(default=0.1, ge=0, lt=1)
    # stop after this many steps
    max_steps: ChangesResults[int] = Field(default=100_000, ge=1)
    # stop after this many minutes of training
    time_budget_minutes: ChangesResults[float] = Field(default=90.0, gt=0)
    # steps between validations and checkpoints
    eval_every: ChangesResults[int] = Field(default=1000, ge=1)
    # the last this many checkpoints are averaged into the model
    average_last: ChangesResults[int] = Field(default=4, ge=1)
    # beam size of the test decoding
    beam_size: ChangesResults[int] = Field(default=4, ge=1)
    # torch CPU threads; 0: every core
    threads: KeptForOldRecords[int] = Field(default=0, ge=0)
    # random seed
    seed: ChangesResults[int] = 1

    _unique = field_validator("inputs")(classmethod(lambda cls, v: unique_corpora(v)))

    def all_inputs(self) -> list[InputConfig]:
        """``inputs`` followed by the file pairs of every named corpus."""
        return unique_corpora(list(self.inputs) + [i for r in self.corpora for i in r.inputs()])


class Config(Strict):
    """The whole paralib configuration.

    A path a stage reads may name the stage that writes it: ``"@score"`` stands for
    ``score.output`` and ``"@select/pairs.parquet"`` for a file under ``select.output``, so
    each output path is written once. A reference to no stage, or stages that read each other
    in a cycle, is an error."""

    ray: KeptForOldRecords[RayConfig] = Field(default_factory=RayConfig)
    s3: KeptForOldRecords[S3Config] = Field(default_factory=S3Config)
    bitext: ChangesResults[BitextConfig] = Field(default_factory=BitextConfig)
    backtranslate: ChangesResults[BacktranslateConfig] = Field(default_factory=BacktranslateConfig)
    pivot: ChangesResults[PivotConfig] = Field(default_factory=PivotConfig)
    paraphrase: ChangesResults[ParaphraseConfig] = Field(default_factory=ParaphraseConfig)
    mt: ChangesResults[MTTrainConfig] = Field(default_factory=MTTrainConfig)
    decontaminate: ChangesResultsRekeyed[DecontaminateConfig] = Field(
        default_factory=DecontaminateConfig)
    score: ChangesResults[ScoreConfig] = Field(default_factory=ScoreConfig)
    lm: ChangesResults[LMConfig] = Field(default_factory=LMConfig)
    classifier: ChangesResults[ClassifierConfig] = Field(default_factory=ClassifierConfig)
    select: ChangesResults[SelectSpec] = Field(default_factory=SelectSpec)
    analyze: ChangesResults[AnalyzeConfig] = Field(default_factory=AnalyzeConfig)
    train: ChangesResults[TrainConfig] = Field(default_factory=TrainConfig)
    encode: NotResults[EncodeConfig] = Field(default_factory=EncodeConfig)
    mine: NotResults[MineConfig] = Field(default_factory=MineConfig)

    @model_validator(mode="before")
    @classmethod
    def _wire(cls, data: Any) -> Any:
        """Every stage reference (``@score``) becomes the path it names
        (:func:`paralib.wiring.resolve_references`)."""
        return resolve_references(data, cls)


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
        if not Path(path).is_file():
            raise ConfigError(f"config file not found: {path}")
        tree = read_yaml(Path(path), ConfigError)
        tree = {} if tree is None else tree
        if not isinstance(tree, dict):
            raise ConfigError(f"{path}: top level must be a mapping of sections")
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
