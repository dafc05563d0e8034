"""Which negatives collapse which encoder: one pass of ``MegaBatchTrainer`` per setting, the dev
cosines' spread and dev r before and after (``paralib.train.epoch`` explains the collapse).

Settings (2018 §5.2: batch 100, margin 0.4, Adam 0.001, mega-batch M = 1, no scrambling):

- the word-token LSTM (width ``--dim``, 100) and WORD on ``--pairs`` (30,000) Multi30k task-2
  caption pairs, the data of experiments 7 and 8, each with hardest (``max``), random
  (``rand``) and alternating (``mix``) negatives;
- the BLSTM-SP (width 64, dropout 0.3, 8,000 pieces) on ``--bitext-pairs`` (10,000)
  German-English Multi30k pairs, bilingual negatives (2019 §2), the setting of experiment 9's
  bitext rows, and on as many of experiment 9's back-translated pairs (``--backtranslated``),
  each with ``max`` and ``rand``.

Before training, ``partner_cos`` and ``hardest_cos`` are the mean cosines of each sentence
with its partner and with its hardest negative in its mini-batch, over the first 2,000 pairs:
where the hardest negative is the closer one, a constant encoder minimises the margin loss.

Dev sets: STS Benchmark dev (captions), STS 2017 en-en (bitext), as in those experiments. The
numbers are of one seed and one pass: they show which settings collapse (dev cosines with a
standard deviation below 0.01), not how well a full run would do. One torch thread. Writes
``benchmarks/results/collapse.json``.

    python -m benchmarks collapse [--pairs 30000] [--bitext-pairs 10000] [--dim 100]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.common import table, write_json

# experiment 9's selection of the quickstart's back-translated German Multi30k
BACKTRANSLATED = ("output/experiments/bitext-vs-backtranslation/full/runs/"
                  "BLSTM-SP-20k-back-translated/selection")


BLSTM_SP = {"name": "blstm-sp", "vocab_size": 8000, "dim": 64, "dropout": 0.3}


def setting(encoder: str, data: str, negatives: str, pairs: int, part: dict, sources: list,
            dev: str, **tree) -> dict:
    """One setting: M = 1, batch 100, margin 0.4, Adam 0.001 (2018 §5.2), seed 1."""
    train = {"batch_size": 100, "margin": 0.4, "lr": 0.001, "seed": 1,
             "megabatch": {"size": 1}, "sources": sources, "negatives": negatives,
             "dev": dev, "model": {"parts": [part]}}
    return {"encoder": encoder, "data": data, "negatives": negatives, "pairs": pairs,
            "tree": {**tree, "train": train}}


def settings(args) -> list[dict]:
    """Every (encoder, data, negatives) setting with its config tree."""
    from paralib.paths import data_root

    m30k = data_root() / "bitext/multi30k/task1/raw"
    bitext = {"inputs": [{"corpus": "multi30k-de", "src_lang": "de",
                          "src": f"{m30k}/train.de.gz", "en": f"{m30k}/train.en.gz"}]}
    out = [setting(name, "captions", neg, args.pairs, {"name": name, "dim": args.dim},
                   [{"kind": "captions"}], "stsb-dev")
           for name in ("lstm", "word") for neg in ("max", "rand", "mix")]
    out += [setting("blstm-sp", "bitext de-en", neg, args.bitext_pairs, BLSTM_SP,
                    [{"kind": "bitext"}], "sts17-en-en", bitext=bitext)
            for neg in ("max", "rand")]
    if args.backtranslated and Path(args.backtranslated).exists():
        out += [setting("blstm-sp", "back-translated", neg, args.bitext_pairs, BLSTM_SP,
                        [{"kind": "pairs", "path": args.backtranslated}], "sts17-en-en")
                for neg in ("max", "rand")]
    else:
        print(f"no back-translated pairs at {args.backtranslated}: their rows are left out "
              "(run `paralib experiment bitext-vs-backtranslation` first)")
    return out


def partner_and_hardest(model, trainer, data) -> tuple[float, float]:
    """Mean cosine of each first sentence with its partner and with its mined hardest
    negative, over the mini-batches of ``data`` before any training step."""
    import torch
    import torch.nn.functional as F

    from paralib.train.batches import pair_batch

    model.eval()
    mode, trainer.cfg.negatives = trainer.cfg.negatives, "max"  # the hardest, whatever trains
    partner, hardest = [], []
    try:
        with torch.no_grad():
            for i in range(0, len(data), 100):
                batch = pair_batch(data.iloc[i:i + 100], model, groups=False)
                if len(batch) < 2:
                    continue
                t1, _ = trainer.mine(batch)
                e1 = model(batch.side1)
                partner.append(F.cosine_similarity(e1, model(batch.side2)).mean().item())
                hardest.append(F.cosine_similarity(e1, model(t1)).mean().item())
    finally:
        trainer.cfg.negatives = mode
        model.train()
    return sum(partner) / len(partner), sum(hardest) / len(hardest)


def measure(setting: dict) -> dict:
    """Train one pass of ``setting`` and return its row."""
    import torch

    from paralib.config import Config
    from paralib.io.context import StageContext
    from paralib.models.model import ParaphraseModel
    from paralib.train.dev import load_dev, score_dev
    from paralib.train.epoch import collapsed
    from paralib.train.run import prepare
    from paralib.train.steps import MegaBatchTrainer, build_optimizer

    cfg = Config.model_validate(setting["tree"])
    prepared = prepare(cfg.train, StageContext.of(cfg))
    data, tokenizers = prepared.data, prepared.tokenizers
    data = data.iloc[: setting["pairs"]]
    torch.manual_seed(cfg.train.seed)
    model = ParaphraseModel(cfg.train.model, tokenizers)
    model.initialise()
    bilingual = bool((data["lang1"] != data["lang2"]).any())
    trainer = MegaBatchTrainer(cfg.train, model, build_optimizer(model, cfg.train.lr),
                               bilingual=bilingual, seed=cfg.train.seed)
    dev = load_dev(cfg.train.dev)
    before = score_dev(model, dev)
    partner, hardest = partner_and_hardest(model, trainer, data.iloc[:2000])
    t0 = time.perf_counter()
    losses = [trainer.train_megabatch([data.iloc[i:i + 100]]) for i in range(0, len(data), 100)]
    seconds = time.perf_counter() - t0
    after = score_dev(model, dev)
    last = losses[-10:]
    return {"encoder": setting["encoder"], "data": setting["data"],
            "negatives": setting["negatives"], "pairs": len(data),
            "cos_before": f"{before['dev_cos_mean']:.4f} ± {before['dev_cos_sd']:.4f}",
            "cos_after": f"{after['dev_cos_mean']:.4f} ± {after['dev_cos_sd']:.4f}",
            "dev_r_before": round(before["dev_pearson"], 1),
            "dev_r_after": round(after["dev_pearson"], 1),
            "partner_cos": round(partner, 4), "hardest_cos": round(hardest, 4),
            "loss_last_10": round(sum(last) / len(last), 4), "collapsed": collapsed(after),
            "seconds": round(seconds, 1), "dev": cfg.train.dev, "raw_before": before,
            "raw_after": after}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=30000)
    ap.add_argument("--bitext-pairs", type=int, default=10000)
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--backtranslated", default=BACKTRANSLATED,
                    help="selected back-translated pairs (a folder of parquet files)")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    rows = []
    for setting in settings(args):
        rows.append(measure(setting))
        print(f"{rows[-1]['encoder']} {rows[-1]['negatives']}: {rows[-1]['cos_after']}",
              flush=True)
    print(table(rows, ["encoder", "data", "negatives", "pairs", "partner_cos", "hardest_cos",
                       "cos_before", "cos_after", "dev_r_before", "dev_r_after",
                       "loss_last_10", "collapsed"]))
    path = write_json("collapse", {"args": vars(args), "rows": rows})
    print(f"wrote {path}")
