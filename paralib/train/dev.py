"""Development score for best-epoch selection: Pearson's r × 100 of cosines with the gold
scores of STS Benchmark dev or STS 2017 en-en (2018 §5.1; 2019 §3 uses STS 2017 en-en)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch
import torch.nn.functional as F
from scipy.stats import pearsonr

from paralib.evaluate.loaders import Pairs as DevSet
from paralib.evaluate.loaders import read_sts17, read_stsb
from paralib.models.model import ParaphraseModel
from paralib.paths import data_root


def load_dev(name: str) -> DevSet | None:
    """The dev set named in the config (``none`` gives ``None``): the pairs with their gold
    scores, named ``name``."""
    if name == "none":
        return None
    pairs = read_stsb(data_root(), "dev") if name == "stsb-dev" else read_sts17(data_root(),
                                                                                 "en-en")
    return replace(pairs, name=name)


def cosines(model: ParaphraseModel, a: list[str], b: list[str], batch: int = 500) -> np.ndarray:
    """Cosine of every pair under ``model`` in evaluation mode (training mode is restored)."""
    was_training = model.training
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(a), batch):
            out.append(F.cosine_similarity(model.embed(a[i:i + batch]),
                                           model.embed(b[i:i + batch]), dim=-1, eps=1e-8))
    model.train(was_training)
    return torch.cat(out).cpu().numpy()


def pearson(cos: np.ndarray, gold: np.ndarray) -> float:
    """Pearson's r × 100 of cosines with gold scores."""
    return float(100 * pearsonr(cos, gold).statistic)


def dev_pearson(model: ParaphraseModel, dev: DevSet) -> float:
    """Pearson's r × 100 of the model's cosines with the gold scores."""
    return pearson(cosines(model, dev.a, dev.b), dev.gold)

