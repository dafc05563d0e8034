"""Ship a translation model trained by ``paralib mt train`` as ``models/NAME`` with its card,
the shipped model it replaces scored beside it (issue "Bitext at scale", item 4).

The card is the run's own (``<run>/ct2-int8/README.md``: data, decontamination, size,
training) plus a table of sacreBLEU and chrF on the news test set and on Multi30k test 2016
for the old and the new model, both measured in one run of ``benchmarks/mt_news.py`` (its
``benchmarks/results/mt-news.json``), and the commands that reproduce the model.

    OMP_NUM_THREADS=2 python benchmarks/mt_news.py --models models/de-en \\
        runs/mt-news-de-en/ct2-int8 ...
    python scripts/ship_mt.py runs/mt-news-de-en de-en --config configs/mt-news-de-en.yaml
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from paralib.models.folder import check_replaceable, mark, replace_with

ROOT = Path(__file__).resolve().parent.parent
FILES = ("model.bin", "config.json", "shared_vocabulary.json", "source.spm", "target.spm",
         "paralib.json")


def comparison(results: dict, old: str, new: str) -> str:
    """Markdown rows of ``mt-news.json`` for the old and the new model."""
    lines = ["| model | test set | sentences | sacreBLEU | chrF |", "|---|---|---|---|---|"]
    for label, key in (("before (caption-trained)", old), ("**this model**", new)):
        for r in results["results"]:
            if r["model"] == key:
                lines.append(f"| {label} | {r['test_set']} | {r['sentences']} | {r['bleu']} | "
                             f"{r['chrf']} |")
    setup = results["setup"]
    lines += ["", f"Beam {setup['beam']}, CTranslate2 int8 on {setup['threads']} CPU threads, "
              f"{setup['bleu']}; measured {results['machine']['date']} by "
              "`OMP_NUM_THREADS=2 python benchmarks/mt_news.py` (the `models/` folder before "
              "this one replaced it, and this model, in one run)."]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path, help="the run folder (mt.output)")
    ap.add_argument("name", help="models/NAME")
    ap.add_argument("--config", required=True, help="the config that trained it")
    ap.add_argument("--results", type=Path, default=ROOT / "benchmarks/results/mt-news.json")
    args = ap.parse_args()

    src = args.run / "ct2-int8"
    dst = ROOT / "models" / args.name
    results = json.loads(args.results.read_text())
    new_key = str((src).resolve().relative_to(ROOT))
    table = comparison(results, f"models/{args.name}", new_key)
    if "this model" not in table:
        raise SystemExit(f"{args.results} has no row for {new_key}: run benchmarks/mt_news.py")
    meta = json.loads((src / "paralib.json").read_text())
    card = (src / "README.md").read_text().rstrip() + "\n\n"
    card += "## Before and after, on news and on captions\n\n" + table + "\n\n"
    card += ("## Reproduce\n\n"
             f"    paralib mt train --config {args.config}\n\n"
             "trains, converts and scores in one go (on a GPU when there is one, "
             "`mt.device: auto`). This model was made in three steps, because the GPU machine "
             "had no copy of the data: `paralib mt train --prepare-only` here (2 cores), "
             "`paralib mt train --no-convert` with the run's `mt-config.yaml` on one NVIDIA "
             "H200 (the three news models at once, sharing it), `python scripts/mt_device.py "
             "pack` there and `unpack` here (the weights crossed as float16 and were restored "
             "as float32), then `paralib mt finish` here.\n")
    if meta.get("weights_transfer"):
        card += f"\nWeights: {meta['weights_transfer']}.\n"
    check_replaceable(dst)  # only a model folder paralib made is replaced
    tmp = Path(tempfile.mkdtemp(dir=dst.parent, prefix=".paralib-"))
    for f in FILES:
        shutil.copy(src / f, tmp / f)
    (tmp / "README.md").write_text(card)
    mark(tmp)
    replace_with(tmp, dst)
    print(f"shipped {dst}")


if __name__ == "__main__":
    main()
