"""Learning curve of the cross-lingual scores against the number of bitext pairs of one
language (targets: STS 2017 ar-en, es-en, tr-en >= 60 Pearson x100, Tatoeba >= 90%): are
the targets reachable on the decontaminated bitext here?

For every language (``--langs``, default ar, es, tr) the same recipe is trained on its pairs of
a ``paralib decontaminate`` output (``--data``, default ``output/bitext-all``: ``paralib
decontaminate --config configs/bitext-all.yaml``) subsampled at ``--fractions`` (1/8, 1/4, 1/2,
all; nested draws, seed 1) through the trainer's own source option ``{kind: corpus, langs:
[xx], sample: N}``. The recipe is that of ``configs/paralib-multi-189.yaml`` (2019 §2-3.1) on one
language: SP averaging over one sentencepiece vocabulary of ``--vocab`` pieces fitted on both
sides of the run's pairs, dim 300, word dropout 0.3, margin loss (δ 0.4) with group-aware
hardest negatives, batch 100, Adam 0.001, mega-batch annealed from 1 to 20.

Every run of a language gets the same number of training pairs seen, ``--epochs`` epochs of
all the language's pairs (a subsample of fraction f trains ``round(epochs / f)`` epochs), so
that the amount of data is the only thing that changes along a curve; the mega-batch grows by
one every ``anneal_every`` mini-batches so that it reaches 20 after 15% of the run's
mini-batches (as in paralib-multi: step 2,850 of 18,980). The model kept is the best epoch on
STS Benchmark dev (English); no test set makes any choice. It is trained in this process as
``paralib train``'s worker trains (``prepare``, ``ParaphraseModel``, ``MegaBatchTrainer``),
saved as a model folder and scored by :func:`paralib.evaluate.evaluate` on the suites
``sts17`` (xx-en: track 2 ar-en, 4a es-en, 6 tr-en) and ``tatoeba`` (xx->en, en->xx and their
mean). Per language and metric, score ≈ a + b·log2(pairs) is fitted by least squares and the
pairs each target needs by that fit are reported beside the pairs available.

    nice -n 10 python -m benchmarks crosslingual_curve [--langs ar,es,tr] [--vocab 8000]
    python -m benchmarks crosslingual_curve --smoke --langs de --data PAIRS.parquet --out X.json

Writes ``benchmarks/results/crosslingual_curve.json`` (``--out``) after every run.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import RESULTS, stamp, table

ROOT = Path(__file__).resolve().parent.parent
STS_TARGET = 60.0      # target: STS 2017 ar-en, es-en, tr-en
TATOEBA_TARGET = 90.0  # target: Tatoeba de, fr, es, ru
TATOEBA_TARGET_LANGS = ("de", "fr", "es", "ru")
# Wieting et al. 2019, Table 2 (SP, 1M OpenSubtitles pairs per language)
PAPER_2019 = {"ar": 74.7, "es": 76.4, "tr": 77.2}
METRICS = ("sts17", "tatoeba")


def extract(data: Path, lang: str, out: Path, cap: int | None = None) -> int:
    """The pairs of ``lang`` in ``data`` (a finished decontaminate output folder, or a Parquet
    file of its columns) written to ``out``, the first ``cap`` of them with ``cap``."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    if data.is_dir():
        from paralib.io.shards import stage_files

        files = stage_files(str(data))
        if not files:
            raise SystemExit(f"{data} is not a finished paralib decontaminate output; make "
                             "it with `paralib decontaminate --config configs/bitext-all.yaml`")
    else:
        files = [str(data)]
    got = ds.dataset(files, format="parquet").to_table(
        columns=["ref", "src", "src_lang", "group"], filter=ds.field("src_lang") == lang)
    if cap is not None:
        got = got.slice(0, cap)
    if got.num_rows < 2:
        raise SystemExit(f"{data} holds {got.num_rows} {lang} pair(s)")
    pq.write_table(got, out)
    return got.num_rows


def run_config(path: Path, lang: str, sample: int | None, vocab: int, epochs: int,
               anneal_every: int) -> dict:
    """The ``paralib train`` config of one run (the paralib-multi recipe on one language)."""
    source: dict = {"kind": "corpus", "path": str(path), "langs": [lang]}
    if sample is not None:
        source["sample"] = sample
    return {"train": {
        "sources": [source],
        "model": {"parts": [{"name": "sp", "vocab_size": vocab, "dim": 300}]},
        "regularisation": {"word_dropout": 0.3},
        "loss": "margin", "margin": 0.4, "negatives": "max", "group_negatives": True,
        "megabatch": {"size": 20, "start": 1, "anneal_every": anneal_every},
        "epochs": epochs, "dev": "stsb-dev", "vocab_sample": 2_000_000, "bilingual": True,
        # the corpus is a decontaminate output: train-time decontamination removes nothing
        "decontaminate": False,
    }}


