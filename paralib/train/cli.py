"""``paralib train``: a paraphrastic encoder with Ray Train (:func:`paralib.train.run.train`)."""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command
from paralib.config import add_config_args, load_config


def _add(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("train", help="train a paraphrastic encoder with Ray Train")
    add_config_args(p)
    p.add_argument("--fresh", action="store_true", help="start the run of train.name over "
                   "instead of resuming it (deletes that run folder, which paralib made)")
    return p


def _run(args: argparse.Namespace) -> int:
    from paralib.train.run import train

    summary = train(load_config(args.config, args.overrides), progress=not args.no_progress,
                    fresh=args.fresh)
    print(json.dumps({k: v for k, v in summary.items() if k != "history"}, indent=2))
    return 0


COMMANDS = (Command("train", _add, _run, "paralib train --config configs/paralib-en.yaml"),)
