"""Why the recurrent encoders start next to a constant encoder: their initial dev cosines
against the scale of the word-embedding initialisation and the LSTM's biases.

Word embeddings start uniform in ±``init_scale`` (0.1 by default, ``PartConfig``); PyTorch's
LSTM starts its weights and both bias vectors uniform in ±1/√hidden. For each encoder (the
word-token LSTM, BLSTM and GRAN of experiments 7 and 8, width ``--dim`` (300), vocabulary
fitted on ``--pairs`` (5,000) Multi30k task-2 caption pairs, seed 1) and each start:

- ``default``: ``init_scale`` 0.1;
- ``wide``: ``init_scale`` 1.0 (ten times wider embeddings);
- ``no_bias``: ``init_scale`` 0.1 with the LSTM's bias vectors set to zero,

this script gives the STS Benchmark dev cosines' mean and standard deviation and dev r
before any training, and, for the LSTM's gate pre-activations ``W_ih x + b_ih + b_hh``, the
standard deviation of the part that depends on the word (``input_sd``: ``W_ih x`` over the
vocabulary's embeddings, each gate unit) and of the part that does not (``bias_sd``): where
the biases outweigh the words, every sentence drives the recurrence alike and the mean hidden
state is nearly the same vector for all of them (cosines near 1). Takes seconds; writes
``benchmarks/results/recurrent_start.json``.

    python -m benchmarks recurrent_start [--dim 300] [--pairs 5000]
"""

from __future__ import annotations

import argparse

from benchmarks.common import table, write_json

ENCODERS = ["lstm", "blstm", "gran"]
STARTS = {"default": (0.1, False), "wide": (1.0, False), "no_bias": (0.1, True)}


def start_row(encoder: str, start: str, dim: int, pairs: int, dev) -> dict:
    """The initial dev cosines and gate parts of one encoder started one way."""
    import torch

    from paralib.config import Config
    from paralib.io.context import StageContext
    from paralib.models.model import ParaphraseModel
    from paralib.train.dev import score_dev
    from paralib.train.run import prepare

    scale, no_bias = STARTS[start]
    cfg = Config.model_validate({"train": {
        "sources": [{"kind": "captions", "limit": pairs}], "dev": "none",
        "model": {"parts": [{"name": encoder, "dim": dim, "init_scale": scale}]}}})
    _, _, tokenizers = prepare(cfg.train, StageContext.of(cfg))
    torch.manual_seed(1)
    model = ParaphraseModel(cfg.train.model, tokenizers)
    model.initialise()
    enc = model.parts[0]
    rnn = enc.rnn
    with torch.no_grad():
        if no_bias:
            for name, p in rnn.named_parameters():
                if name.startswith("bias"):
                    p.zero_()
        words = enc.embedding.weight[1:]  # every row but padding
        input_sd = (words @ rnn.weight_ih_l0.T).std().item()
        bias_sd = (rnn.bias_ih_l0 + rnn.bias_hh_l0).std().item()
    model.eval()
    scores = score_dev(model, dev)
    return {"encoder": encoder, "start": start, "init_scale": scale,
            "dev_cos": f"{scores['dev_cos_mean']:.4f} ± {scores['dev_cos_sd']:.4f}",
            "dev_r": round(scores["dev_pearson"], 1), "input_sd": round(input_sd, 4),
            "bias_sd": round(bias_sd, 4), "raw": scores}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--pairs", type=int, default=5000)
    args = ap.parse_args(argv)
    import torch

    from paralib.train.dev import load_dev

    torch.set_num_threads(1)
    dev = load_dev("stsb-dev")
    rows = [start_row(e, s, args.dim, args.pairs, dev) for e in ENCODERS for s in STARTS]
    print(table(rows, ["encoder", "start", "init_scale", "dev_cos", "dev_r", "input_sd",
                       "bias_sd"]))
    path = write_json("recurrent_start", {"args": vars(args),
                                          "rows": rows})
    print(f"wrote {path}")
