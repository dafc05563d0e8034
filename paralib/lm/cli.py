"""``paralib lm train``: KenLM 3-gram models on held-out references (:mod:`paralib.lm.run`)."""

from __future__ import annotations

import argparse
import json

from paralib.commands import Command, Group, StageContext
from paralib.config import add_config_args, load_config

GROUP = Group("lm", help="KenLM language models", dest="lm_command")


def _add(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("train", help="train 3-gram models on held-out references")
    add_config_args(p)
    return p


def _run(args: argparse.Namespace) -> int:
    from paralib.lm.run import run_lm

    cfg = load_config(args.config, args.overrides)
    ctx = StageContext.of(cfg, progress=not args.no_progress)
    print(json.dumps(run_lm(cfg.lm, ctx.storage, ctx.config), indent=2))
    return 0


COMMANDS = (Command("lm train", _add, _run, "paralib lm train --config configs/quickstart.yaml"),)