def anneal_for(pairs_seen: int, batch: int = 100, size: int = 20, share: float = 0.15) -> int:
    """Mini-batches per mega-batch increment so that M grows from 1 to ``size`` over the first
    ``share`` of ``pairs_seen`` (paralib-multi: +1 every 150 of 18,980 mini-batches)."""
    return max(1, round(share * math.ceil(pairs_seen / batch) / (size - 1)))


def train_one(tree: dict, threads: int) -> tuple[object, dict | None, dict]:
    """Train one config in this process: the model at its best epoch on STSB dev, the state
    of its last epoch when that is another one (``None`` otherwise), and the run's record."""
    import torch

    from paralib.config import Config
    from paralib.io.context import StageContext
    from paralib.models import ParaphraseModel
    from paralib.train.dev import load_dev, score_dev
    from paralib.train.run import prepare
    from paralib.train.schedule import megabatch_size
    from paralib.train.steps import MegaBatchTrainer, build_optimizer, use_sparse

    torch.set_num_threads(threads)
    torch.manual_seed(1)
    cfg = Config.model_validate(tree)
    t0 = time.perf_counter()
    prepared = prepare(cfg.train, StageContext.of(cfg))
    prepare_s = time.perf_counter() - t0
    model = ParaphraseModel(cfg.train.model, prepared.tokenizers)
    model.initialise()
    optimizer = build_optimizer(model, cfg.train.lr, use_sparse(cfg.train))
    trainer = MegaBatchTrainer(cfg.train, model, optimizer, bilingual=True, seed=cfg.train.seed)
    rows, dev, batch = prepared.table(), load_dev(cfg.train.dev), cfg.train.batch_size
    history, best, best_state, train_s = [], None, None, 0.0
    for epoch in range(cfg.train.epochs):
        order = np.random.default_rng(cfg.train.seed + epoch).permutation(rows.num_rows)
        t0 = time.perf_counter()
        pairs, losses = trainer.train_epoch(
            rows.take(order[i:i + batch]) for i in range(0, len(order), batch))
        train_s += time.perf_counter() - t0
        score = score_dev(model, dev)["dev_pearson"]
        history.append({"epoch": epoch + 1, "pairs": pairs, "loss": float(np.mean(losses)),
                        "megabatches": trainer.state.megabatch,
                        "m": megabatch_size(trainer.state.step, cfg.train.megabatch),
                        "stsb_dev": score})
        if best is None or score > best["stsb_dev"]:
            best, best_state = history[-1], copy.deepcopy(model.state_dict())
    last_state = None if best["epoch"] == cfg.train.epochs else copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    return model, last_state, {"pairs": len(prepared.data), "rejects": len(prepared.rejects),
                   "vocab_pieces": prepared.tokenizers[0].size, "epochs": cfg.train.epochs,
                   "anneal_every": cfg.train.megabatch.anneal_every,
                   "best_epoch": best["epoch"], "stsb_dev": best["stsb_dev"],
                   "history": history, "prepare_s": round(prepare_s, 1),
                   "train_s": round(train_s, 1)}


def scores(model, lang: str, folder: Path) -> dict:
    """STS 2017 (every track the model covers) and Tatoeba ``lang`` of one trained model,
    through :func:`paralib.evaluate.evaluate` on its saved model folder."""
    from paralib.evaluate import Evaluation, evaluate
    from paralib.io.context import StageContext
    from paralib.models.pretrained import save_model

    save_model(model, folder, ("en", lang), {}, f"# crosslingual_curve {folder.name}\n")
    report = evaluate(Evaluation({folder.name: str(folder)}, list(METRICS)),
                      StageContext(progress=False))
    sts = report.tasks["sts17"].models[folder.name].get("sets", {})
    tat = report.tasks["tatoeba"].models[folder.name].get("sets", {}).get(f"{lang}-en", {})
    out = {"sts17_sets": {k: round(v["pearson"], 2) for k, v in sts.items()
                          if v.get("status") == "ok"}}
    out["sts17"] = out["sts17_sets"].get(f"{lang}-en", float("nan"))
    if tat.get("status") == "ok":
        out["tatoeba_xx_en"], out["tatoeba_en_xx"] = tat["xx->en"], tat["en->xx"]
        out["tatoeba"] = (tat["xx->en"] + tat["en->xx"]) / 2
    else:
        out["tatoeba"] = float("nan")
    return out


