"""``paralib quickstart``: the main job on the embedded default (this machine, shared data).

1. back-translate the Multi30k German training sentences with the shipped German→English
   model into candidate paraphrase pairs (2017 §3);
2. train the KenLM language models and the reference/translation classifiers on held-out
   references (2017 §5.6, §5.6.1);
3. score every candidate pair (length, cost, overlap, BLEU, duplicates, LM, P(reference),
   paraphrase score; 2017 §5.5-5.7, 2018 §3.2);
4. select a training set (bounds, one hypothesis per reference, a fixed-size sample);
5. write the analysis report (2017 Tables 9-11);
6. train an SP encoder on the selected pairs with Ray Train (2019 §2) and print its STS
   Benchmark dev and test Pearson.
"""

from __future__ import annotations

import json
import time

from paralib.analysis.run import run_analyze
from paralib.classifier.run import run_classifier
from paralib.config import Config
from paralib.filters.stage import score
from paralib.io.shards import read_output
from paralib.lm.run import run_lm
from paralib.select import run_select
from paralib.train.dev import stsb_pearson
from paralib.train.run import train
from paralib.translate.backtranslate import backtranslate
from paralib.translate.translator import model_info

STEPS = 6


def _step(k: int, text: str) -> float:
    print(f"\n[{k}/{STEPS}] {text}", flush=True)
    return time.perf_counter()


def quickstart(cfg: Config, progress: bool = True) -> dict:
    """Run every stage of the quickstart and print what it did and where the output is."""
    t0 = time.perf_counter()
    s3 = cfg.s3.options()
    info = model_info(cfg.backtranslate.model)
    _step(1, f"back-translating with {cfg.backtranslate.model} "
             f"({info.get('src_lang', '?')}→{info.get('tgt_lang', '?')}, "
             f"BLEU {info.get('bleu_int8', 'n/a')} on Multi30k test 2016)")
    bt = backtranslate(cfg, progress=progress)
    print(bt.text())
    sample = read_output(cfg.backtranslate.output, "data", s3).slice(0, 4).to_pylist()
    print("some candidate paraphrases (reference ||| back-translation, cost):")
    for row in sample:
        print(f"  {row['ref']} ||| {row['trans']}  ({row['cost']:.3f}, rank {row['rank']})")

    _step(2, "language models and reference/translation classifiers on held-out references")
    lm = run_lm(cfg.lm, s3)
    print(f"KenLM {cfg.lm.order}-gram on {lm['references']} held-out references: {lm['models']}")
    clf = run_classifier(cfg.classifier, s3)
    for name, acc in clf["test"].items():
        print(f"classifier {name}: test accuracy {acc['acc']:.3f} (references "
              f"{acc['acc_ref']:.3f}, translations {acc['acc_trans']:.3f})")

    _step(3, "scoring every candidate pair")
    sc = score(cfg, progress=progress)
    print(sc.text())

    _step(4, "selecting a training set")
    sel = run_select(cfg.select, s3)
    for st in sel["steps"]:
        print(f"  {st['step']}: {st['kept']} rows kept")
    print(f"selected {sel['rows_out']} pairs: {sel['files']['pairs']}")

    _step(5, "analysis report")
    report = run_analyze(cfg.analyze, s3)

    _step(6, "training an SP encoder on the selected pairs with Ray Train")
    trained = train(cfg, progress=progress)
    stsb = stsb_pearson(trained["model"])
    for h in trained["history"]:
        print(f"  epoch {h['epoch']}: loss {h['loss']:.4f}, STS Benchmark dev "
              f"{h['dev_pearson']:.1f}, {h['pairs_per_s']:.0f} pairs/s")
    print(f"model {trained['model']} (best epoch {trained['best_epoch']}): STS Benchmark "
          f"Pearson x100 dev {stsb['dev']:.1f}, test {stsb['test']:.1f}")
    elapsed = time.perf_counter() - t0
    summary = {"seconds": round(elapsed, 1), "backtranslate": bt.rows_out,
               "candidates": bt.hypotheses, "scored": sc.rows_out,
               "selected": sel["rows_out"], "report": str(report),
               "model": trained["model"], "stsb_dev": round(stsb["dev"], 2),
               "stsb_test": round(stsb["test"], 2)}
    print(f"\nquickstart finished in {elapsed:.0f}s: {json.dumps(summary)}")
    print(f"open {report}")
    return summary
