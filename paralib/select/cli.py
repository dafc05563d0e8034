"""``paralib select``: a training set from scored pairs (:func:`paralib.select.run_select`)."""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command, StageContext
from paralib.config import add_config_args, load_config


def _add(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("select", help="build a training set from scored pairs")
    add_config_args(p)
    return p


def _run(args: argparse.Namespace) -> int:
    from paralib.select import run_select

    cfg = load_config(args.config, args.overrides)
    ctx = StageContext.of(cfg, progress=not args.no_progress)
    report = run_select(cfg.select, ctx.storage, ctx.config)
    print(json.dumps({k: report[k] for k in ("rows_in", "rows_out", "steps", "files")},
                     indent=2, default=str))
    return 0


COMMANDS = (Command("select", _add, _run,
                    "paralib select --config configs/quickstart.yaml --set select.size=20000"),)
