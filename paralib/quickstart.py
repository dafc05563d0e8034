"""``paralib quickstart``: the main job on the embedded default (this machine, shared data).

Stage 1 (2017 §3): back-translate the Multi30k German training sentences with the shipped
German→English model into candidate paraphrase pairs, then show a few of them.
"""

from __future__ import annotations

import time

from paralib.config import Config
from paralib.io.shards import read_output
from paralib.translate.backtranslate import backtranslate
from paralib.translate.translator import model_info


def quickstart(cfg: Config, progress: bool = True) -> dict:
    """Run every stage of the quickstart and print what it did and where the output is."""
    t0 = time.perf_counter()
    info = model_info(cfg.backtranslate.model)
    print(f"[1/1] back-translating with {cfg.backtranslate.model} "
          f"({info.get('src_lang', '?')}→{info.get('tgt_lang', '?')}, "
          f"BLEU {info.get('bleu_int8', 'n/a')} on Multi30k test 2016)")
    report = backtranslate(cfg, progress=progress)
    print(report.text())
    table = read_output(cfg.backtranslate.output, "data", cfg.s3.options())
    sample = table.slice(0, min(6, table.num_rows)).to_pylist()
    print("\nsome candidate paraphrases (reference ||| back-translation, cost):")
    for row in sample:
        print(f"  {row['ref']} ||| {row['trans']}  ({row['cost']:.3f}, rank {row['rank']})")
    elapsed = time.perf_counter() - t0
    print(f"\nquickstart finished in {elapsed:.0f}s; candidate pairs in "
          f"{cfg.backtranslate.output}/data")
    return {"backtranslate": report, "seconds": elapsed}
