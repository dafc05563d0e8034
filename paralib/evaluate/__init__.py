"""The evaluation stage (issue 5): STS 2012-2016, STS Benchmark, SICK, STS 2017, paraphrase
detection, Tatoeba, BUCC 2018 mining, nearest neighbours and encoding speed, for trained models
and baselines, with a JSON, Markdown and HTML report.

    from paralib.evaluate import evaluate, make_baseline
    evaluate({"mine": "runs/model", "glove": make_baseline("glove")}, ["sts", "stsb"], "out/eval")

``paralib evaluate`` (:mod:`paralib.evaluate.cli`) is the command line. Names are imported on
first use, so that building the command line stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "BASELINES": "encoders", "Encoder": "encoders", "EvalModel": "encoders",
    "EvaluateError": "encoders", "PairScorer": "encoders", "as_eval_model": "encoders",
    "load_model_folder": "encoders", "make_baseline": "encoders",
    "MissingDataError": "loaders", "Settings": "common",
    "SUITES": "run", "evaluate": "run", "resolve_suites": "run",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"paralib.evaluate.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'paralib.evaluate' has no attribute {name!r}")
