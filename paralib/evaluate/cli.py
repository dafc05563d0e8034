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
import itertools
import sys
from pathlib import Path

from paralib.commands import Command
from paralib.contracts import EvalReport
from paralib.evaluate.base import SUITES
from paralib.evaluate.common import Settings
from paralib.evaluate.encoders import BASELINES, Baseline, Entry
from paralib.io.context import StageContext


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
    """``name``, or ``name-2``, ``name-3``... when it is taken."""
    if name not in taken:
        return name
    return next(f"{name}-{i}" for i in itertools.count(2) if f"{name}-{i}" not in taken)


def summary(report: dict | EvalReport) -> list[str]:
    """A few headline numbers per model (those the report plots), for the terminal."""
    from paralib.evaluate.plots import plot_values

    lines = []
    for suite, task in EvalReport.load(report).tasks.items():
        values = (plot_values(suite, task) or ("", "", {}))[2]
        for m, res in task.models.items():
            head = res["status"]
            if head == "ok" and suite == "sts":
                head = f"mean r {res['all']['pearson']:.1f} over {res['all']['datasets']} sets"
            elif head == "ok":
                head = ", ".join(f"{s} {v:.1f}" for s, v in values.get(m, {}).items()
                                 if v is not None) or "ok"
            lines.append(f"{suite:<10} {m:<16} {head}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Run ``paralib evaluate``; returns the exit status. Bad input (a missing folder, an
    unknown suite...) raises its :class:`~paralib.errors.ParalibError` (printed by the CLI)."""
    from paralib.evaluate.run import Evaluation, evaluate
    from paralib.paths import data_root

    settings = Settings(data=Path(args.data) if args.data else data_root(), seed=args.seed,
                        batch_size=args.batch_size, ray_threshold=args.ray_threshold,
                        ray_actors=args.ray_actors, ray_address=args.ray_address,
                        speed_sentences=args.speed_sentences)
    models: dict[str, Entry] = {}
    for value in args.model:
        name, path = _model_arg(value)
        models[_unique(name, models)] = path
    for base in args.baseline:
        models[_unique(base, models)] = Baseline(base)
    report = evaluate(Evaluation(models, args.suite or ["all"], args.out, settings),
                      StageContext(progress=not args.no_progress))
    print("\n".join(summary(report)))
    files = report.files or {}
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
