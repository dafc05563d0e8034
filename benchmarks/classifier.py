"""Training-step and scoring time of the LSTM reference/translation classifier (2017 §5.6.1)
with PyTorch's packed LSTM kernel against ``paralib``'s unrolled recurrence, on the CPU.

The classifier's LSTM goes through ``run_rnn`` (``paralib.models.encoders.recurrent``), which
unrolls the recurrence on the CPU (``UNROLL_ON_CPU``) and uses the packed kernel otherwise.
This script builds the classifier at its default settings (``NetConfig``: word embeddings and
hidden state of 100, sentences cut at 100 tokens; Adam 0.001, batch 100, cross-entropy, as
``classifier.train.fit_one`` trains it) on English sentences (those of
``benchmarks/encode.py``), labelled at random (speed does not depend on the labels), and
measures, from the same initial weights on the same batches:

- ``train_s_per_step``: the median seconds of ``--steps`` (20) training steps;
- ``score_per_s``: sentences per second of ``predict_proba`` (batches of 512) over
  ``--score`` (10,000) sentences, the scoring stage's use of the classifier.

Packed and unrolled alternate ``--rounds`` (3) times so that load from other work falls on
both. The weights after the steps and the probabilities are compared (largest absolute
difference: float32 rounding). One torch thread. Writes ``benchmarks/results/classifier.json``.

    python -m benchmarks classifier [--steps 20] [--score 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import time

from benchmarks.common import table, write_json
from benchmarks.encode import english_sentences

BATCH = 100


def train_steps(net, vocab, texts: list[str], labels, steps: int) -> list[float]:
    """Seconds of each of ``steps`` training steps of ``net`` (changed in place)."""
    import torch
    from torch import nn

    opt = torch.optim.Adam(net.parameters(), lr=0.001)
    loss_fn = nn.CrossEntropyLoss()
    net.train()
    seconds = []
    for k in range(steps):
        rows = slice(k * BATCH, (k + 1) * BATCH)
        start = time.perf_counter()
        ids, lengths = vocab.encode(texts[rows], net.cfg.max_len)
        loss = loss_fn(net(ids, lengths), labels[rows])
        opt.zero_grad()
        loss.backward()
        opt.step()
        seconds.append(time.perf_counter() - start)
    net.eval()
    return seconds


def measure(net0, vocab, texts, labels, score_texts, unrolled: bool, steps: int):
    """Median step seconds, scoring rate, trained weights and probabilities of one path."""
    from paralib.classifier.model import ReferenceClassifier
    from paralib.models.encoders import recurrent

    recurrent.UNROLL_ON_CPU = unrolled
    net = copy.deepcopy(net0)
    step = statistics.median(train_steps(net, vocab, texts, labels, steps))
    clf = ReferenceClassifier(net, vocab)
    start = time.perf_counter()
    probs = clf.predict_proba(score_texts)
    rate = len(score_texts) / (time.perf_counter() - start)
    return step, rate, net, probs


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--score", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    import numpy as np
    import torch

    from paralib.classifier.model import NetConfig, RefClassifierNet
    from paralib.classifier.vocab import Vocab

    torch.set_num_threads(1)
    sents, sources, _ = english_sentences(max(args.steps * BATCH, args.score))
    vocab = Vocab.build(sents)
    labels = torch.from_numpy(np.random.default_rng(0).integers(0, 2, len(sents)))
    torch.manual_seed(0)
    net0 = RefClassifierNet(NetConfig(encoder="lstm", vocab_size=len(vocab)))
    score_texts = sents[:args.score]
    results: dict[bool, dict[str, list]] = {u: {"step": [], "rate": []} for u in (False, True)}
    for _ in range(args.rounds):
        for unrolled in (False, True):
            step, rate, net, probs = measure(net0, vocab, sents, labels, score_texts,
                                             unrolled, args.steps)
            results[unrolled]["step"].append(step)
            results[unrolled]["rate"].append(rate)
            results[unrolled]["last"] = (net, probs)
    (net_p, prob_p), (net_u, prob_u) = results[False]["last"], results[True]["last"]
    weight_diff = max((a - b).abs().max().item() for a, b in
                      zip(net_p.state_dict().values(), net_u.state_dict().values(), strict=True))
    packed_step = statistics.median(results[False]["step"])
    unrolled_step = statistics.median(results[True]["step"])
    packed_rate = statistics.median(results[False]["rate"])
    unrolled_rate = statistics.median(results[True]["rate"])
    row = {"classifier": "lstm", "parameters": sum(p.numel() for p in net0.parameters()),
           "packed_s_per_step": round(packed_step, 4),
           "unrolled_s_per_step": round(unrolled_step, 4),
           "train_speedup": round(packed_step / unrolled_step, 2),
           "score_packed_per_s": round(packed_rate), "score_unrolled_per_s": round(unrolled_rate),
           "score_speedup": round(unrolled_rate / packed_rate, 2),
           "max_weight_difference": float(f"{weight_diff:.3g}"),
           "max_probability_difference": float(f"{np.abs(prob_p - prob_u).max():.3g}")}
    print(table([row], list(row)))
    path = write_json("classifier", {"args": vars(args),
                                     "sources": sources, "vocabulary": len(vocab),
                                     "load_average_at_end": os.getloadavg()[0], "rows": [row]})
    print(f"wrote {path}")
