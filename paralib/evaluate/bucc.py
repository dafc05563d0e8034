"""BUCC 2018 bitext mining (2019 §3.4, Table 3) with ratio-margin scoring (Artetxe & Schwenk
2019, "Margin-based parallel corpus mining with multilingual sentence embeddings").

Both corpora are embedded and mined by :func:`paralib.mine.margin.mine`, the core that
``paralib mine`` runs at scale: the exact ``faiss.IndexFlatIP`` gives the k = 4 nearest
neighbours in each direction, a candidate pair (x, y) scores the ratio margin

    margin(x, y) = cos(x, y) / ((Σ_{z ∈ NN_k(x)} cos(x, z) + Σ_{z ∈ NN_k(y)} cos(y, z)) / 2k)

and the "max-score" strategy keeps each sentence's best forward and backward candidate, sorts
them all by margin and accepts greedily, each sentence at most once.

Only the sample-gold sets exist here (the test gold is not public), so the score threshold
cannot be tuned on separate data: the source sentences are split in two halves by a fixed seed
(gold and non-gold sentences each split evenly); the threshold that maximises F1 on the first
half's candidates and gold pairs is applied to the second half, and precision, recall and F1
are reported there. Mining itself runs over the whole corpora.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paralib.evaluate.base import Task, load_sets, register
from paralib.evaluate.encode import encode_texts
from paralib.evaluate.evalmodel import EvalModel
from paralib.evaluate.loaders import BuccSet, read_bucc
from paralib.evaluate.metrics import precision_recall_f1
from paralib.mine.margin import mine

__all__ = ["BUCC", "PAIRS", "best_threshold", "evaluate_mining", "halves", "mine"]

PAIRS = ("de-en", "fr-en")


def halves(n_src: int, gold_src: np.ndarray, seed: int) -> np.ndarray:
    """Half (0 = threshold tuning, 1 = report) of every source sentence: gold sources and the
    other sources are each split evenly at random with ``seed``."""
    rng = np.random.default_rng(seed)
    half = np.ones(n_src, dtype=np.int8)
    is_gold = np.zeros(n_src, dtype=bool)
    is_gold[gold_src] = True
    for group in (np.flatnonzero(is_gold), np.flatnonzero(~is_gold)):
        perm = rng.permutation(group)
        half[perm[: (len(perm) + 1) // 2]] = 0
    return half


def best_threshold(scores: np.ndarray, correct: np.ndarray, n_gold: int) -> tuple[float, dict]:
    """The score threshold (accept ``score >= threshold``) with the best F1, and that F1's
    precision / recall / F1."""
    order = np.argsort(-scores, kind="stable")
    tp = np.cumsum(correct[order])
    predicted = np.arange(1, len(order) + 1)
    f1 = 2 * tp / (predicted + n_gold)
    if not len(order):
        return float("inf"), precision_recall_f1(0, 0, n_gold)
    best = int(np.argmax(f1))
    return float(scores[order][best]), precision_recall_f1(int(tp[best]), best + 1, n_gold)


def evaluate_mining(src: np.ndarray, trg: np.ndarray, score: np.ndarray, gold: np.ndarray,
                    n_src: int, seed: int = 0) -> dict:
    """Tune the threshold on one half of the source sentences, report P/R/F1 on the other."""
    gold_set = {(int(s), int(t)) for s, t in gold}
    correct = np.fromiter(((int(s), int(t)) in gold_set for s, t in zip(src, trg, strict=True)),
                          dtype=bool, count=len(src))
    half = halves(n_src, gold[:, 0], seed)
    cand_half, gold_half = half[src], half[gold[:, 0]]
    n_tune, n_test = int((gold_half == 0).sum()), int((gold_half == 1).sum())
    tune = cand_half == 0
    threshold, tune_prf = best_threshold(score[tune], correct[tune], n_tune)
    test = cand_half == 1
    accepted = test & (score >= threshold)
    test_prf = precision_recall_f1(int(correct[accepted].sum()), int(accepted.sum()), n_test)
    _, oracle = best_threshold(score[test], correct[test], n_test)
    return {"threshold": threshold, "gold_tune": n_tune, "gold_test": n_test,
            "tune": tune_prf, "test": test_prf, "oracle_test_f1": oracle["f1"],
            "candidates": int(len(src))}


@register
class BUCC(Task):
    """BUCC 2018 de-en and fr-en mining F1 on the sample-gold sets."""

    name = "bucc"
    title = "BUCC 2018 bitext mining"
    paper = "2019 §3.4, Table 3"
    notes = (
        "Ratio margin over k = 4 nearest neighbours (faiss, cosine), max-score candidates, "
        "each sentence used at most once.",
        "Only the BUCC sample-gold sets exist here: the source sentences are split in two "
        "halves with a fixed seed; the score threshold is chosen for the best F1 on the first "
        "half's gold pairs, and precision / recall / F1 are reported on the other half. "
        "'oracle' is the F1 the second half would reach with its own best threshold.",
    )

    def load(self) -> dict[str, Any]:
        return load_sets(list(PAIRS), lambda p: read_bucc(self.settings.data, p))

    def languages(self, set_name: str, data: BuccSet) -> tuple[str, ...]:
        return (set_name.split("-")[0], "en")

    def run_set(self, model: EvalModel, set_name: str, data: BuccSet) -> dict:
        src_lang = set_name.split("-")[0]
        x = encode_texts(model, data.src, src_lang, self.settings)
        y = encode_texts(model, data.trg, "en", self.settings)
        src, trg, score = mine(x, y, self.settings.bucc_k)
        result = evaluate_mining(src, trg, score, data.gold, len(data.src), self.settings.seed)
        return {"n_src": len(data.src), "n_trg": len(data.trg), "n_gold": int(len(data.gold)),
                "k": self.settings.bucc_k, **result}
