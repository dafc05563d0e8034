"""``paralib quickstart``: the main job on the embedded default (this machine, shared data).

1. back-translate the Multi30k German training sentences with the shipped German→English
   model into candidate paraphrase pairs (2017 §3);
2. train the KenLM language models and the reference/translation classifiers on held-out
   references (2017 §5.6, §5.6.1);
3. score every candidate pair (length, cost, overlap, BLEU, duplicates, LM, P(reference),
   paraphrase score; 2017 §5.5-5.7, 2018 §3.2);
4. select a training set (bounds, one hypothesis per reference, a fixed-size sample);
5. write the analysis report (2017 Tables 9-11);
6. train an SP encoder on the selected pairs with Ray Train (2019 §2);
7. evaluate it on STS 2012-2016 and the STS Benchmark next to the shipped English encoder
   (``models/paralib-en``), GloVe averaging and random encoders (2019 Table 2) and write the
   evaluation report.

Each step is one stage call after the other; the config is not changed as they run, and what
step 7 evaluates beside the new model is decided before step 1.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from paralib.analysis.run import run as analyze
from paralib.classifier.run import run as classifiers
from paralib.config import Config
from paralib.contracts import EvalReport, SelectionReport, TrainingSummary
from paralib.evaluate import Baseline, Evaluation, evaluate
from paralib.filters.stage import run as score
from paralib.io.context import StageContext
from paralib.io.shards import read_output
from paralib.io.stage import StageReport
from paralib.lm.run import run as language_models
from paralib.paths import models_root
from paralib.runs import train_model
from paralib.select.run import run as select
from paralib.translate.backtranslate import run as backtranslate
from paralib.translate.translator import model_info

STEPS = 7
BASELINES = ("glove", "random-sp20k", "random-trigram")
SHIPPED = "paralib-en (shipped)"
MODEL = "quickstart-sp"


def shipped_model() -> Path:
    """The shipped English encoder (``models/paralib-en``), evaluated beside the model the
    quickstart trains, so that a new model is read against the one paralib ships."""
    return models_root() / "paralib-en"


def results_table(ev: dict | EvalReport) -> str:
    """Per-year STS means, their mean and STS Benchmark (Pearson x100) of every model."""
    ev = EvalReport.load(ev)
    years = ["2012", "2013", "2014", "2015", "2016"]
    head = (f"{'model':<22}" + "".join(f"{y:>7}" for y in years)
            + f"{'all':>7}{'B dev':>7}{'B test':>7}")
    rows = [head]
    for name in ev.models:
        cells = [ev.pearson("sts", name, "years", y) for y in years]
        cells += [ev.pearson("sts", name, "all")]
        cells += [ev.pearson("stsb", name, "sets", s) for s in ("dev", "test")]
        rows.append(f"{name:<22}" + "".join(f"{c:7.1f}" if c is not None else f"{'-':>7}"
                                            for c in cells))
    return "\n".join(rows)


def _step(k: int, text: str) -> float:
    print(f"\n[{k}/{STEPS}] {text}", flush=True)
    return time.perf_counter()


def evaluation_of(cfg: Config) -> Evaluation:
    """What step 7 evaluates, decided before the run starts: the new model on STS 2012-2016
    and the STS Benchmark, next to the shipped encoder (when it is here) and the baselines,
    into ``evaluate/`` beside the model's folder."""
    beside = {SHIPPED: str(shipped_model())} if shipped_model().is_dir() else {}
    return Evaluation({MODEL: str(Path(cfg.train.output)), **beside,
                       **{b: Baseline(b) for b in BASELINES}}, ["sts", "stsb"],
                      Path(cfg.train.output).parent / "evaluate")


