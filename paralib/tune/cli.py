"""``paralib tune``: a Ray Tune search over a space file (``tune/spaces/*.yaml``).

    paralib tune --space tune/spaces/length-quick.yaml --config configs/quickstart.yaml \\
        [--search grid|random|optuna] [--samples N] [--set train.epochs=5]

The base configuration is ``--config`` with the space's ``set`` and then ``--set`` applied;
each trial applies its parameter values on top. The report goes to
``<storage-path>/<name>/report/``.
"""

from __future__ import annotations

import argparse

import yaml

from paralib.commands import Command
from paralib.config import add_config_args
from paralib.tune.space import SEARCHES


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``tune`` subcommand to an argparse ``add_subparsers()`` object."""
    p = subparsers.add_parser("tune", help="tune selection and training with Ray Tune",
                              description=__doc__.splitlines()[0])
    p.add_argument("--space", required=True, metavar="FILE",
                   help="search space file (tune/spaces/*.yaml)")
    add_config_args(p, example="train.epochs=5")
    p.add_argument("--search", choices=SEARCHES, default=None,
                   help="search algorithm (default: the space file's, else grid); optuna is "
                   "model-based (TPE)")
    p.add_argument("--samples", type=int, default=None,
                   help="trials for random/optuna; repeats of the grid for grid")
    p.add_argument("--storage-path", default=None,
                   help="results folder, local or s3:// (default: the space file's, else "
                   "output/tune)")
    p.add_argument("--name", default=None, help="experiment name (default: the space file's "
                   "name, else its file name)")
    p.add_argument("--concurrent", type=int, default=None,
                   help="trials at once (default: as many as the CPUs fit)")
    p.add_argument("--seed", type=int, default=None, help="seed of the searcher and grid order")
    p.add_argument("--suite", action="append", default=None, metavar="NAME",
                   help="test suite for the best configuration (repeatable; default: the "
                   "space file's, else sts and stsb); --suite none skips the evaluation")
    p.add_argument("--no-asha", action="store_true", help="run every trial to the end")
    return p


def _flow(value) -> str:
    """A value as one line of YAML (for ``--set``-style overrides)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=1 << 30)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def build_config(args: argparse.Namespace, space_set: dict):
    """The base configuration: ``--config``, then the space's ``set``, then ``--set``."""
    from paralib.config import load_config

    overrides = [f"{k}={_flow(v)}" for k, v in space_set.items()] + list(args.overrides)
    return load_config(args.config, overrides)


def _suites(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    names = [s.strip() for v in values for s in v.split(",") if s.strip()]
    return [] if names == ["none"] else names


def run(args: argparse.Namespace) -> int:
    """Run ``paralib tune``; returns the exit status (1: no trial reported the metric). Bad
    input raises its :class:`~paralib.errors.ParalibError` (printed by the command line)."""
    from paralib.tune.report import status_counts
    from paralib.tune.runner import TuneOptions, run_tune
    from paralib.tune.space import read_space

    space = read_space(args.space)
    cfg = build_config(args, space.spec.set)
    options = TuneOptions(search=args.search, samples=args.samples,
                          storage_path=args.storage_path, name=args.name,
                          concurrent=args.concurrent, evaluate=_suites(args.suite),
                          asha=False if args.no_asha else None, seed=args.seed)
    summary = run_tune(space, cfg, options, progress=not args.no_progress)
    best, metric, counts = summary.best, summary.metric, status_counts(summary)
    print(f"{len(summary.trials)} trials in {summary.seconds:.0f} s: "
          f"{counts['completed']} completed, {counts['stopped']} stopped by ASHA, "
          f"{counts['error']} failed")
    if best:
        print(f"best: {best['params']} epoch {best['epoch']}, {metric} {best[metric]:.2f}")
        for name, value in (summary.test.results if summary.test else {}).items():
            print(f"  test {name}: {value:.2f}" if value is not None else f"  test {name}: –")
    files = summary.files or {}
    print(f"report: {files['html']} (also {files['markdown']}, {files['json']})")
    return 0 if best else 1


COMMANDS = (Command("tune", add_parser, run, "paralib tune --space tune/spaces/learning-rate.yaml "
                    "--config configs/train-sp.yaml"),)