def fit_curve(pairs: list[int], values: list[float], target: float) -> dict:
    """Least-squares ``value ≈ a + b·log2(pairs)``, its R², and the pairs at which the fit
    reaches ``target`` (``inf`` when the slope is not positive)."""
    x = np.log2(np.asarray(pairs, dtype=float))
    y = np.asarray(values, dtype=float)
    keep = np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) < 2 or np.ptp(x) == 0:
        return {"points": int(len(x)), "a": None, "b": None, "r2": None, "target": target,
                "pairs_needed": None}
    b, a = np.polyfit(x, y, 1)
    resid = y - (a + b * x)
    total = float(((y - y.mean()) ** 2).sum())
    r2 = 1 - float((resid ** 2).sum()) / total if total > 0 else 1.0
    doublings = (target - a) / b if b > 0 else math.inf
    needed = float(2 ** doublings) if doublings < 1000 else math.inf
    return {"points": int(len(x)), "a": round(float(a), 3), "b": round(float(b), 3),
            "r2": round(r2, 3), "target": target, "pairs_needed": needed}


def fits(runs: list[dict], vocab: int) -> list[dict]:
    """Per language and metric, the fit over that language's runs at vocabulary ``vocab``."""
    out = []
    for lang in dict.fromkeys(r["lang"] for r in runs):
        mine = [r for r in runs if r["lang"] == lang and r["vocab"] == vocab]
        available = max(r["language_pairs"] for r in mine)  # before any subsampling
        for metric in METRICS:
            target = STS_TARGET if metric == "sts17" else TATOEBA_TARGET
            f = fit_curve([r["pairs"] for r in mine], [r[metric] for r in mine], target)
            at_1m = None if f["a"] is None else round(f["a"] + f["b"] * math.log2(1e6), 1)
            out.append({"lang": lang, "metric": metric, **f, "pairs_available": available,
                        "fit_at_1M": at_1m,
                        "target_applies": metric == "sts17" or lang in TATOEBA_TARGET_LANGS,
                        "paper_2019_at_1M": PAPER_2019.get(lang) if metric == "sts17" else None})
    return out


def fmt_pairs(n: float | None) -> str:
    if n is None:
        return "-"
    if not math.isfinite(n):
        return "never"
    return f"{n:,.0f}" if n < 1e12 else f"{n:.1e}"


def print_tables(runs: list[dict], fitted: list[dict]) -> None:
    print(table([{"lang": r["lang"], "vocab": r["vocab"], "fraction": r["fraction"],
                  "pairs": f"{r['pairs']:,}", "epochs": f"{r['best_epoch']}/{r['epochs']}",
                  "STSB dev": f"{r['stsb_dev']:.1f}", "STS17 xx-en": f"{r['sts17']:.1f}",
                  "Tatoeba": f"{r['tatoeba']:.1f}", "train s": f"{r['train_s']:.0f}"}
                 for r in runs],
                ["lang", "vocab", "fraction", "pairs", "epochs", "STSB dev", "STS17 xx-en",
                 "Tatoeba", "train s"]))
    print()
    print(table([{"lang": f["lang"], "metric": f["metric"], "a": f["a"], "b /doubling": f["b"],
                  "R2": f["r2"], "target": f["target"] if f["target_applies"] else
                  f"({f['target']:.0f})", "fit at 1M": f["fit_at_1M"],
                  "2019 at 1M": f["paper_2019_at_1M"] or "-",
                  "pairs needed": fmt_pairs(f["pairs_needed"]),
                  "available": f"{f['pairs_available']:,}"} for f in fitted],
                ["lang", "metric", "a", "b /doubling", "R2", "target", "fit at 1M",
                 "2019 at 1M", "pairs needed", "available"]))


def write(out: Path, payload: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".json.tmp")
    import json

    tmp.write_text(json.dumps(stamp(payload), indent=2, default=lambda v: None))
    tmp.replace(out)


