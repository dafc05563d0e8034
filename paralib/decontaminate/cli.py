"""``paralib decontaminate``: the training-ready corpus (:mod:`paralib.decontaminate.stage`)."""

from __future__ import annotations

import argparse

from paralib.commands import Command
from paralib.config import add_config_args, load_config


def _add(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "decontaminate", help="the training-ready corpus: checked, decontaminated, grouped",
        description="Read bitext.inputs and bitext.corpora, reject bad lines, remove every pair "
        "sharing a side with an evaluation set, group and de-duplicate, and write "
        "decontaminate.output. Example: paralib decontaminate --config configs/bitext-all.yaml")
    add_config_args(p)
    return p


def _run(args: argparse.Namespace) -> int:
    from paralib.decontaminate.stage import decontaminate, per_eval_set

    report = decontaminate(load_config(args.config, args.overrides),
                           progress=not args.no_progress)
    print(report.text())
    print("removed per evaluation set: " + (", ".join(
        f"{k} {v}" for k, v in per_eval_set(report.reasons).items()) or "none"))
    return 0


COMMANDS = (Command("decontaminate", _add, _run,
                    "paralib decontaminate --config configs/bitext-all.yaml"),)
