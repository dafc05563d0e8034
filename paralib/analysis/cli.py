"""``paralib analyze``: the analysis report of a scored corpus (:mod:`paralib.analysis.run`)."""

from __future__ import annotations

import argparse

from paralib.commands import Command, StageContext
from paralib.config import add_config_args, load_config


def _add(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("analyze", help="write the analysis report of a scored corpus")
    add_config_args(p)
    return p


def _run(args: argparse.Namespace) -> int:
    from paralib.analysis.run import run_analyze

    cfg = load_config(args.config, args.overrides)
    ctx = StageContext.of(cfg, progress=not args.no_progress)
    print(f"report: {run_analyze(cfg.analyze, ctx.storage, ctx.config)}")
    return 0


COMMANDS = (Command("analyze", _add, _run, "paralib analyze --config configs/quickstart.yaml"),)