def merge(files: list[str], out: Path) -> None:
    """One result from the JSONs of runs made in separate invocations (e.g. a language run
    with other ``--epochs`` while another ran): runs concatenated, fits made again."""
    import json

    parts = [json.loads(Path(f).read_text()) for f in files]
    vocabs = {p["recipe"]["vocab"] for p in parts}
    if len(vocabs) != 1:
        raise SystemExit(f"the parts were trained at different vocabularies: {vocabs}")
    vocab = vocabs.pop()
    runs = [{**r, "part": i} for i, p in enumerate(parts) for r in p["runs"]]
    seen = [(r["lang"], r["fraction"], r["vocab"]) for r in runs]
    if len(seen) != len(set(seen)):
        raise SystemExit("a (language, fraction, vocabulary) run is in more than one part")
    payload = {"machine": parts[0]["machine"],
               "parts": [{"file": f, "command": p["command"], "recipe": p["recipe"],
                          "load_start": p.get("load_start"), "load_end": p.get("load_end"),
                          "runs": len(p["runs"])} for f, p in zip(files, parts, strict=True)],
               "data": parts[0]["data"], "targets": parts[0]["targets"], "runs": runs,
               "fits": fits(runs, vocab),
               "fits_last_epoch": fits([{**r, **r.get("last_epoch", {})} for r in runs], vocab)}
    write(out, payload)
    print_tables(payload["runs"], payload["fits"])
    print(f"\nwrote {out}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT / "output/bitext-all"))
    ap.add_argument("--langs", default="ar,es,tr")
    ap.add_argument("--fractions", default="0.125,0.25,0.5,1")
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--extra-vocab", type=int, action="append", default=[],
                    help="also train all of each language's pairs at this vocabulary size")
    ap.add_argument("--epochs", type=float, default=2.0,
                    help="pairs seen per run, in epochs of all the language's pairs")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--smoke", action="store_true",
                    help="a tiny run: 600 pairs per language, vocabulary 1,000, fractions 1/2 "
                         "and all, one epoch")
    ap.add_argument("--out", default=str(RESULTS / "crosslingual_curve.json"))
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="write --out from the JSONs of earlier invocations instead of training")
    args = ap.parse_args(argv)
    if args.merge:
        merge(args.merge, Path(args.out))
        return
    cap = None
    if args.smoke:
        cap, args.vocab, args.epochs, args.fractions = 600, 1000, 1.0, "0.5,1"
    langs = [x.strip() for x in args.langs.split(",") if x.strip()]
    fractions = sorted(float(x) for x in args.fractions.split(","))
    tmp = Path(tempfile.mkdtemp(prefix="paralib-xl-curve-"))
    payload: dict = {
        "data": args.data, "smoke": args.smoke,
        "recipe": {"model": "sp averaging", "vocab": args.vocab, "extra_vocab": args.extra_vocab,
                   "dim": 300, "word_dropout": 0.3, "loss": "margin 0.4",
                   "negatives": "hardest, group-aware", "megabatch": "1 -> 20, reached after "
                   "15% of the run's mini-batches", "batch": 100, "lr": 0.001,
                   "pairs_seen_per_run": f"{args.epochs} epochs of all the language's pairs",
                   "selection": "best epoch on STS Benchmark dev"},
        "targets": {"sts17_xx_en": STS_TARGET, "tatoeba": TATOEBA_TARGET,
                    "tatoeba_langs": list(TATOEBA_TARGET_LANGS)},
        "load_start": os.getloadavg(), "runs": [], "fits": []}
    out = Path(args.out)
    # every language's curve first, then the runs at other vocabulary sizes
    plan = [(lang, f, args.vocab) for lang in langs for f in fractions]
    plan += [(lang, 1.0, v) for v in args.extra_vocab for lang in langs]
    totals: dict[str, int] = {}
    for lang, fraction, vocab in plan:
        path = tmp / f"{lang}.parquet"
        if lang not in totals:
            totals[lang] = extract(Path(args.data), lang, path, cap)
        total = totals[lang]
        sample = None if fraction >= 1 else max(2, round(fraction * total))
        n = sample or total
        epochs = max(1, round(args.epochs * total / n))
        tree = run_config(path, lang, sample, vocab, epochs, anneal_for(epochs * n))
        model, last_state, record = train_one(tree, args.threads)
        t0 = time.perf_counter()
        record.update(scores(model, lang, tmp / f"{lang}-{vocab}-{fraction:g}"))
        if last_state is not None:  # how much the choice on (English) STSB dev mattered
            model.load_state_dict(last_state)
            last = scores(model, lang, tmp / f"{lang}-{vocab}-{fraction:g}-last")
            record["last_epoch"] = {k: last[k] for k in METRICS}
        record["evaluate_s"] = round(time.perf_counter() - t0, 1)
        run = {"lang": lang, "fraction": fraction, "vocab": vocab, "sample": sample,
               "language_pairs": total, **record}
        payload["runs"].append(run)
        payload["fits"] = fits(payload["runs"], args.vocab)
        payload["fits_last_epoch"] = fits([{**r, **r.get("last_epoch", {})}
                                           for r in payload["runs"]], args.vocab)
        payload["load_end"] = os.getloadavg()
        write(out, payload)
        print(f"{lang} {fraction:g} vocab {vocab}: {run['pairs']:,} pairs, best epoch "
              f"{run['best_epoch']}/{epochs}, STSB dev {run['stsb_dev']:.1f}, STS17 "
              f"{run['sts17']:.1f}, Tatoeba {run['tatoeba']:.1f} ({run['train_s']:.0f} s)",
              flush=True)
    print()
    print_tables(payload["runs"], payload["fits"])
    print(f"\nwrote {out}")
