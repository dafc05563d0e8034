"""Development score for best-epoch selection (``train.dev``).

- ``stsb-dev`` and ``sts17-en-en``: Pearson's r × 100 of cosines with the gold scores of STS
  Benchmark dev or STS 2017 en-en (2018 §5.1; 2019 §3 uses STS 2017 en-en).
- ``xnli-dev`` (``xnli-dev:ar,es,tr`` for some languages): XNLI dev translation retrieval with
  English (2019 §3's cross-lingual development data), the accuracy of each direction averaged,
  then the languages averaged (:mod:`paralib.evaluate.retrieval`, the same arithmetic as the
  ``xnli`` suite of ``paralib evaluate``).

One rule for the keys: every epoch record holds the selection number as ``dev_score`` (NaN
without a dev set), named by ``dev_metric`` (``pearson`` or ``xnli-retrieval``; absent without
a dev set); a Pearson dev set (and ``none``) also writes it as ``dev_pearson``, as every record
did before ``dev_score`` existed (so older ``training.json`` files read the same), and XNLI
dev adds each language's score as ``dev_by_lang``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
import torch
import torch.nn.functional as F
from scipy.stats import pearsonr

from paralib.evaluate.loaders import Pairs as DevSet
from paralib.evaluate.loaders import read_sts17, read_stsb, read_xnli_dev
from paralib.evaluate.retrieval import both_directions, language_score, mean_score
from paralib.models.model import ParaphraseModel
from paralib.paths import data_root
from paralib.train.config import dev_languages

PEARSON, RETRIEVAL = "pearson", "xnli-retrieval"
LABELS = {PEARSON: "Pearson x100", RETRIEVAL: "retrieval accuracy x100"}


@dataclass
class RetrievalDev:
    """XNLI dev translations of each language with English, row-aligned: ``sets[lang]`` is
    (sentences in ``lang``, their English translations)."""

    name: str
    sets: dict[str, tuple[list[str], list[str]]]
    files: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(xs) for xs, _ in self.sets.values())


def load_dev(name: str) -> DevSet | RetrievalDev | None:
    """The dev set named in the config (``none`` gives ``None``), named ``name``: an STS set's
    pairs with their gold scores, or XNLI dev's translations of the languages ``name``
    selects. A name that is no dev set is a ``ValueError`` naming the choices."""
    langs = dev_languages(name)
    if name == "none":
        return None
    if langs:
        sets, files = {}, []
        for lang in langs:
            xs, es, paths = read_xnli_dev(data_root(), lang)
            sets[lang] = (xs, es)
            files += [p for p in paths if p not in files]
        return RetrievalDev(name, sets, files)
    pairs = read_stsb(data_root(), "dev") if name == "stsb-dev" else read_sts17(data_root(),
                                                                                 "en-en")
    return replace(pairs, name=name)


def dev_metric(name: str) -> str:
    """The name of the number ``train.dev: name`` selects on: ``pearson``, ``xnli-retrieval``
    or ``none``."""
    if name == "none":
        return "none"
    return RETRIEVAL if dev_languages(name) else PEARSON


def embeddings(model: ParaphraseModel, texts: list[str], batch: int = 500) -> torch.Tensor:
    """Vectors of ``texts`` under ``model`` in evaluation mode (training mode is restored)."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        out = [model.embed(texts[i:i + batch]) for i in range(0, len(texts), batch)]
    model.train(was_training)
    return torch.cat(out) if out else torch.zeros(0, 0)


def cosines(model: ParaphraseModel, a: list[str], b: list[str], batch: int = 500) -> np.ndarray:
    """Cosine of every pair under ``model`` in evaluation mode (training mode is restored)."""
    return F.cosine_similarity(embeddings(model, a, batch), embeddings(model, b, batch),
                               dim=-1, eps=1e-8).cpu().numpy()


def pearson(cos: np.ndarray, gold: np.ndarray) -> float:
    """Pearson's r × 100 of cosines with gold scores."""
    return float(100 * pearsonr(cos, gold).statistic)


def dev_pearson(model: ParaphraseModel, dev: DevSet) -> float:
    """Pearson's r × 100 of the model's cosines with the gold scores."""
    return pearson(cosines(model, dev.a, dev.b), dev.gold)


def retrieval_scores(model: ParaphraseModel, dev: RetrievalDev) -> dict:
    """XNLI dev retrieval under ``model``: the mean (``dev_score``), each language's score
    (``dev_by_lang``) and the cosines of the aligned translations (``dev_cos_mean``,
    ``dev_cos_sd``: the spread that shows a collapsed encoder)."""
    by_lang, cos = {}, []
    for lang, (xs, es) in dev.sets.items():
        ex, ee = embeddings(model, xs), embeddings(model, es)
        by_lang[lang] = language_score(both_directions(ex.cpu().numpy(), ee.cpu().numpy()))
        cos.append(F.cosine_similarity(ex, ee, dim=-1, eps=1e-8).cpu().numpy())
    allcos = np.concatenate(cos)
    return {"dev_score": mean_score(by_lang), "dev_metric": RETRIEVAL, "dev_by_lang": by_lang,
            "dev_cos_mean": float(allcos.mean()), "dev_cos_sd": float(allcos.std())}


def score_dev(model: ParaphraseModel, dev: DevSet | RetrievalDev | None) -> dict:
    """The dev entries of an epoch record (see the module docstring) and the seconds they
    took (``dev_seconds``); NaN without a dev set."""
    if dev is None:
        nan = math.nan
        return {"dev_score": nan, "dev_pearson": nan, "dev_cos_mean": nan, "dev_cos_sd": nan}
    t0 = time.perf_counter()
    if isinstance(dev, RetrievalDev):
        scores = retrieval_scores(model, dev)
    else:
        cos = cosines(model, dev.a, dev.b)
        score = pearson(cos, dev.gold)
        scores = {"dev_score": score, "dev_metric": PEARSON, "dev_pearson": score,
                  "dev_cos_mean": float(cos.mean()), "dev_cos_sd": float(cos.std())}
    return {**scores, "dev_seconds": time.perf_counter() - t0}


def dev_label(name: str) -> str:
    """What the score of ``train.dev: name`` is, for a model card or a plot axis."""
    return LABELS.get(dev_metric(name), "score")


def summary_fields(name: str, score: float | None) -> dict:
    """The dev entries of ``training.json`` for the kept epoch's ``score`` on ``train.dev:
    name``: ``dev_score`` and ``dev_metric`` always, and ``dev_pearson`` as well for a Pearson
    dev set (and ``none``), as before ``dev_score`` existed."""
    metric = dev_metric(name)
    return {"dev_score": score, "dev_metric": metric,
            **({"dev_pearson": score} if metric in (PEARSON, "none") else {})}
