"""Back-translated English paraphrases against bitext, at scale: the 2019 paper's question
(Wieting et al., ACL 2019, §3.2 and Table 1) at 1M training pairs, with ParaNMT's own
selection (2018 §3).

Three arms, each ``--pairs`` pairs drawn (seed ``train.seed``) before training-time
decontamination, one encoder recipe (the shipped ``configs/paralib-en.yaml``: SP 20k, dim 300,
word dropout 0.3, margin loss with group-aware hardest negatives in mega-batches annealed to
20, ``--epochs`` epochs, best epoch on STSB dev), trained in this process
(``engine: local``):

- ``back-translation``: English reference beside each selected k-best English hypothesis of
  its German or Czech source (``paralib backtranslate``, ``score``, ``select`` with
  ``configs/bt-scale-de.yaml`` and ``bt-scale-cs.yaml``: 1,043,338 pairs), drawn in
  proportion to the two;
- ``bitext``: X-English pairs of ``output/bitext-all`` (every language; the English Bible
  versions left out, ``exclude_langs: [en]``);
- ``both``: half of each.

Every arm is decontaminated at training time (``train.decontaminate``, against every
evaluation set). Evaluated on STS 2012-2016, STSB, SICK-R and STS 2017 (Pearson's r x 100)
beside the seeds' numbers.

    python -m benchmarks bt_vs_bitext [--pairs 1000000] [--epochs 2] [--arms bt,bitext,both]

Writes ``benchmarks/results/bt_vs_bitext.json`` and prints the table.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from benchmarks.common import table, write_json
from benchmarks.quality import row

ROOT = Path(__file__).resolve().parent.parent
BT = {"de": "output/bt-scale-de/select/pairs.parquet",
      "cs": "output/bt-scale-cs/select/pairs.parquet"}
BITEXT = "output/bitext-all"
COLUMNS = ["arm", "pairs", "seconds", "best epoch", "year mean", "all-24", "STSB dev",
           "STSB test", "SICK-R", "STS17 en-en", "STS17 es-en", "STS17 ar-en", "STS17 tr-en"]
# The seeds' numbers (STS 2012-2016 mean of years, Pearson x 100)
PAPERS = {
    "2019 Table 1, SP (20k), 1M en-en back-translated": 69.7,
    "2019 Table 1, SP (20k), 1M en-cs bitext": 70.0,
    "2019 Table 1, SP (20k), 2M en-cs bitext": 71.0,
    "2018 Tables 8-9, ParaNMT-50M WORD,TRIGRAM (5M pairs)": 73.3,
}


def bt_rows() -> dict[str, int]:
    """Selected back-translated pairs of each language."""
    import pyarrow.parquet as pq

    return {lang: pq.ParquetFile(ROOT / path).metadata.num_rows for lang, path in BT.items()}


def sources(arm: str, pairs: int) -> list[dict]:
    """The training sources of one arm: ``pairs`` in all."""
    have = bt_rows()
    share = pairs if arm == "bt" else pairs // 2 if arm == "both" else 0
    out = [{"kind": "pairs", "path": str(ROOT / BT[lang]),
            "sample": min(have[lang], round(share * have[lang] / sum(have.values())))}
           for lang in BT if share]
    if arm != "bt":
        out.append({"kind": "corpus", "path": str(ROOT / BITEXT), "exclude_langs": ["en"],
                    "sample": pairs - share})
    return out


def train_arm(arm: str, pairs: int, epochs: int, out: Path) -> dict:
    """Train one arm; its training summary."""
    from paralib.config import Config
    from paralib.io.context import StageContext
    from paralib.train.run import train

    cfg = Config.model_validate({"train": {
        "sources": sources(arm, pairs), "decontaminate": True,
        "model": {"parts": [{"name": "sp", "vocab_size": 20_000, "dim": 300}]},
        "regularisation": {"word_dropout": 0.3},
        "megabatch": {"size": 20, "start": 1, "anneal_every": 150}, "epochs": epochs,
        "dev": "stsb-dev", "vocab_sample": 2_000_000, "cpus_per_worker": os.cpu_count() or 1,
        "output": str(out), "name": f"bt-vs-bitext-{arm}"}})
    t0 = time.perf_counter()
    summary = train(cfg.train, StageContext.of(cfg, progress=True), engine="local")
    return {"seconds": round(time.perf_counter() - t0, 1), "pairs": summary.pairs,
            "best_epoch": summary.best_epoch, "sources": cfg.train.model_dump()["sources"]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--arms", default="bt,bitext,both")
    ap.add_argument("--models", default=str(ROOT / "output/bt-vs-bitext"),
                    help="folder of the trained models (one per arm)")
    ap.add_argument("--name", default="bt_vs_bitext")
    args = ap.parse_args(argv)
    missing = [p for p in [*BT.values(), BITEXT] if not (ROOT / p).exists()]
    if missing:
        raise SystemExit(f"missing inputs: {', '.join(missing)}; make them with the commands "
                         "in configs/bt-scale-de.yaml, bt-scale-cs.yaml and bitext-all.yaml")
    from paralib.evaluate.common import Settings
    from paralib.evaluate.encoders import load_model_folder
    from paralib.evaluate.run import Evaluation, evaluate
    from paralib.io.context import StageContext
    from paralib.paths import data_root

    arms = [a for a in args.arms.split(",") if a]
    trained = {arm: train_arm(arm, args.pairs, args.epochs, Path(args.models) / arm)
               for arm in arms}
    models = {arm: load_model_folder(Path(args.models) / arm, arm) for arm in arms}
    report = evaluate(Evaluation(models, ["sts", "stsb", "sick", "sts17"],
                                 settings=Settings(data=data_root())),
                      StageContext(progress=False))
    rows = []
    for arm in arms:
        r = row(report, arm)
        rows.append({"arm": arm, "pairs": trained[arm]["pairs"],
                     "seconds": trained[arm]["seconds"],
                     "best epoch": trained[arm]["best_epoch"],
                     **{c: round(r[c], 1) for c in COLUMNS[4:]}})
    print(table(rows, COLUMNS))
    for what, value in PAPERS.items():
        print(f"{what}: {value}")
    path = write_json(args.name, {"pairs": args.pairs, "epochs": args.epochs, "rows": rows,
                                  "trained": trained, "papers": PAPERS,
                                  "back_translated_available": bt_rows()})
    print(f"wrote {path}")
