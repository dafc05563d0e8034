"""``paralib evaluate``: evaluate model folders and baselines, write the report.

    paralib evaluate --model runs/sp --baseline glove --baseline bleu --suite sts --suite stsb \\
        --out output/evaluate

``--model`` and ``--baseline`` repeat and mix; ``--model NAME=DIR`` names a model (default:
the folder's name). A model folder is a paralib model, a sentence-transformers folder
(``modules.json``) or a model2vec folder (its ``config.json``), told by its files.
``--suite`` repeats or takes a comma list; ``all`` is every suite.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from paralib.commands import Command
from paralib.contracts import EvalReport
from paralib.evaluate.base import SUITES
from paralib.evaluate.common import Settings
from paralib.evaluate.encoders import BASELINES, EvalModel, EvaluateError


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``evaluate`` subcommand to an argparse ``add_subparsers()`` object."""
    p = subparsers.add_parser("evaluate", help="evaluate sentence encoders (STS, STS 2017, "
                              "detection, Tatoeba, BUCC, neighbours, speed)",
                              description=__doc__.splitlines()[0])
    p.add_argument("--model", action="append", default=[], metavar="[NAME=]DIR",
                   help="a model folder: paralib, sentence-transformers or model2vec "
                   "(repeatable)")
    p.add_argument("--baseline", action="append", default=[], choices=list(BASELINES),
                   help="a baseline to evaluate (repeatable)")
    p.add_argument("--suite", action="append", default=[], metavar="NAME",
                   help=f"suite(s) to run: {', '.join(SUITES)} or all (default: all)")
    p.add_argument("--out", default="output/evaluate", help="report folder "
                   "(default: output/evaluate)")
    p.add_argument("--data", default=None, help="data root (default: $PARALIB_DATA or "
                   "../shared/data)")
    p.add_argument("--seed", type=int, default=0, help="seed of MLPs and splits (default: 0)")
    p.add_argument("--batch-size", type=int, default=256, help="encoding batch size")
    p.add_argument("--ray-threshold", type=int, default=Settings.ray_threshold,
                   help="sets of at least this many sentences are encoded on Ray Data actors "
                   f"(default: {Settings.ray_threshold})")
    p.add_argument("--ray-actors", type=int, default=Settings.ray_actors,
                   help="encoding actors for large sets")
    p.add_argument("--ray-address", default=None, help="Ray cluster address (default: "
                   "$RAY_ADDRESS, else an embedded Ray)")
    p.add_argument("--speed-sentences", type=int, default=Settings.speed_sentences,
                   help="sentences of the encoding speed set")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    return p


def _model_arg(value: str) -> tuple[str, str]:
    name, sep, path = value.partition("=")
    if sep and name and not Path(value).exists():
        return name, path
    return Path(value.rstrip("/")).name or value, value


def _unique(name: str, taken: dict) -> str:
    if name not in taken:
        return name
    i = 2
    while f"{name}-{i}" in taken:
        i += 1
    return f"{name}-{i}"


def summary(report: dict | EvalReport) -> list[str]:
    """A few headline numbers per model, for the terminal."""
    lines = []
    for suite, task in EvalReport.load(report).tasks.items():
        for m, res in task.models.items():
            if res["status"] != "ok":
                lines.append(f"{suite:<10} {m:<16} {res['status']}")
                continue
            if suite == "sts":
                head = f"mean r {res['all']['pearson']:.1f} over {res['all']['datasets']} sets"
            else:
                parts = []
                for s, e in res.get("sets", {}).items():
                    if e["status"] != "ok":
                        continue
                    v = (e.get("pearson") if "pearson" in e else
                         e.get("test", {}).get("f1") if "test" in e else
                         e.get("xx->en") if "xx->en" in e else
                         e.get("sentences_per_s") if "sentences_per_s" in e else
                         (e.get("features", {}).get("concat") or
                          e.get("features", {}).get("score") or {}).get("accuracy"))
                    if v is not None:
                        parts.append(f"{s} {v:.1f}")
                head = ", ".join(parts) or "ok"
            lines.append(f"{suite:<10} {m:<16} {head}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Run ``paralib evaluate``; returns the exit status. Bad input (a missing folder, an
    unknown suite...) raises its :class:`~paralib.errors.ParalibError` (printed by the CLI)."""
    from paralib.evaluate.encoders import load_model_folder, make_baseline
    from paralib.evaluate.run import evaluate, resolve_suites
    from paralib.paths import data_root

    data = Path(args.data) if args.data else data_root()
    if not data.is_dir():
        raise EvaluateError(f"data folder {data} does not exist")
    settings = Settings(data=data, seed=args.seed, batch_size=args.batch_size,
                        ray_threshold=args.ray_threshold, ray_actors=args.ray_actors,
                        ray_address=args.ray_address, speed_sentences=args.speed_sentences)
    resolve_suites(args.suite or ["all"])  # unknown suites fail before any loading
    models: dict[str, EvalModel] = {}
    for value in args.model:
        name, path = _model_arg(value)
        name = _unique(name, models)
        models[name] = load_model_folder(path, name)
    for base in args.baseline:
        name = _unique(base, models)
        models[name] = make_baseline(base, data)
        models[name].name = name
    if not models:
        raise EvaluateError("nothing to evaluate: give --model DIR and/or --baseline NAME")
    report = evaluate(models, args.suite or ["all"], args.out, progress=not args.no_progress,
                      settings=settings)
    print("\n".join(summary(report)))
    files = EvalReport.load(report).files or {}
    print(f"report: {files['html']} (also {files['markdown']}, {files['json']})")
    failed = failures(report)
    if failed:
        print(f"paralib evaluate: {len(failed)} evaluation(s) failed (their messages are in "
              f"the report, their tracebacks in the run's log): {'; '.join(failed[:5])}"
              f"{'; ...' if len(failed) > 5 else ''}", file=sys.stderr)
        return 1
    return 0


def failures(report: dict | EvalReport) -> list[str]:
    """``suite/set model: message`` of every evaluation that raised (status ``error``), a
    whole suite's or one set's; missing data and uncovered languages are not failures."""
    out = []
    for suite, task in EvalReport.load(report).tasks.items():
        for m, res in task.models.items():
            sets = [f"{suite}/{s} {m}: {e.get('message', '')}"
                    for s, e in res.get("sets", {}).items() if e.get("status") == "error"]
            if not sets and res.get("status") == "error":  # the whole suite failed
                sets = [f"{suite} {m}: {res.get('message', '')}"]
            out.extend(sets)
    return out


COMMANDS = (Command("evaluate", add_parser, run,
                    "paralib evaluate --model models/paralib-en --baseline glove --suite sts"),)
