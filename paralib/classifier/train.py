"""Training of the reference/translation classifiers (2017 §5.6.1, Table 8).

For each encoder (AVG, LSTM) a grid over the L2 weight on the word embeddings (the paper's
{1e-5, 1e-6, 1e-7, 1e-8, 0}) and the choice of negative (random or hardest hypothesis) is
trained with cross entropy, 10 epochs of Adam at 0.001 and mini-batches of 100; the setting
with the best dev accuracy is kept and reported on test, overall and per class.
"""

from __future__ import annotations

import copy
import json
import logging
import time
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from torch import nn

from paralib.classifier.data import Split, make_splits
from paralib.classifier.model import METRICS_FILE, NetConfig, RefClassifierNet, ReferenceClassifier
from paralib.classifier.vocab import Vocab

log = logging.getLogger(__name__)

L2_GRID = (1e-5, 1e-6, 1e-7, 1e-8, 0.0)
NEGATIVES = ("random", "hardest")


def _examples(split: Split, negatives: list[str]) -> tuple[list[str], np.ndarray]:
    texts = split.refs + negatives
    labels = np.r_[np.ones(len(split.refs)), np.zeros(len(negatives))].astype(np.int64)
    return texts, labels


def accuracy(clf: ReferenceClassifier, split: Split, negatives: list[str]) -> dict[str, float]:
    """Accuracy overall, on references (label 1) and on translations (label 0): Table 8."""
    texts, labels = _examples(split, negatives)
    pred = (clf.predict_proba(texts) > 0.5).astype(np.int64)
    ok = pred == labels
    return {"acc": float(ok.mean()), "acc_ref": float(ok[labels == 1].mean()),
            "acc_trans": float(ok[labels == 0].mean())}


def fit_one(train: Split, dev: Split, dev_neg: list[str], vocab: Vocab, net_cfg: NetConfig,
            l2: float, negative: str, epochs: int, lr: float, batch_size: int,
            seed: int) -> tuple[ReferenceClassifier, dict[str, float]]:
    """Train one classifier; returns it with its dev accuracy after the last epoch.

    The L2 term is ``l2 * ||W - W_init||^2`` on the word embeddings (the λw of 2017 §4).
    """
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = RefClassifierNet(net_cfg)
    clf = ReferenceClassifier(net, vocab)
    init = net.emb.weight.detach().clone()
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(epochs):
        texts, labels = _examples(train, train.hardest_negatives(clf.predict_proba(train.hyps))
                                  if negative == "hardest" else train.random_negatives(rng))
        net.train()
        order = rng.permutation(len(texts))
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            ids, lengths = vocab.encode([texts[i] for i in rows], net_cfg.max_len)
            loss = loss_fn(net(ids, lengths), torch.from_numpy(labels[rows]))
            if l2:
                loss = loss + l2 * (net.emb.weight - init).pow(2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
    return clf, accuracy(clf, dev, dev_neg)


def train_classifier(
    pairs: pd.DataFrame,
    out_dir: str | Path,
    encoders: tuple[str, ...] = ("avg", "lstm"),
    l2_grid: tuple[float, ...] = L2_GRID,
    negatives: tuple[str, ...] = NEGATIVES,
    epochs: int = 10,
    lr: float = 0.001,
    batch_size: int = 100,
    max_fraction: float = 0.25,
    seed: int = 0,
    threads: int | None = None,
) -> dict:
    """Train the reference/translation classifiers of 2017 §5.6.1 on candidate pairs.

    ``pairs`` has ``id`` (and ``corpus``), ``ref`` and ``trans`` (every hypothesis of the
    k-best lists). At most ``max_fraction`` of the references are held out (the paper's 50,000
    of 190,000 is about a quarter) and split 40,000 / 5,000 / 5,000 (8:1:1 when smaller). Writes to
    ``out_dir``: one model folder per encoder, ``metrics.json`` (Table 8 rows, the grid, the
    best encoder on dev) and ``heldout.parquet`` (corpus/id of the held-out references, to
    leave out of mining). Returns the metrics.
    """
    bad = [n for n in negatives if n not in NEGATIVES]
    if bad or not negatives or not encoders or not l2_grid:
        raise ValueError(f"negatives must be a non-empty subset of {NEGATIVES}; encoders and "
                         "l2_grid must not be empty")
    if threads:
        torch.set_num_threads(threads)
    t0 = time.time()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    splits = make_splits(pairs, max_fraction, seed)
    train, dev, test = splits["train"], splits["dev"], splits["test"]
    vocab = Vocab.build(train.refs + train.hyps)
    rng = np.random.default_rng(seed + 1)
    dev_neg, test_neg = dev.random_negatives(rng), test.random_negatives(rng)
    split_counts = {k: len(v.refs) for k, v in splits.items()}
    metrics: dict = {"split": split_counts, "vocab": len(vocab), "models": {}}
    for encoder in encoders:
        net_cfg = NetConfig(encoder, len(vocab))
        best: tuple[float, ReferenceClassifier | None, dict] = (-1.0, None, {})
        grid = []
        for l2, negative in product(l2_grid, negatives):
            clf, dev_acc = fit_one(train, dev, dev_neg, vocab, net_cfg, l2, negative, epochs, lr,
                                   batch_size, seed)
            grid.append({"l2": l2, "negative": negative, "dev": dev_acc})
            log.info("classifier %s l2=%g %s: dev acc %.3f", encoder, l2, negative,
                     dev_acc["acc"])
            if dev_acc["acc"] > best[0]:
                best = (dev_acc["acc"], copy.deepcopy(clf), grid[-1])
        clf, chosen = best[1], best[2]
        result = {**chosen, "test": accuracy(clf, test, test_neg), "grid": grid}
        clf.info = {k: result[k] for k in ("l2", "negative", "dev", "test")}
        clf.info.update(split=split_counts, epochs=epochs, lr=lr, batch_size=batch_size)
        clf.save(out / encoder)
        metrics["models"][encoder] = result
    metrics["best"] = max(metrics["models"], key=lambda e: metrics["models"][e]["dev"]["acc"])
    metrics["seconds"] = round(time.time() - t0, 1)
    heldout = pd.concat([s.keys.assign(split=name) for name, s in splits.items()],
                        ignore_index=True)
    heldout.to_parquet(out / "heldout.parquet", index=False)
    (out / METRICS_FILE).write_text(json.dumps(metrics, indent=2))
    return metrics
