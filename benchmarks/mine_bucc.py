"""``paralib mine`` on the BUCC 2018 sample-gold sets, scored as ``paralib evaluate`` scores BUCC.

For each pair (de-en, fr-en) the two corpora are written as text files (one sentence a line,
in the loader's order: line i + 1 is BUCC row i) and mined by ``paralib mine``
(:func:`paralib.mine.stage.run`) with ``--model`` (default the shipped
``models/paralib-en``): the text is encoded by ``paralib encode`` on Ray Data actors, the
exact index (``IndexFlatIP``, as the evaluation's), k = 4, every candidate kept (no
threshold). The candidates go through the evaluation's own protocol
(:func:`paralib.evaluate.bucc.evaluate_mining`: the threshold that maximises F1 on one half
of the source sentences, precision / recall / F1 on the other, seed 0), next to the BUCC
task of ``paralib evaluate`` run here on the same model (2019 §3.4, Table 3; ratio margin
after Artetxe & Schwenk 2019). The vectors ``paralib mine`` stored are then mined again with
the approximate indexes (IVF, HNSW) to show what they cost in F1 and time.

Writes ``benchmarks/results/mine_bucc.json``.

    python -m benchmarks mine_bucc [--model DIR] [--pairs de-en,fr-en]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import table, write_json
from paralib.paths import data_root, models_root


def candidates(out: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BUCC rows of the mined source and target sentences, and their margins, best first."""
    from paralib.io.shards import read_output

    data = read_output(str(out)).to_pandas().sort_values("margin", ascending=False,
                                                         kind="stable")

    def rows(ids):
        return np.array([int(i.rsplit(":", 1)[1]) - 1 for i in ids], dtype=np.int64)

    return rows(data["src_id"]), rows(data["ref_id"]), data["margin"].to_numpy()


def mine_pair(pair: str, bucc, model: str, work: Path, index: str, vectors: Path | None):
    """Run ``paralib mine`` on one pair (text, or the stored vectors); its result and out."""
    from paralib.config import load_config
    from paralib.io.context import StageContext
    from paralib.mine.stage import run as mine

    src_lang = pair.split("-")[0]
    out = work / f"{pair}-{index}"
    if vectors is None:
        (work / f"{pair}.{src_lang}").write_text("\n".join(bucc.src) + "\n", encoding="utf-8")
        (work / f"{pair}.en").write_text("\n".join(bucc.trg) + "\n", encoding="utf-8")
        src, tgt = work / f"{pair}.{src_lang}", work / f"{pair}.en"
    else:
        src, tgt = vectors / "src", vectors / "tgt"
    cfg = load_config(None, [f"mine.src={src}", f"mine.tgt={tgt}", f"mine.src_lang={src_lang}",
                             "mine.tgt_lang=en", f"mine.output={out}", f"mine.index={index}",
                             "mine.k=4", f"encode.model={model}", "encode.max_chars=1000000"])
    return mine(cfg.mine, StageContext.of(cfg, progress=False)), out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(models_root() / "paralib-en"))
    ap.add_argument("--pairs", default="de-en,fr-en")
    ap.add_argument("--seed", type=int, default=0, help="the evaluation's split seed")
    args = ap.parse_args(argv)
    from paralib.evaluate.bucc import BUCC, evaluate_mining
    from paralib.evaluate.common import Settings
    from paralib.evaluate.encoders import load_model_folder
    from paralib.evaluate.loaders import read_bucc

    settings = Settings(data=data_root(), seed=args.seed, progress=False)
    model = load_model_folder(args.model, Path(args.model).name)
    rows: list[dict] = []
    work = Path(tempfile.mkdtemp(prefix="paralib-mine-bucc-"))
    try:
        for pair in [p.strip() for p in args.pairs.split(",") if p.strip()]:
            bucc = read_bucc(settings.data, pair)
            t = time.perf_counter()
            ev = BUCC(settings).run_set(model, pair, bucc)
            ev_s = time.perf_counter() - t
            test = ev["test"]
            rows.append({"pair": pair, "system": "paralib evaluate (BUCC task)",
                         "index": "flat", "candidates": ev["candidates"],
                         "threshold": round(ev["threshold"], 4),
                         "P": round(test["precision"], 2), "R": round(test["recall"], 2),
                         "F1": round(test["f1"], 2), "seconds": round(ev_s, 1),
                         "f1_exact": test["f1"]})
            vectors = None
            for index in ("flat", "ivf", "hnsw"):
                res, out = mine_pair(pair, bucc, args.model, work, index, vectors)
                if vectors is None:
                    vectors = out / "embeddings"
                src, trg, score = candidates(out)
                got = evaluate_mining(src, trg, score, bucc.gold, len(bucc.src), args.seed)
                info = res.info
                rows.append({
                    "pair": pair, "system": "paralib mine" + (" (from text)" if index == "flat"
                                                             else " (stored vectors)"),
                    "index": "/".join(_kind(info["indexes"][d]) for d in ("forward",
                                                                          "backward")),
                    "candidates": got["candidates"], "threshold": round(got["threshold"], 4),
                    "P": round(got["test"]["precision"], 2), "R": round(got["test"]["recall"], 2),
                    "F1": round(got["test"]["f1"], 2), "seconds": info["seconds"]["total"],
                    "f1_exact": got["test"]["f1"], "mine_seconds": info["seconds"]["mine"],
                    "rejected_lines": sum(info[s].get("encode", {}).get("rows_rejected", 0)
                                          for s in ("src", "tgt")),
                    "same_f1_as_evaluate": got["test"]["f1"] == ev["test"]["f1"]})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    cols = ["pair", "system", "index", "candidates", "threshold", "P", "R", "F1", "seconds"]
    print(f"BUCC 2018 sample-gold, model {args.model}; P/R/F1 x 100 on the report half")
    print(table(rows, cols))
    for r in rows:
        if r["system"].endswith("(from text)"):
            print(f"{r['pair']}: paralib mine F1 {'==' if r['same_f1_as_evaluate'] else '!='} "
                  "paralib evaluate F1")
    path = write_json("mine_bucc", {"model": args.model, "rows": rows})
    print(f"wrote {path}")


def _kind(info: dict) -> str:
    extra = {"ivf": f"({info.get('nlist')}/{info.get('nprobe')})",
             "hnsw": f"(M={info.get('m')})"}.get(info["kind"], "")
    return info["kind"] + extra
