"""The evaluation stage: STS 2012-2016, STS Benchmark, SICK, STS 2017, paraphrase
detection, Tatoeba, BUCC 2018 mining, nearest neighbours and encoding speed, for trained models
and baselines, with a JSON, Markdown and HTML report.

    from paralib.evaluate import Baseline, Evaluation, evaluate
    evaluate(Evaluation({"mine": "runs/model", "glove": Baseline("glove")}, ["sts"], "out/eval"))

``paralib evaluate`` (:mod:`paralib.evaluate.cli`) is the command line. Names are imported on
first use, so that building the command line stays cheap.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".evalmodel": "EvalEncoder EvalModel EvaluateError PairScorer",
    ".encoders": "BASELINES Baseline as_eval_model load_model_folder make_baseline",
    ".loaders": "MissingDataError", ".common": "Settings",
    ".run": "SUITES Evaluation evaluate resolve_suites",
})
