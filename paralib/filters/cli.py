"""``paralib score``: one column per scorer on candidate pairs (:mod:`paralib.filters.stage`)."""

from __future__ import annotations

import argparse

from paralib.commands import Command
from paralib.config import add_config_args, load_config


def _add(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("score", help="add one column per scorer to candidate pairs")
    add_config_args(p)
    return p


def _run(args: argparse.Namespace) -> int:
    from paralib.filters.stage import score

    print(score(load_config(args.config, args.overrides), progress=not args.no_progress).text())
    return 0


COMMANDS = (Command("score", _add, _run, "paralib score --config configs/quickstart.yaml"),)