def backtranslated(cfg: Config, ctx: StageContext) -> StageReport:
    """Step 1: back-translate, then show a few candidate pairs."""
    info = model_info(cfg.backtranslate.model)
    _step(1, f"back-translating with {cfg.backtranslate.model} "
             f"({info.get('src_lang', '?')}→{info.get('tgt_lang', '?')}, "
             f"BLEU {info.get('bleu_int8', 'n/a')} on "
             f"{info.get('test_set', 'Multi30k test 2016')})")
    bt = backtranslate(cfg.backtranslate, ctx)
    print(bt.text())
    sample = read_output(cfg.backtranslate.output, "data", ctx.storage).slice(0, 4).to_pylist()
    print("some candidate paraphrases (reference ||| back-translation, cost):")
    for row in sample:
        print(f"  {row['ref']} ||| {row['trans']}  ({row['cost']:.3f}, rank {row['rank']})")
    return bt


def heldout_models(cfg: Config, ctx: StageContext) -> None:
    """Step 2: the language models and the classifiers, on held-out references."""
    _step(2, "language models and reference/translation classifiers on held-out references")
    lm = language_models(cfg.lm, ctx)
    print(f"KenLM {cfg.lm.order}-gram on {lm['references']} held-out references: {lm['models']}")
    clf = classifiers(cfg.classifier, ctx)
    for name, acc in clf["test"].items():
        print(f"classifier {name}: test accuracy {acc['acc']:.3f} (references "
              f"{acc['acc_ref']:.3f}, translations {acc['acc_trans']:.3f})")


def selected(cfg: Config, ctx: StageContext) -> SelectionReport:
    """Step 4: the training set, and how many rows each step of the selection kept."""
    _step(4, "selecting a training set")
    sel = select(cfg.select, ctx)
    for st in sel["steps"]:
        print(f"  {st['step']}: {st['kept']} rows kept")
    print(f"selected {sel['rows_out']} pairs: {sel['files']['pairs']}")
    return sel


def trained(cfg: Config, progress: bool) -> TrainingSummary:
    """Step 6: an SP encoder trained anew with Ray Train (a demo: no checkpoint is resumed)."""
    _step(6, "training an SP encoder on the selected pairs with Ray Train")
    summary = train_model(cfg, "ray", progress=progress, fresh=True)
    removed = summary.decontaminated
    print(f"trained on {summary.pairs} pairs ({summary.rejected} rejected); "
          "decontaminated against every evaluation set: "
          + (", ".join(f"{k} removed {v}" for k, v in removed.items()) or "none removed"
             if isinstance(removed, dict) else str(removed)))
    for h in summary.history:
        print(f"  epoch {h.epoch}: loss {h.loss:.4f}, STS Benchmark dev "
              f"{h.dev_pearson:.1f}, {h.pairs_per_s:.0f} pairs/s")
    print(f"model {summary.model} (best epoch {summary.best_epoch})")
    return summary


def quickstart(cfg: Config, progress: bool = True) -> dict:
    """Run the quickstart's stages one after the other, printing what each did and where its
    output is; returns the summary it prints last."""
    t0 = time.perf_counter()
    ctx = StageContext.of(cfg, progress)
    evaluation = evaluation_of(cfg)
    bt = backtranslated(cfg, ctx)
    heldout_models(cfg, ctx)
    _step(3, "scoring every candidate pair")
    sc = score(cfg.score, ctx)
    print(sc.text())
    sel = selected(cfg, ctx)
    _step(5, "analysis report")
    report = analyze(cfg.analyze, ctx)
    model = trained(cfg, progress)
    _step(7, "evaluating on STS 2012-2016 and STS Benchmark next to the baselines")
    ev = evaluate(evaluation, ctx)
    print(results_table(ev))
    dev, test = (ev.pearson("stsb", MODEL, "sets", s) for s in ("dev", "test"))
    print(f"STS Benchmark Pearson x100 of the quickstart model: dev {dev:.1f}, test {test:.1f}")
    elapsed = time.perf_counter() - t0
    summary = {"seconds": round(elapsed, 1), "backtranslate": bt.rows_out,
               "candidates": bt.hypotheses, "scored": sc.rows_out,
               "selected": sel["rows_out"], "report": str(report),
               "model": model.model, "stsb_dev": round(dev, 2),
               "stsb_test": round(test, 2), "evaluation": ev.files["html"]}
    print(f"\nquickstart finished in {elapsed:.0f}s: {json.dumps(summary)}")
    print(f"open {report} and {ev.files['html']}")
    return summary
