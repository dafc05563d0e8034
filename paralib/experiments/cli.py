"""``paralib experiment``: reproduce one table of the papers and write its results section.

    paralib experiment mega-batching --size small     # train, evaluate, write docs/RESULTS.md
    paralib experiment encoders --smoke --out /tmp/x  # tiny end-to-end check (own RESULTS.md)
    paralib experiment --list                         # every experiment and whether it runs
    paralib experiment noise --set train.workers=2    # every run's config, after the sizes'
    paralib experiment scaling --only "GRAN *"        # some runs now, the rest later

Runs already made (same config, same evaluation) are reused, so an interrupted experiment
resumes. Finished runs' records are kept in docs/results/runs (commit them with the book): on
another machine they are reused without their models, so a long experiment can be made a few
runs at a time with --only; its section is written once every run is made. Exit status: 0
done (or runs left for later), 1 some run failed, 2 the experiment is invalid or not yet
runnable (the message says what it needs).
"""

from __future__ import annotations

import argparse
import sys

from paralib.commands import Command
from paralib.config import add_config_args
from paralib.experiments.spec import (
    DEFAULT_OUT,
    SIZES,
    ExperimentError,
    list_experiments,
    load_experiment,
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``experiment`` subcommand to an argparse ``add_subparsers()`` object."""
    p = subparsers.add_parser("experiment", help="reproduce a table of the papers and write "
                              "its section of docs/RESULTS.md",
                              description=__doc__.splitlines()[0])
    p.add_argument("name", nargs="?", help="experiment name (a file experiments/NAME.yaml)")
    p.add_argument("--list", action="store_true", help="list the experiments and exit")
    p.add_argument("--size", choices=SIZES, default="full",
                   help="smoke (tiny, seconds), small (minutes here) or full (default)")
    p.add_argument("--smoke", action="store_true", help="same as --size smoke")
    p.add_argument("--out", default=DEFAULT_OUT,
                   help=f"folder of the runs (default: {DEFAULT_OUT})")
    p.add_argument("--results", default=None, help="results file to write the section into "
                   "(default: docs/RESULTS.md; OUT/NAME/smoke/RESULTS.md for --smoke)")
    p.add_argument("--plots", default=None, help="folder of the plot (default: "
                   "docs/results/experiments; beside the results for --smoke)")
    p.add_argument("--records", default=None, help="folder of the finished runs' kept "
                   "records (default: docs/results/runs; OUT/records for --smoke)")
    p.add_argument("--only", action="append", default=[], metavar="GLOB",
                   help="make only the runs whose names match (repeatable); the others are "
                   "reused where kept, and the section waits until none is left")
    add_config_args(p, example="train.workers=2", config=False)
    return p


def list_lines() -> list[str]:
    """One line per experiment: number, name, table, whether it can run here, and how many
    of its runs have kept records (:mod:`paralib.experiments.records`) per size."""
    from paralib.experiments.needs import unmet_all
    from paralib.experiments.plan import kept_runs

    rows = []
    for name in list_experiments():
        try:
            exp = load_experiment(name)
        except ExperimentError as exc:
            rows.append((0, f"  ?  {name:<28} invalid: {str(exc).splitlines()[-1].strip()}"))
            continue
        missing = unmet_all(exp.needs)
        state = "runnable" if not missing else "not yet runnable: needs " + "; ".join(missing)
        counts = {size: kept_runs(exp, size) for size in ("small", "full")
                  if size in exp.sizes}
        kept = [f"{size} {k}/{n}" for size, (k, n) in counts.items() if k]
        if kept:
            state += f" (runs kept: {', '.join(kept)})"
        rows.append((exp.number, f"{exp.number:>3}  {exp.name:<28} {exp.paper.table:<14} "
                                 f"{state}"))
    return [line for _, line in sorted(rows)]


def run(args: argparse.Namespace) -> int:
    """Run the parsed ``experiment`` command; returns the exit status (1: a run failed). An
    invalid experiment raises its :class:`ExperimentError` (printed by the command line)."""
    if args.list:
        print("\n".join(list_lines()))
        return 0
    if not args.name:
        raise ExperimentError("give an experiment NAME or --list")
    from paralib.experiments.runner import run_experiment

    size = "smoke" if args.smoke else args.size
    result = run_experiment(args.name, size=size, out=args.out, results=args.results,
                            plots=args.plots, progress=not args.no_progress,
                            overrides=args.overrides, records=args.records, only=args.only)
    if result.failed:
        print(f"paralib experiment: run(s) failed: {', '.join(result.failed)} (see "
              f"{result.results})", file=sys.stderr)
        return 1
    return 0


COMMANDS = (Command("experiment", add_parser, run, "paralib experiment encoders --size smoke"),)
