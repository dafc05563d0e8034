"""The ``train`` config section: sources, encoder, objective, negatives, Ray Train scaling
(2017 §4.2 and §5.2, 2018 §4-5.2, 2019 §2-3.1, Opusparcus §3.2, DCU §3)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from paralib.models.config import ModelConfig
from paralib.schema import (
    ChangesResults,
    ChangesResultsIfSet,
    ChangesResultsRekeyed,
    ExpandedPath,
    KeptForOldRecords,
    NotResults,
    Resumable,
    Strict,
)

# The dev sets of train.dev, and the languages of XNLI dev (paralib.evaluate.loaders reads them).
DEV_SETS = ("stsb-dev", "sts17-en-en", "xnli-dev", "none")
XNLI_DEV_LANGS = ("ar", "de", "es", "fr", "tr")


def dev_languages(dev: str) -> tuple[str, ...]:
    """The languages a ``train.dev`` value scores besides English: XNLI dev's, all of them for
    ``xnli-dev`` or the listed ones for ``xnli-dev:ar,es``; ``()`` for the English STS sets and
    ``none``. A name or language that does not exist is a ``ValueError`` naming the choices."""
    name, sep, listed = dev.partition(":")
    if name not in DEV_SETS:
        raise ValueError(f"train.dev {dev!r}: no such dev set; choose one of "
                         f"{', '.join(DEV_SETS)} (xnli-dev:LANG,LANG,... for some of "
                         f"{', '.join(XNLI_DEV_LANGS)})")
    if name != "xnli-dev":
        if sep:
            raise ValueError(f"train.dev {dev!r}: only xnli-dev takes languages "
                             f"(xnli-dev:{','.join(XNLI_DEV_LANGS)})")
        return ()
    if not sep:
        return XNLI_DEV_LANGS
    langs = tuple(lang.strip() for lang in listed.split(","))
    wrong = [lang for lang in langs if lang not in XNLI_DEV_LANGS]
    if wrong or len(set(langs)) != len(langs):
        what = (f"no XNLI dev language {', '.join(map(repr, wrong))}" if wrong
                else "a language is listed twice")
        raise ValueError(f"train.dev {dev!r}: {what}; XNLI dev has "
                         f"{', '.join(XNLI_DEV_LANGS)} (with English)")
    return langs


class SourceConfig(Strict):
    """One source of training pairs.

    - ``pairs``: a selection (``paralib select`` output folder or any Parquet); columns
      ``s1_column`` / ``s2_column`` (default ``ref`` / ``trans``), ``label`` when labelled.
      Round-trip paraphrases (``paralib pivot`` output) are pairs with ``ref`` / ``trans``.
    - ``bitext``: raw bitext (the ``bitext`` inputs of this config): English with the other
      language, for bilingual training (2019 §2).
    - ``captions``: Multi30k task 2, captions of one image written independently: human
      paraphrases (the role of SimpWiki in 2017 Table 4).
    - ``sts``: STS Benchmark training pairs scoring at least ``min_score`` (DCU §3: 3.8).
    - ``ppdb``: PPDB paraphrase pairs (2017 §5.2, Table 4's PPDB row): ``path`` (default
      ``{data}/lexical/mwa_ppdb.zip``, PPDB 1.0 XXXL lexical pairs) is a ``.zip`` holding
      one file, or a text file (``.gz`` ok), of ``phrase<TAB>paraphrase`` lines or PPDB
      release lines (``LHS ||| phrase ||| paraphrase ||| ...``). The file is ordered (numbers
      and abbreviations first), so its pairs are shuffled with ``train.seed`` before
      ``limit``: ``limit: 24000`` is the paper's random 24,000.

    - ``corpus``: a ``paralib decontaminate`` output folder (``path``): English ``ref`` with
      ``src`` in ``src_lang``, and the pairs' groups.

    ``limit`` keeps the first N pairs of a source (a random N for ``ppdb``); ``sample`` a
    random N (seeded with ``train.seed``), drawn before decontamination, so that a tuning trial
    on part of a large corpus reads and cleans only its part. ``langs`` keeps only the pairs
    whose non-English side is in one of these languages (``en``: English paraphrase pairs,
    such as the Bible versions in a corpus) and ``exclude_langs`` drops them: a corpus splits
    into its bitext and its paraphrases (2019 §2 trains on bitext; ``paralib tune``'s
    ``data_mix``).
    """

    # What the source is: pairs, bitext, captions, sts, ppdb or corpus (see above).
    kind: ChangesResults[Literal["pairs", "bitext", "captions", "sts", "ppdb", "corpus"]]
    # The folder or file read: needed by pairs and corpus sources; ppdb has a default.
    path: ChangesResults[ExpandedPath | None] = None
    # Column of the first side of a pairs source.
    s1_column: ChangesResults[str] = "ref"
    # Column of the second side of a pairs source.
    s2_column: ChangesResults[str] = "trans"
    # sts: keep pairs whose gold score (0-5) is at least this (DCU §3: 3.8).
    min_score: ChangesResults[float] = Field(default=3.8, ge=0, le=5)
    # Keep the first N pairs (a random N for ppdb).
    limit: ChangesResults[int | None] = Field(default=None, ge=1)
    # Keep a random N pairs (seeded with train.seed), drawn before decontamination.
    sample: ChangesResultsIfSet[int | None] = Field(default=None, ge=1)
    # Keep only pairs whose non-English side is in these languages (en: paraphrases).
    langs: ChangesResultsIfSet[list[str] | None] = None
    # Drop pairs whose non-English side is in these languages.
    exclude_langs: ChangesResultsIfSet[list[str] | None] = None

    @model_validator(mode="after")
    def _path_for_pairs(self) -> SourceConfig:
        if self.kind in ("pairs", "corpus") and not self.path:
            raise ValueError(f"a '{self.kind}' source needs 'path'")
        if self.langs is not None and not self.langs:
            raise ValueError("langs: [] keeps no pair; leave it out to keep every language")
        return self


class CapConfig(Strict):
    """A cap on the training pairs of one corpus and/or language, drawn (seeded with
    ``train.seed``) after decontamination, so that a large corpus (the Bible in 114 languages)
    can give small languages their pairs without dominating the mix.

    ``corpus`` is the corpus a pair came from: a ``paralib corpora`` name (``bibles``,
    ``wmt-news``), an input's ``corpus`` of ``bitext.inputs``, or the kind of a source without
    corpora (``captions``, ``sts``, ``ppdb``, ``pairs``); ``lang`` its non-English side
    (``en`` for English paraphrase pairs), any code (``ar``, ``ara``). ``per_lang`` keeps at
    most this many pairs in each language of the capped pairs; ``max_pairs`` at most this many
    in all, drawn in proportion to each language's pairs (a cap too small to leave every
    language one pair is an error when the pairs are loaded). The pairs a cap drops are
    rejects with reason ``over cap``. Caps count distinct pairs before the sampling
    temperatures (``corpus_temperature``, ``lang_temperature``), which draw with replacement
    and may repeat a capped corpus's pairs.
    """

    # The corpus capped: a paralib corpora name, an input's corpus or a source kind.
    corpus: ChangesResults[str | None] = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+$")
    # The language capped: the pairs' non-English side (en: English paraphrases).
    lang: ChangesResults[str | None] = None
    # At most this many capped pairs in all, in proportion to their languages.
    max_pairs: ChangesResults[int | None] = Field(default=None, ge=1)
    # At most this many capped pairs in each language.
    per_lang: ChangesResults[int | None] = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _says_what_and_how_many(self) -> CapConfig:
        if self.corpus is None and self.lang is None:
            raise ValueError("a cap names the pairs it caps: set 'corpus', 'lang' or both")
        if self.max_pairs is None and self.per_lang is None:
            raise ValueError("a cap needs 'max_pairs' (pairs in all) or 'per_lang' (pairs in "
                             "each language)")
        if self.lang is not None:
            from paralib.corpora.langs import canonical

            object.__setattr__(self, "lang", canonical(self.lang))
            if self.per_lang is not None:
                raise ValueError(f"'per_lang' caps each language, but this cap names one "
                                 f"('{self.lang}'): use 'max_pairs'")
        return self

    def describe(self) -> str:
        """The cap in a few words: ``corpus bibles, lang ar: max_pairs 500``."""
        what = ", ".join(f"{k} {v}" for k, v in (("corpus", self.corpus), ("lang", self.lang))
                         if v is not None)
        limits = ", ".join(f"{k} {v:,}" for k, v in (("max_pairs", self.max_pairs),
                                                      ("per_lang", self.per_lang))
                           if v is not None)
        return f"{what}: {limits}"


class MegaBatchConfig(Strict):
    """Mega-batching (2018 §4): pool M mini-batches to mine negatives; with ``anneal_every``
    M starts at ``start`` and grows by one every that many mini-batches up to ``size``
    (2019 §3.1: up to 60, +1 every 150)."""

    # Mini-batches pooled to mine negatives, M (2018 §4; 2019 §3.1: up to 60).
    size: ChangesResults[int] = Field(default=1, ge=1)
    # M at the first mini-batch when annealing.
    start: ChangesResults[int] = Field(default=1, ge=1)
    # M grows by one every this many mini-batches up to size (2019 §3.1: 150); None: M is size
    # throughout.
    anneal_every: ChangesResults[int | None] = Field(default=None, ge=1)
    # Mine negatives from every worker's batches (all-gathered), not only the worker's own.
    across_workers: ChangesResults[bool] = False


class RegularisationConfig(Strict):
    """λ_w‖W − W_initial‖², λ_c‖W_c‖² (2017 §4.2), word dropout and scrambling (2017 §5.2:
    0.5, 2018 §5.2: 0.3)."""

    # λ_w of λ_w‖W − W_initial‖²: keeps word embeddings near their start (2017 §4.2).
    lambda_w: ChangesResults[float] = Field(default=0.0, ge=0)
    # λ_c of λ_c‖W_c‖²: L2 penalty on the composition parameters (2017 §4.2).
    lambda_c: ChangesResults[float] = Field(default=0.0, ge=0)
    # Probability of dropping each token of a sentence (2017 §5.2: 0.5).
    word_dropout: ChangesResults[float] = Field(default=0.0, ge=0, lt=1)
    # Probability of shuffling a sentence's tokens (2018 §5.2: 0.3).
    scramble_rate: ChangesResults[float] = Field(default=0.0, ge=0, le=1)


class TrainConfig(Strict):
    """Training of a paraphrastic encoder with Ray Train (``paralib train``)."""

    sources: ChangesResults[list[SourceConfig]] = Field(default_factory=list)
    model: ChangesResults[ModelConfig] = Field(default_factory=ModelConfig)
    # Folder of the trained model (weights, tokenisers, model card).
    output: KeptForOldRecords[ExpandedPath] = "output/model"
    # margin (2017 §4.2, mined negatives) or contrastive (Opusparcus §3.2, labelled pairs).
    loss: ChangesResults[Literal["margin", "contrastive"]] = "margin"
    # δ of the margin loss, in cosine (2017 §4.2: 0.4).
    margin: ChangesResults[float] = Field(default=0.4, gt=0)
    # m of the contrastive loss: negatives pushed beyond cosine distance m.
    contrastive_margin: ChangesResults[float] = Field(default=1.0, gt=0, le=2)
    # Margin loss with a negative for each side (2017); false: the first side's only (2018, 2019).
    symmetric: ChangesResults[bool] = True
    # max: the hardest (2018 §4); rand; mix alternates them by mega-batch; semihard: the
    # hardest that is farther from the anchor than its partner (FaceNet §3.2), else the hardest
    negatives: ChangesResults[Literal["max", "rand", "mix", "semihard"]] = "max"
    # Mine negatives from the other language's side only; None: when any pair has two languages.
    bilingual: ChangesResults[bool | None] = None
    megabatch: ChangesResults[MegaBatchConfig] = Field(default_factory=MegaBatchConfig)
    regularisation: ChangesResults[RegularisationConfig] = Field(
        default_factory=RegularisationConfig)
    # Pairs per mini-batch of each worker.
    batch_size: ChangesResults[int] = Field(default=100, ge=2)
    # Adam learning rate (2017: 0.001).
    lr: ChangesResults[float] = Field(default=0.001, gt=0)
    # Passes over the training pairs.
    epochs: Resumable[ChangesResults[int]] = Field(default=10, ge=1)
    # Train on at most this many pairs, after shuffling; None: all.
    max_pairs: ChangesResults[int | None] = Field(default=None, ge=2)
    # Language sampling temperature T (XLM, Conneau & Lample 2019 §3.1): the pairs are drawn
    # again, as many as there are, with language l's share ∝ n_l^(1/T) (its non-English side;
    # English paraphrase pairs count as "en"); T = 1 keeps the data's own shares, a larger T
    # moves them towards uniform (small languages repeated, large ones sampled down). None:
    # every pair once, as read.
    lang_temperature: ChangesResultsIfSet[float | None] = Field(default=None, gt=0)
    # Caps on the pairs of a corpus and/or language (CapConfig), applied in order after
    # decontamination and before the temperatures.
    caps: ChangesResultsIfSet[list[CapConfig]] = Field(default_factory=list)
    # Corpus sampling temperature, as lang_temperature one level up: corpus c's share of the
    # pairs ∝ n_c^(1/T) (the corpus of a pair as in CapConfig). Drawn before the languages:
    # the corpora are balanced first, then lang_temperature balances the languages of the
    # result. None: every corpus as read.
    corpus_temperature: ChangesResultsIfSet[float | None] = Field(default=None, gt=0)
    # Dev set scored after every epoch; the best epoch is kept. stsb-dev (STS Benchmark dev)
    # and sts17-en-en (STS 2017 en-en, the 2019 paper's; a test set, so paralib tune refuses
    # it): Pearson r x100 of the cosines with the gold scores. xnli-dev: XNLI dev translation
    # retrieval accuracy x100, xx->en and en->xx averaged, then averaged over its languages
    # (all of ar, de, es, fr, tr; xnli-dev:ar,es,tr names some). none: the last epoch is kept.
    dev: ChangesResults[str] = "stsb-dev"
    # Ray Train workers (data parallel).
    workers: Resumable[ChangesResults[int]] = Field(default=1, ge=1)
    # Train on GPUs; None: when the cluster has one.
    use_gpu: Resumable[ChangesResults[bool | None]] = None
    # CPUs each Ray Train worker reserves.
    cpus_per_worker: KeptForOldRecords[float] = Field(default=1.0, gt=0)
    # Ray Train storage of checkpoints and results, local or s3://.
    storage_path: KeptForOldRecords[str] = "output/ray-train"
    # Ray Train checkpoints kept under storage_path: the best this many by dev Pearson (the
    # most recent ones with dev: none), and always the latest, to resume from; None keeps
    # every epoch's (a 20-epoch WORD run at width 300 writes about 1 GB of them).
    keep_checkpoints: NotResults[int | None] = Field(default=1, ge=1)
    # Ray Train run name: its folder under storage_path.
    name: KeptForOldRecords[str] = Field(default="paralib-train", pattern=r"^[A-Za-z0-9_.-]+$")
    # Seed of sampling, shuffling, initialisation and negatives.
    seed: ChangesResults[int] = 1
    # Sentences the tokenisers (vocabulary, SentencePiece) are fitted on.
    vocab_sample: ChangesResults[int] = Field(default=500_000, ge=100)
    # Which vocab_sample sentences fit the tokenisers: "order" the first ones (every pair's
    # s1 side, then the s2 sides: English first, so a large English source can leave the
    # other languages few); "language" the same number spread evenly over the languages
    # (each language's distinct sentences shuffled with train.seed, one language after
    # another; a language with fewer gives the rest to the others).
    vocab_sample_by: ChangesResultsIfSet[Literal["order", "language"]] = "order"
    # Remove pairs that share a side with an evaluation set before training (a test sentence
    # seen in training inflates its score); false trains on the sources as they are, and the
    # model card says so.
    decontaminate: ChangesResultsRekeyed[bool] = True
    # Never mine a negative from a pair of the anchor's group (same normalised side, same
    # Bible verse, same image): such a pair is a paraphrase, not a negative.
    group_negatives: ChangesResultsRekeyed[bool] = True
    # Sparse gradients for the averaging encoders' embedding tables, with SparseAdam: a step
    # updates only the rows of its batch's tokens. Slower than dense fused Adam at SP 20k on
    # CPU (4,773 vs 6,687 pairs/s, benchmarks/train_speed.py); ignored with lambda_w (its
    # penalty is dense) and under NCCL DDP (no sparse all-reduce).
    sparse: ChangesResultsIfSet[bool] = False

    @field_validator("dev")
    @classmethod
    def _dev_set_exists(cls, dev: str) -> str:
        dev_languages(dev)
        return dev

    @field_validator("name")
    @classmethod
    def _name_is_a_folder_name(cls, name: str) -> str:
        if set(name) == {"."}:
            raise ValueError(f"train.name {name!r} is not a folder name: it would write "
                             "outside train.storage_path")
        return name
