"""``paralib classifier train``: the reference/translation classifiers
(:mod:`paralib.classifier.run`)."""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command, Group, StageContext
from paralib.config import add_config_args, load_config

GROUP = Group("classifier", help="reference/translation classifiers", dest="clf_command")


def _add(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("train", help="train the AVG and LSTM classifiers")
    add_config_args(p)
    return p


def _run(args: argparse.Namespace) -> int:
    from paralib.classifier.run import run_classifier

    cfg = load_config(args.config, args.overrides)
    ctx = StageContext.of(cfg, progress=not args.no_progress)
    print(json.dumps(run_classifier(cfg.classifier, ctx.storage, ctx.config), indent=2))
    return 0


COMMANDS = (Command("classifier train", _add, _run,
                    "paralib classifier train --config configs/quickstart.yaml"),)
